module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net2"], styles = [#tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @rowwise_no_bias(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %y = model.linear "net2"(%x, %w) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}
