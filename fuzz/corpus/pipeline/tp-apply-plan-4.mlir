module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*.attention.w[qkvo]", "*.*.attention.wo"], styles = [#tp.colwise<>, #tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @conflicting_styles(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    %q = model.linear "layers.0.attention.wq"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %o = model.linear "layers.0.attention.wo"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}
