func.func private @shard_dim_too_big(!tp.dtensor<8x16xf32, @mesh, [#tp.shard<2>]>)
