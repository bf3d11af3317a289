module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @pairwise_one_linear(%x: tensor<4x8xf32>) {
    %y = model.module "mlp"(%x) {tp.style = #tp.pairwise_parallel<>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %w = model.param "mlp.net1.weight" : tensor<8x8xf32>
      %h = model.linear "mlp.net1"(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      model.yield %h : tensor<4x8xf32>
    }
    return
  }
}
