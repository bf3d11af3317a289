module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "net1"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.colwise<input_layouts = #tp.shard<0>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_input_shard0(%x: tensor<8x8xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%d, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
