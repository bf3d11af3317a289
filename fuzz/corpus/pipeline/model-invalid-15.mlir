func.func @softmax_dim(%x: tensor<4x8xf32>) {
  %y = model.softmax %x {dim = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
