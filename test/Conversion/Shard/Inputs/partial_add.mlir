// Two rowwise products summed (a residual of two branches, or one GEMM
// split in two): x1 @ w1 + x2 @ w2 with the contraction dim split. tp
// keeps each product Partial(sum) through the add and reduces once;
// upstream 22 has no Partial and reduces each product.
shard.grid @tp(shape = 4)
func.func @partial_add(%x1: tensor<16x64xf32>, %w1: tensor<64x32xf32>,
                       %x2: tensor<16x64xf32>, %w2: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %k = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %rowk = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %x1s = shard.shard %x1 to %k : tensor<16x64xf32>
  %w1s = shard.shard %w1 to %rowk : tensor<64x32xf32>
  %x2s = shard.shard %x2 to %k : tensor<16x64xf32>
  %w2s = shard.shard %w2 to %rowk : tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %a = linalg.matmul ins(%x1s, %w1s : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %b = linalg.matmul ins(%x2s, %w2s : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %s = linalg.add ins(%a, %b : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = shard.shard %s to %rep : tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
