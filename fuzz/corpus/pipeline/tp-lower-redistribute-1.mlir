tp.mesh @mesh(shape = 1x4) {axis_names = ["dp", "tp"]}
func.func @size_one_axis(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]>
}
