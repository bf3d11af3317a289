tp.mesh @mesh(shape = 4)
func.func @distribute_shape(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<2x16xf32, @mesh, [#tp.shard<0>]>
  return
}
