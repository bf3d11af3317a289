module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["", "net1"], styles = [#tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit]>, #tp.colwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @root_input(%x: tensor<8x8xf32>, %z: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    %r = model.add %y, %z : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    return %r : tensor<8x16xf32>
  }
}
