func.func @linear_result(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}
