// A weight stored [n, k] (nn.Linear's layout, read through a transposed
// map) split on n, then a sum over the features: the product is Shard(1),
// the sum over the split dim a partial sum, reduced once.
shard.grid @tp(shape = 4)
func.func @linear_rowsum(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>) -> tensor<8xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %ws = shard.shard %w to %rows : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%x, %ws : tensor<8x16xf32>, tensor<32x16xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
       ins(%h : tensor<8x32xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %ss = shard.shard %s to %rep : tensor<8xf32>
  return %ss : tensor<8xf32>
}
