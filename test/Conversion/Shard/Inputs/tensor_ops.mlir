// Tensor ops import-shard raises to model ops (x sharded on its rows):
// tensor.pad by 0.5 (constant blocks concatenated), a strided
// tensor.extract_slice (model.slice), tensor.concat, and a
// tensor.insert_slice of a block covering every row (the destination's
// pieces around it, concatenated); reference.py's `tensor-ops` computes
// the same.
shard.grid @g(shape = 4)
func.func @tensor_ops(%x: tensor<8x16xf32>) -> tensor<8x18xf32> {
  %rows = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %rows : tensor<8x16xf32>
  %half = arith.constant 0.5 : f32
  %p = tensor.pad %xs low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %half : f32
  } : tensor<8x16xf32> to tensor<8x18xf32>
  %s = tensor.extract_slice %p[0, 0] [8, 9] [1, 2] : tensor<8x18xf32> to tensor<8x9xf32>
  %c = tensor.concat dim(1) %s, %s : (tensor<8x9xf32>, tensor<8x9xf32>) -> tensor<8x18xf32>
  %b = tensor.extract_slice %xs[0, 0] [8, 4] [1, 1] : tensor<8x16xf32> to tensor<8x4xf32>
  %r = tensor.insert_slice %b into %c[0, 5] [8, 4] [1, 1] : tensor<8x4xf32> into tensor<8x18xf32>
  return %r : tensor<8x18xf32>
}
