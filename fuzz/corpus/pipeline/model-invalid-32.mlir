func.func @module_arg_names(%x: tensor<4x8xf32>) {
  %r = model.module "layers.0"(%x) {arg_names = ["x", "mask"]} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    model.yield %a : tensor<4x8xf32>
  }
  return
}
