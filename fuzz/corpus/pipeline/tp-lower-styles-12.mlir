module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @root_too_many_layouts(%x: tensor<4x8xf32>) attributes {tp.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, #tp.shard<0>], desired_input_layouts = [#tp.replicate, #tp.replicate]>} {
    return
  }
}
