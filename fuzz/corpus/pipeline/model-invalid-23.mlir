func.func @attention_heads(%q: tensor<2x8x4x8xf32>, %kv: tensor<2x8x3x8xf32>) {
  %y = model.attention %q, %kv, %kv : (tensor<2x8x4x8xf32>, tensor<2x8x3x8xf32>, tensor<2x8x3x8xf32>) -> tensor<2x8x4x8xf32>
  return
}
