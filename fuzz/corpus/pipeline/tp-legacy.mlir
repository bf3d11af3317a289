func.func @forward(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %a = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b = model.linear "net2"(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %c = model.module "mlp"(%b) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%i: tensor<4x8xf32>):
    model.yield %i : tensor<4x8xf32>
  }
  %d = model.module "block"(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%i: tensor<4x8xf32>):
    model.yield %i : tensor<4x8xf32>
  }
  %n = model.layer_norm "norm"(%d, %g, %g) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}
