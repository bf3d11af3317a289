module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net2"], styles = [#tp.rowwise<output_layouts = #tp.shard<0>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @rowwise_output_shard0(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %b = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%x, %w, %b) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x8xf32>
    return %y : tensor<8x8xf32>
  }
}
