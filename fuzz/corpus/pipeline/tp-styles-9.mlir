module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = ["net1", "net2"], styles = [#tp.colwise<>, #tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  func.func @mlp_2d_mesh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w1 = model.param "net1.weight" : tensor<32x8xf32>
    %h = model.linear "net1"(%x, %w1) : (tensor<4x8xf32>, tensor<32x8xf32>) -> tensor<4x32xf32>
    %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
    %w2 = model.param "net2.weight" : tensor<8x32xf32>
    %y = model.linear "net2"(%r, %w2) : (tensor<4x32xf32>, tensor<8x32xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}
