// Boolean masks: a comparison of ids with a pad id and of activations
// with a threshold, combined (logical_not/and/or), selecting between two
// branches (where), clamp's decomposition, abs, casts between i1 and
// f32 and an expand; a scalar loss, so that tp-differentiate adds where's and abs's
// gradients (the masks get none). runner.test runs it through tp-run and
// upstream MLIR, and test/tp-run/mask-ops.test under a Colwise fc on 2
// and 4 ranks.
func.func @forward(%x: tensor<2x3x8xf32> {model.name = "x"}, %ids: tensor<2x3xi64> {model.name = "ids"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<8x8xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<2x3x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  %pad = model.constant dense<0> : tensor<i64>
  %keep = model.compare %ids, %pad {predicate = "ne"} : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi1>
  %keep3 = model.reshape %keep : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
  %a = model.abs %h : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %half = model.full 0.5 : tensor<f32>
  %big = model.compare %a, %half {predicate = "gt"} : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xi1>
  %drop = model.logical_not %keep3 : (tensor<2x3x1xi1>) -> tensor<2x3x1xi1>
  %either = model.logical_or %big, %drop : (tensor<2x3x8xi1>, tensor<2x3x1xi1>) -> tensor<2x3x8xi1>
  %both = model.logical_and %either, %keep3 : (tensor<2x3x8xi1>, tensor<2x3x1xi1>) -> tensor<2x3x8xi1>
  %t = model.tanh %h : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %s = model.where %both, %t, %a : (tensor<2x3x8xi1>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %hi = model.full 0.7 : tensor<f32>
  %over = model.compare %s, %hi {predicate = "ge"} : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xi1>
  %c = model.where %over, %hi, %s : (tensor<2x3x8xi1>, tensor<f32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %kf = model.cast %keep3 : (tensor<2x3x1xi1>) -> tensor<2x3x1xf32>
  %nz = model.cast %c : (tensor<2x3x8xf32>) -> tensor<2x3x8xi1>
  %nzf = model.cast %nz : (tensor<2x3x8xi1>) -> tensor<2x3x8xf32>
  %m = model.mul %c, %kf : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %hs = model.reduce_sum %h {dim = 2 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x1xf32>
  %he = model.expand %hs : (tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %m2 = model.mul %m, %he : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %p = model.mul %m2, %h : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %q = model.add %p, %nzf : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %l = model.mean %q : (tensor<2x3x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
