func.func @arange_float() {
  %p = model.arange : tensor<8xf32>
  return
}
