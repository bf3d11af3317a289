tp.mesh @mesh(shape = 4)
func.func @redistribute_shape(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<16x8xf32, @mesh, [#tp.replicate]>
  return
}
