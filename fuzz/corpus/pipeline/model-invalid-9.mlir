func.func @dropout_p(%x: tensor<4x8xf32>) {
  %y = model.dropout "drop"(%x) {p = 1.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
