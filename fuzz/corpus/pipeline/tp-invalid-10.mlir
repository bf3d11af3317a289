func.func @unknown_mesh(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @nope, [#tp.shard<0>]>
  return
}
