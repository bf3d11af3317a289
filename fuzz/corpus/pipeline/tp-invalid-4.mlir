tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @placements_vs_mesh_rank(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>]>
  return
}
