func.func @cross_entropy_targets(%l: tensor<16x32xf32>, %t: tensor<8xi64>) {
  %loss = model.cross_entropy %l, %t : (tensor<16x32xf32>, tensor<8xi64>) -> tensor<f32>
  return
}
