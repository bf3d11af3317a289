tp.mesh @mesh(shape = 2x2x1) {axis_names = ["dp", "tp", "pp"]}
func.func @mesh_3d() -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]> {
  %w = model.param "w" : tensor<8x16xf32>
  %d = tp.distribute %w : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]>
  return %d : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]>
}
