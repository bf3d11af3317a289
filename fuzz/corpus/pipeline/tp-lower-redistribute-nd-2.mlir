tp.mesh @mesh2x1x2(shape = 2x1x2) {axis_names = ["dp", "pp", "tp"]}

func.func @m2x1x2_8x16_r_p_r_to_r_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

func.func @m2x1x2_8x16_r_s0_r_to_r_r_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
}

func.func @m2x1x2_8x16_s0_s0_r_to_s0_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

func.func @m2x1x2_10x6_s0_p_s0_to_s0_r_r(%x: tensor<?x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<?x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
}

func.func @m2x1x2_10x6_r_r_r_to_s1_s1_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<1>, #tp.shard<1>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<1>, #tp.shard<1>, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<1>, #tp.shard<1>, #tp.shard<1>]>
}
