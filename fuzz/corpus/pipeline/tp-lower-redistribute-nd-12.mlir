tp.mesh @mesh2x2x2(shape = 2x2x2) {axis_names = ["dp", "pp", "tp"]}
func.func @uneven_nested_gather_2x2x2(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}
