tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

func.func @shard_to_replicate(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> {
  %r = tp.redistribute %x {module = "net1"} : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
}

func.func @shard_last_to_replicate(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
}

func.func @partial_to_replicate(%s: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>, %a: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]>, %mx: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>, %mn: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<min>]>) {
  %0 = tp.redistribute %s : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %1 = tp.redistribute %a : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %2 = tp.redistribute %mx : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %3 = tp.redistribute %mn : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<min>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  return
}

func.func @partial_to_shard(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
}

func.func @shard_to_shard(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
}

func.func @replicate_to_shard(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
}
