module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*", "layers.0.w[1-2]"], styles = [#tp.colwise<>, #tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @star_stays_in_token(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    %a = model.linear "layers.0.w1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %b = model.linear "layers.0.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %c = model.linear "layers.0.w3"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}
