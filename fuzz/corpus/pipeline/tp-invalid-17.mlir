tp.mesh @mesh(shape = 4)
func.func @all_gather_element_type(%x: tensor<2x16xf32>) {
  %r = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<8x16xf16>
  return
}
