tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @collective_axis_twice(%x: tensor<8xf32>) {
  %r = tp.all_gather %x on @mesh2d mesh_axes = [1, 1] gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  return
}
