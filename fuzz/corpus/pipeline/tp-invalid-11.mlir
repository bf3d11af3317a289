func.func @mesh_is_not_a_mesh(%x: tensor<8xf32>) {
  %r = tp.all_reduce %x on @mesh_is_not_a_mesh mesh_axes = [0] reduction = sum : tensor<8xf32>
  return
}
