tp.mesh @mesh4(shape = 4) {axis_names = ["tp"]}

func.func @m4_8x16_s0_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_8x16_s1_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_8x16_sm1_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<-1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<-1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_8x16_p_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_8x16_pavg_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_8x16_pmax_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_8x16_pmin_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<min>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_8x16_p_to_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
}

func.func @m4_8x16_pavg_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
}

func.func @m4_8x16_s0_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
}

func.func @m4_8x16_s1_to_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
}

func.func @m4_8x16_r_to_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
}

func.func @m4_8x16_r_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
}

func.func @m4_10x6_s0_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_10x6_s1_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_10x6_p_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_10x6_pavg_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_10x6_pmax_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<max>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_10x6_pmin_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<min>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

func.func @m4_10x6_p_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
}

func.func @m4_10x6_pavg_to_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
}

func.func @m4_10x6_s0_to_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
}

func.func @m4_10x6_s1_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
}

func.func @m4_10x6_r_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
}

func.func @m4_10x6_r_to_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
}
