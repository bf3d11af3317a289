tp.mesh @mesh(shape = 4)
func.func @all_to_all_same_axis(%x: tensor<8x4xf32>) {
  %r = tp.all_to_all %x on @mesh mesh_axes = [0] split_axis = 1 concat_axis = 1 : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}
