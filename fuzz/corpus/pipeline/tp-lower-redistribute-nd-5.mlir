tp.mesh @mesh4(shape = 4) {axis_names = ["tp"]}
func.func @shard_to_partial_1d(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<min>]>
  return
}
