func.func @attention_value(%q: tensor<2x8x4x8xf32>, %k: tensor<2x8x4x8xf32>, %v: tensor<2x8x2x8xf32>) {
  %y = model.attention %q, %k, %v : (tensor<2x8x4x8xf32>, tensor<2x8x4x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  return
}
