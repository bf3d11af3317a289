module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_layer_norm(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %g = model.param "norm.weight" : tensor<16xf32>
    %b = model.param "norm.bias" : tensor<16xf32>
    %y = model.layer_norm "norm"(%x, %g, %b) : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    return %y : tensor<2x8x16xf32>
  }
}
