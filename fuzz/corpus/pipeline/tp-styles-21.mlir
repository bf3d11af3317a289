module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1", ""], styles = [#tp.colwise<>, #tp.prepare_module_output<output_layouts = [#tp.shard<1>, unit], desired_output_layouts = [#tp.replicate, unit]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @root_output(%x: tensor<8x8xf32>) -> (tensor<8x16xf32>, tensor<8x8xf32>) {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    return %y, %x : tensor<8x16xf32>, tensor<8x8xf32>
  }
}
