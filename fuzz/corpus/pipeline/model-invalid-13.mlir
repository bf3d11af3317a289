func.func @matmul_contracting(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  %c = model.matmul %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
