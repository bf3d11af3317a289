func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<16x8x1xf32>) {
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8x1xf32>) -> tensor<4x16xf32>
  return
}
