module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "block"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input<input_layouts = [unit, #tp.shard<0>], desired_input_layouts = [unit, #tp.replicate]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmi_none_first(%x: tensor<8x16xf32>, %m: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "block"(%m, %d) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>):
      %s = model.mul %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}
