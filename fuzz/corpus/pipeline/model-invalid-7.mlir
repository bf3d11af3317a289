func.func @layer_norm_bias(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8x1xf32>) {
  %y = model.layer_norm "norm"(%x, %w, %b) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8x1xf32>) -> tensor<4x8xf32>
  return
}
