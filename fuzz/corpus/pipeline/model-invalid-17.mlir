func.func @reshape_count(%x: tensor<4x8xf32>) {
  %y = model.reshape %x : (tensor<4x8xf32>) -> tensor<4x2x3xf32>
  return
}
