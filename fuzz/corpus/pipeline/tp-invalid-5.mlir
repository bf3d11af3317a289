tp.mesh @mesh(shape = 4)
func.func @too_many_placements(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]>) {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]>
  return
}
