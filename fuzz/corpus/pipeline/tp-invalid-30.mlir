tp.mesh @mesh(shape = 4)
tp.mesh @other(shape = 4)
func.func @redistribute_mesh(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @other, [#tp.replicate]>
  return
}
