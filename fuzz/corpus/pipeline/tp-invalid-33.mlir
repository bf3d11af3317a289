tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @to_local_shape(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>) {
  %l = tp.to_local %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> tensor<4x16xf32>
  return
}
