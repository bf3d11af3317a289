tp.mesh @mesh2x2(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @shard_to_partial_2x2(%x: tensor<10x6xf32>) {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  return
}
