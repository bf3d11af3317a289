module {
  tp.mesh @mesh(shape = 4)
  func.func @no_plan(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return
  }
}
