module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["block", "block.w1", "block.w2"], styles = [#tp.prepare_module_output<output_layouts = [#tp.shard<1>, #tp.replicate, unit], desired_output_layouts = [#tp.replicate, #tp.shard<0>, unit]>, #tp.colwise<>, #tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmo_several(%x: tensor<8x16xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
    %y:3 = model.module "block"(%x) : (tensor<8x16xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "block.w1.weight" : tensor<32x16xf32>
      %h = model.linear "block.w1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
      %w2 = model.param "block.w2.weight" : tensor<16x32xf32>
      %o = model.linear "block.w2"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
      model.yield %h, %o, %a : tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    }
    return %y#0, %y#1, %y#2 : tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
}
