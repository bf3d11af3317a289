func.func @param_name() {
  %w = model.param "" : tensor<8xf32>
  return
}
