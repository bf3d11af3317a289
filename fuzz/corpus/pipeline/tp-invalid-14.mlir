func.func @collective_negative_axis(%x: tensor<8xf32>) {
  %r = tp.all_reduce %x on @mesh mesh_axes = [-1] reduction = sum : tensor<8xf32>
  return
}
