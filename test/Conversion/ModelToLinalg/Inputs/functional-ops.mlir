// Functional ops the example models do not use (matmul, transpose, softmax,
// reduce_max/sum, exp, log, target_logit, detach, mean), ending in a scalar
// loss so that tp-differentiate adds their gradients; runner.test runs it.
func.func @forward(%x: tensor<4x6xf32> {model.name = "x"}, %t: tensor<4xi64> {model.name = "targets"}) -> tensor<f32> {
  %w = model.param "w" : tensor<6x5xf32>
  %h = model.matmul %x, %w : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %ht = model.transpose %h {permutation = array<i64: 1, 0>} : (tensor<4x5xf32>) -> tensor<5x4xf32>
  %s = model.softmax %ht {dim = 0 : i64} : (tensor<5x4xf32>) -> tensor<5x4xf32>
  %mx = model.reduce_max %h {dim = 1 : i64} : (tensor<4x5xf32>) -> tensor<4x1xf32>
  %d = model.detach %mx : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %sh = model.sub %h, %d : (tensor<4x5xf32>, tensor<4x1xf32>) -> tensor<4x5xf32>
  %e = model.exp %sh : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %se = model.reduce_sum %e {dim = 1 : i64} : (tensor<4x5xf32>) -> tensor<4x1xf32>
  %lg = model.log %se : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %tl = model.target_logit %sh, %t : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  %nl = model.sub %lg, %tl : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %l1 = model.mean %nl : (tensor<4x1xf32>) -> tensor<f32>
  %ss = model.mul %s, %s : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
  %l2 = model.mean %ss : (tensor<5x4xf32>) -> tensor<f32>
  %m2 = model.reduce_max %h {dim = 0 : i64} : (tensor<4x5xf32>) -> tensor<1x5xf32>
  %l3 = model.mean %m2 : (tensor<1x5xf32>) -> tensor<f32>
  %a = model.add %l1, %l2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %r = model.add %a, %l3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
