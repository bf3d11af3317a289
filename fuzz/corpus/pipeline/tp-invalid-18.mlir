tp.mesh @mesh(shape = 4)
func.func @reduce_scatter_shape(%x: tensor<8x16xf32>) {
  %r = tp.reduce_scatter %x on @mesh mesh_axes = [0] reduction = sum scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}
