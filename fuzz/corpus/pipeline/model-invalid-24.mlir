func.func @attention_head_dim(%q: tensor<2x8x4x8xf32>, %kv: tensor<2x8x4x16xf32>) {
  %y = model.attention %q, %kv, %kv : (tensor<2x8x4x8xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>) -> tensor<2x8x4x8xf32>
  return
}
