module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<output_layouts = #tp.replicate>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_output_replicate(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %b = model.param "net1.bias" : tensor<16xf32>
    %y = model.linear "net1"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}
