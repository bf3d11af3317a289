tp.mesh @mesh(shape = 1x2) {axis_names = ["dp", "tp"]}
func.func @size_one_axis(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
