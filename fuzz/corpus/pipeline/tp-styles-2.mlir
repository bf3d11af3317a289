module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<input_layouts = #tp.shard<0>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_input_shard0_arg(%x: tensor<8x8xf32>) -> tensor<8x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
