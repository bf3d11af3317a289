tp.mesh @mesh(shape = 4)
func.func @reduce_scatter_uneven(%x: tensor<6x16xf32>) {
  %r = tp.reduce_scatter %x on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 : tensor<6x16xf32> -> tensor<2x16xf32>
  return
}
