module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "block"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input_output<input_layouts = [#tp.shard<0>], desired_input_layouts = [#tp.replicate], output_layouts = [#tp.replicate], desired_output_layouts = [#tp.shard<0>]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmio(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "block"(%d) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %s = model.softmax %a {dim = 1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}
