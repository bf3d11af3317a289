func.func @yield_outside_module(%x: tensor<4x8xf32>) {
  model.yield %x : tensor<4x8xf32>
}
