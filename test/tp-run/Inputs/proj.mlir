func.func @forward(%x: tensor<4x8xf32> {model.name = "x"}) -> tensor<4x8xf32> {
  %w = model.param "proj.weight" : tensor<8x8xf32>
  %y = model.linear "proj"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
