tp.mesh @mesh2x2x2(shape = 2x2x2) {axis_names = ["dp", "pp", "tp"]}
func.func @shard_to_partial_2x2x2(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.partial<avg>]>
  return
}
