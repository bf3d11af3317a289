tp.mesh @mesh2x2(shape = 2x2) {axis_names = ["dp", "tp"]}

func.func @m2x2_8x16_s0_r_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_r_s1_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_s0_s1_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_s1_s0_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_s0_s0_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_s1_s1_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_r_r_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_8x16_r_r_to_s0_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

func.func @m2x2_8x16_p_p_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_pavg_r_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_r_pmax_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_pmin_pmin_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_8x16_r_p_to_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

func.func @m2x2_8x16_p_r_to_s1_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

func.func @m2x2_8x16_p_s1_to_r_s1(%x: tensor<8x8xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<8x8xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_8x16_s0_p_to_r_s1(%x: tensor<4x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_8x16_s0_p_to_s0_s1(%x: tensor<4x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

func.func @m2x2_8x16_p_p_to_s1_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

func.func @m2x2_8x16_s0_r_to_s1_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

func.func @m2x2_8x16_r_s0_to_r_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_8x16_s0_s1_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_8x16_s0_s0_to_s0_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
}

func.func @m2x2_8x16_s0_r_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_8x16_r_s0_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_8x16_s0_s0_to_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

func.func @m2x2_8x16_s1_s1_to_s1_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

func.func @m2x2_10x6_s0_r_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_r_s1_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_s0_s1_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_s1_s0_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_s0_s0_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_s1_s1_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_r_r_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_10x6_r_r_to_s0_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

func.func @m2x2_10x6_p_p_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_pavg_r_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_r_pmax_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_pmin_pmin_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_10x6_r_p_to_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

func.func @m2x2_10x6_p_r_to_s1_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

func.func @m2x2_10x6_p_s1_to_r_s1(%x: tensor<10x3xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<10x3xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_10x6_s0_p_to_r_s1(%x: tensor<5x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<5x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_10x6_s0_p_to_s0_s1(%x: tensor<5x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<5x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

func.func @m2x2_10x6_p_p_to_s1_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

func.func @m2x2_10x6_s0_r_to_s1_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

func.func @m2x2_10x6_r_s0_to_r_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_10x6_s0_s1_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_10x6_s0_s0_to_s0_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
}

func.func @m2x2_10x6_s0_r_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_10x6_r_s0_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_10x6_s0_s0_to_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

func.func @m2x2_10x6_s1_s1_to_s1_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

func.func @m2x2_6x6_s0_r_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_r_s1_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_s0_s1_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_s1_s0_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_s0_s0_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_s1_s1_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_r_r_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_6x6_r_r_to_s0_s1(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

func.func @m2x2_6x6_p_p_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_pavg_r_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_r_pmax_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_pmin_pmin_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

func.func @m2x2_6x6_r_p_to_r_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

func.func @m2x2_6x6_p_r_to_s1_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

func.func @m2x2_6x6_p_s1_to_r_s1(%x: tensor<6x3xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<6x3xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_6x6_s0_p_to_r_s1(%x: tensor<3x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<3x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_6x6_s0_p_to_s0_s1(%x: tensor<3x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<3x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

func.func @m2x2_6x6_p_p_to_s1_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

func.func @m2x2_6x6_s0_r_to_s1_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

func.func @m2x2_6x6_r_s0_to_r_s1(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

func.func @m2x2_6x6_s0_s1_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_6x6_s0_s0_to_s0_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
}

func.func @m2x2_6x6_s0_r_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_6x6_r_s0_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @m2x2_6x6_s0_s0_to_r_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

func.func @m2x2_6x6_s1_s1_to_s1_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}
