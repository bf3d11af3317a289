func.func @module_input_count(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  %r = model.module "layers.0"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    model.yield %a : tensor<4x8xf32>
  }
  return
}
