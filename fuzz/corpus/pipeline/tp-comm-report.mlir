tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

func.func @forward(%a: tensor<4x8xf32>, %b: tensor<2x16xf32>, %c: tensor<8x16xf32>, %d: tensor<8xbf16>) {
  %0 = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum {module = "layers.0.attention.wo"} : tensor<4x8xf32>
  %1 = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum {module = "layers.0.feed_forward.w2"} : tensor<4x8xf32>
  %2 = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = max {module = "layers.0.feed_forward.w2"} : tensor<4x8xf32>
  %3 = tp.all_gather %b on @mesh mesh_axes = [0] gather_axis = 0 {module = "norm"} : tensor<2x16xf32> -> tensor<8x16xf32>
  %4 = tp.reduce_scatter %c on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 {module = "norm"} : tensor<8x16xf32> -> tensor<2x16xf32>
  %5 = tp.all_to_all %b on @mesh mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
  %6 = tp.broadcast %d on @mesh mesh_axes = [0] root = 0 : tensor<8xbf16>
  %7 = tp.chunk %c on @mesh mesh_axes = [0] axis = 0 {module = "norm"} : tensor<8x16xf32> -> tensor<2x16xf32>
  return
}
