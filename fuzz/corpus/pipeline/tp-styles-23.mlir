module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["sp*"], styles = [#tp.pairwise_sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pairwise_sequence_parallel(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %y0 = model.module "sp0"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "sp0.net1.weight" : tensor<32x16xf32>
      %h = model.linear "sp0.net1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
      %w2 = model.param "sp0.net2.weight" : tensor<16x32xf32>
      %o = model.linear "sp0.net2"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
      model.yield %o : tensor<8x16xf32>
    }
    %y1 = model.module "sp1"(%y0) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "sp1.net1.weight" : tensor<32x16xf32>
      %h = model.linear "sp1.net1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
      %w2 = model.param "sp1.net2.weight" : tensor<16x32xf32>
      %o = model.linear "sp1.net2"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
      model.yield %o : tensor<8x16xf32>
    }
    return %y1 : tensor<8x16xf32>
  }
}
