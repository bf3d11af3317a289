tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @uneven_chunk(%x: !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
}

func.func @uneven_gather(%x: !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]>
}

func.func @uneven_shard_to_shard(%x: !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<1>]> {
  %r = tp.redistribute %x : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<1>]>
}
