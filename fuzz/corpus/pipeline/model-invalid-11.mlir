func.func @add_broadcast(%x: tensor<4x8xf32>, %y: tensor<4xf32>) {
  %z = model.add %x, %y : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}
