module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @too_many_output_layouts(%x: tensor<4x8xf32>) {
    %y = model.module "block"(%x) {tp.style = #tp.prepare_module_output<output_layouts = [#tp.replicate, #tp.replicate], desired_output_layouts = [#tp.shard<0>, #tp.shard<0>]>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return
  }
}
