func.func @rms_norm_weight(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) {
  %y = model.rms_norm "norm"(%x, %w) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
