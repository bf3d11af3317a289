module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "block"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmi_positional(%x: tensor<8x16xf32>, %m: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "block"(%d, %m) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>):
      %s = model.mul %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}
