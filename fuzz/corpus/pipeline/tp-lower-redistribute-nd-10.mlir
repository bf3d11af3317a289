tp.mesh @mesh2x2x2(shape = 2x2x2) {axis_names = ["dp", "pp", "tp"]}
func.func @partial_sum_to_max_2x2x2(%x: tensor<8x16xf32>) {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<max>, #tp.partial<sum>]>
  return
}
