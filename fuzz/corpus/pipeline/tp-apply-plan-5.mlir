module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @colwise_on_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
    %n = model.rms_norm "norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return
  }
}
