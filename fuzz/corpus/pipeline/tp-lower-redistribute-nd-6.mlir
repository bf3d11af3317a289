tp.mesh @mesh4(shape = 4) {axis_names = ["tp"]}
func.func @partial_avg_to_sum_1d(%x: tensor<8x16xf32>) {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]>
  return
}
