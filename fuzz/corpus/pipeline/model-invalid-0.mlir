func.func @linear_in_features(%x: tensor<4x8xf32>, %w: tensor<16x12xf32>) {
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x12xf32>) -> tensor<4x16xf32>
  return
}
