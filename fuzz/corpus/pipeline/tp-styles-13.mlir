module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm"], styles = [#tp.sequence_parallel<sequence_dim = 0>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_dim0(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %g = model.param "norm.weight" : tensor<16xf32>
    %y = model.rms_norm "norm"(%x, %g) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}
