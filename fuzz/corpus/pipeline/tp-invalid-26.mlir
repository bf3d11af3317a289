tp.mesh @mesh(shape = 4)
func.func @shard_to_partial(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>
  return
}
