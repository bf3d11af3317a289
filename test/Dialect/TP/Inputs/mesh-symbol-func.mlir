// A model whose @mesh symbol is a function, not a tp.mesh.
func.func private @mesh(tensor<4xf32>) -> tensor<4xf32>
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
