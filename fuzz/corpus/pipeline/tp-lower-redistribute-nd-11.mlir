tp.mesh @mesh2x1x2(shape = 2x1x2) {axis_names = ["dp", "pp", "tp"]}
func.func @shard_to_partial_size_one(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.partial<sum>, #tp.replicate]>
  return
}
