func.func @module_input_type(%x: tensor<4x8xf32>) {
  %r = model.module "layers.0"(%x) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    model.yield %a : tensor<8x4xf32>
  }
  return
}
