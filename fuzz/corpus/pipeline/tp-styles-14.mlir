module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm", "w1", "w2"], styles = [#tp.sequence_parallel<>, #tp.colwise<input_layouts = #tp.shard<1>>, #tp.rowwise<output_layouts = #tp.shard<1>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_block(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %g = model.param "norm.weight" : tensor<16xf32>
    %n = model.rms_norm "norm"(%x, %g) : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    %w1 = model.param "w1.weight" : tensor<32x16xf32>
    %h = model.linear "w1"(%n, %w1) : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<2x8x32xf32>
    %a = model.silu %h : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %w2 = model.param "w2.weight" : tensor<16x32xf32>
    %y = model.linear "w2"(%a, %w2) : (tensor<2x8x32xf32>, tensor<16x32xf32>) -> tensor<2x8x16xf32>
    %r = model.add %x, %y : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    return %r : tensor<2x8x16xf32>
  }
}
