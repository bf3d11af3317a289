module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "attention"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input<input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmi_kwargs(%x: tensor<8x16xf32>, %m: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%m) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "attention"(%x, %d) {arg_names = ["x", "mask"]} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>):
      %s = model.add %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}
