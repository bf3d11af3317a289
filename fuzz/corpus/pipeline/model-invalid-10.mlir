func.func @unary_shape(%x: tensor<4x8xf32>) {
  %y = model.gelu %x : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}
