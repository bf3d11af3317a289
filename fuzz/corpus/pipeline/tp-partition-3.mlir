tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @dtensor_argument(%x: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> {
  return %x : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
}
