tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}

func.func @mesh_2x2(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.partial<sum>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]>
}

func.func @mesh_2x2_one_axis(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
}

func.func @add_outer_split(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
}

func.func @drop_outer_split(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
}

func.func @add_inner_split(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
}
