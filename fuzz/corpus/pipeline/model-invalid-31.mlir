func.func @module_yield_types(%x: tensor<4x8xf32>) {
  %r = model.module "layers.0"(%x) : (tensor<4x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    model.yield %a : tensor<4x8xf32>
  }
  return
}
