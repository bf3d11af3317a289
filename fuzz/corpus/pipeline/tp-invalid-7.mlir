func.func private @shard_dim_too_negative(!tp.dtensor<8x16xf32, @mesh, [#tp.shard<-3>]>)
