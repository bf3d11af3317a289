module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  func.func @no_tp_axis(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return
  }
}
