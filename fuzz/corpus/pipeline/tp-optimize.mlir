tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

func.func @inverse_pair(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {
  %a = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %b : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
}

func.func @compose_partial(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> {
  %a = tp.redistribute %x {module = "first"} : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a {module = "second"} : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  return %b : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
}

func.func @compose_keeps_module(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> {
  %a = tp.redistribute %x {module = "first"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  return %b : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
}

func.func @long_chain(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> {
  %a = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %c = tp.redistribute %b : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %c : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

func.func @merge_siblings(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>) -> (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) {
  %r1 = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %a = model.relu %r1 : (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %r2 = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = model.gelu %r2 : (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %a, %b : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

func.func @other_users(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>) -> (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) {
  %r = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %a = model.relu %r : (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %s = tp.redistribute %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  return %a, %s : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
}

func.func @illegal_composition(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> {
  %r = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %p = tp.redistribute %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
  return %p : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
}

func.func @identity(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {
  %a = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  return %a : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
}

func.func @distribute_then_redistribute(%x: tensor<4x16xf32>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> {
  %d = tp.distribute %x {module = "block"} : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  %r = tp.redistribute %d {module = "block"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

func.func @distribute_then_partial(%x: tensor<4x16xf32>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
}

func.func @distribute_with_other_users(%x: tensor<4x16xf32>) -> (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %d, %r : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}
