// A two-step reshard on a 2x2 grid: rows split over both axes ([[0, 1]])
// gathered to replicated. MLIR 22's shard-partition handles single-step
// reshards only and crashes here (upstream-shard.md 1.6); tp gathers
// once per axis, the inner axis first.
shard.grid @g(shape = 2x2)
func.func @twostep(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %both = shard.sharding @g split_axes = [[0, 1]] : !shard.sharding
  %rep = shard.sharding @g split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %both : tensor<8x8xf32>
  %xr = shard.shard %xs to %rep annotate_for_users : tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %y = linalg.exp ins(%xr : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %ys = shard.shard %y to %rep : tensor<8x8xf32>
  return %ys : tensor<8x8xf32>
}
