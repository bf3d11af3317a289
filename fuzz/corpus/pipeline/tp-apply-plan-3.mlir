module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["mlp", "block"], styles = [#tp.pairwise_parallel<>, #tp.pairwise_sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @deprecated_pairwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "mlp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    %z = model.module "block"(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return %z : tensor<4x8xf32>
  }
}
