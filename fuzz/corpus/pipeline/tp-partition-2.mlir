tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @leftover_redistribute(%x: tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
}
