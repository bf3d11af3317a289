module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @too_many_input_layouts(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, #tp.shard<0>], desired_input_layouts = [#tp.replicate, #tp.replicate]>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return
  }
}
