module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @unsupported_module_type(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) {
    %y = model.rms_norm "norm"(%x, %g) {tp.style = #tp.rowwise<>} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    return
  }
}
