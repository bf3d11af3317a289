func.func @embedding_result(%ids: tensor<2x8xi64>, %w: tensor<64x16xf32>) {
  %e = model.embedding "tok_embeddings"(%ids, %w) : (tensor<2x8xi64>, tensor<64x16xf32>) -> tensor<2x8x64xf32>
  return
}
