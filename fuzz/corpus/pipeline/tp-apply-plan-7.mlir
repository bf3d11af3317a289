module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @sequence_parallel_on_linear(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}
