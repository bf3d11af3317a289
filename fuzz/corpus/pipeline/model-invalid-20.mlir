func.func @transpose_result(%x: tensor<2x4x8xf32>) {
  %y = model.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}
