tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @distribute_partial(%x: tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  return %d : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
}
