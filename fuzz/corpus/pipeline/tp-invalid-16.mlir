tp.mesh @mesh(shape = 4)
func.func @all_gather_axis(%x: tensor<2x16xf32>) {
  %r = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 2 : tensor<2x16xf32> -> tensor<2x16xf32>
  return
}
