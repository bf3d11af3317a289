tp.mesh @mesh(shape = 4)
func.func @to_local_rank(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) {
  %l = tp.to_local %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> tensor<32xf32>
  return
}
