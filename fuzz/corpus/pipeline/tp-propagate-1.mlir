tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @heads_do_not_divide(%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x2x4xf32> {
  %dw = tp.distribute %w : tensor<8x8xf32> -> !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>
  %q = model.linear "wq"(%x, %dw) : (tensor<2x4x8xf32>, !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>) -> tensor<2x4x8xf32>
  %qh = model.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  return %qh : tensor<2x4x2x4xf32>
}
