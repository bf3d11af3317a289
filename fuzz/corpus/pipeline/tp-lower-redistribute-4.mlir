tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @uneven_nested_gather(%x: !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
}
