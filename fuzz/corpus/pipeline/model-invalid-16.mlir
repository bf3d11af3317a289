func.func @softmax_negative_dim(%x: tensor<4x8xf32>) {
  %y = model.softmax %x {dim = -3 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
