func.func @rotary_rank(%x: tensor<8x4x8xf32>) {
  %y = model.rotary %x : (tensor<8x4x8xf32>) -> tensor<8x4x8xf32>
  return
}
