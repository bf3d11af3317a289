// A model that already holds a 2x2 mesh with axes named dp, tp.
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
