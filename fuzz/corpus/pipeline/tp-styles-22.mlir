module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["mlp"], styles = [#tp.pairwise_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pairwise(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %y = model.module "mlp"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "mlp.net1.weight" : tensor<32x16xf32>
      %b1 = model.param "mlp.net1.bias" : tensor<32xf32>
      %h = model.linear "mlp.net1"(%a, %w1, %b1) : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
      %r = model.relu %h : (tensor<8x32xf32>) -> tensor<8x32xf32>
      %w2 = model.param "mlp.net2.weight" : tensor<16x32xf32>
      %b2 = model.param "mlp.net2.bias" : tensor<16xf32>
      %o = model.linear "mlp.net2"(%r, %w2, %b2) : (tensor<8x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<8x16xf32>
      model.yield %o : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}
