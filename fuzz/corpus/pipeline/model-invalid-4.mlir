func.func @embedding_float_ids(%ids: tensor<2x8xf32>, %w: tensor<64x16xf32>) {
  %e = model.embedding "tok_embeddings"(%ids, %w) : (tensor<2x8xf32>, tensor<64x16xf32>) -> tensor<2x8x16xf32>
  return
}
