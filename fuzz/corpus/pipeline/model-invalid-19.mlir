func.func @transpose_length(%x: tensor<2x4x8xf32>) {
  %y = model.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x4x8xf32>) -> tensor<4x2x8xf32>
  return
}
