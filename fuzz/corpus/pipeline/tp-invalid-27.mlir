tp.mesh @mesh(shape = 4)
func.func @partial_sum_to_max(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>) {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>
  return
}
