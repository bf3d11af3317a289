// An all_gather for convert-tp-to-shard-mpi.mlir (upstream does not lower it).
tp.mesh @mesh(shape = 4)
func.func @gather(%x: tensor<2x8xf32>) -> tensor<8x8xf32> {
  %g = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}
