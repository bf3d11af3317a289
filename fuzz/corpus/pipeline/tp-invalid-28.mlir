tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @partial_on_second_axis(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<1>]>) {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.partial<avg>]>
  return
}
