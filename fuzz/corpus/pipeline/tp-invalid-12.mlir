tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @collective_axis_out_of_range(%x: tensor<8xf32>) {
  %r = tp.all_reduce %x on @mesh mesh_axes = [1] reduction = sum : tensor<8xf32>
  return
}
