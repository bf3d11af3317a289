func.func @mul_result(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>) {
  %z = model.mul %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return
}
