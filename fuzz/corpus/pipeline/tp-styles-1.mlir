module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["tok_embeddings"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_embedding(%ids: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
    %w = model.param "tok_embeddings.weight" : tensor<32x8xf32>
    %y = model.embedding "tok_embeddings"(%ids, %w) : (tensor<2x4xi64>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }
}
