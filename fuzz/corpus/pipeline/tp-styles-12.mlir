module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_dropout(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %y = model.dropout "drop"(%x) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    return %y : tensor<2x8x16xf32>
  }
}
