func.func @transpose_repeated(%x: tensor<2x4x8xf32>) {
  %y = model.transpose %x {permutation = array<i64: 0, 0, 2>} : (tensor<2x4x8xf32>) -> tensor<2x2x8xf32>
  return
}
