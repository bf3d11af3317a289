tp.mesh @mesh(shape = 4)
func.func @from_local_shape(%x: tensor<8x16xf32>) {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
  return
}
