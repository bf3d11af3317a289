func.func @no_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = model.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
