func.func @rotary_odd_head_dim(%x: tensor<2x8x4x5xf32>) {
  %y = model.rotary %x : (tensor<2x8x4x5xf32>) -> tensor<2x8x4x5xf32>
  return
}
