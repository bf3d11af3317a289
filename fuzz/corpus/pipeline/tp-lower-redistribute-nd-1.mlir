tp.mesh @mesh1(shape = 1) {axis_names = ["tp"]}

func.func @m1_8x16_s0_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
}

func.func @m1_8x16_p_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
}

func.func @m1_8x16_pmax_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
}

func.func @m1_8x16_s0_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
}

func.func @m1_10x6_r_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh1, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh1, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh1, [#tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh1, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh1, [#tp.shard<0>]>
}
