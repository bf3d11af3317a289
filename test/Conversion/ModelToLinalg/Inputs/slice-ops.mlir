// Slicing (with a step, a negative dim) and concatenation: HF's
// rotate_half (halves of the last dim, the second negated, concatenated in
// the other order) scaled by a constant table, and rows picked from the
// middle of a dim, ending in a scalar loss so that tp-differentiate adds
// slice_grad and the concat's slices; runner.test runs it through tp-run
// and upstream MLIR, and test/tp-run/slice-ops.test under a Colwise fc on
// 2 and 4 ranks.
func.func @forward(%x: tensor<2x3x8xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<8x8xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<2x3x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  %a = model.slice %h {dim = 2 : i64, start = 0 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %b = model.slice %h {dim = -1 : i64, start = 4 : i64, step = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x4xf32>
  %nb = model.neg %b : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r = model.concat %nb, %a {dim = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  %e = model.slice %h {dim = 1 : i64, start = 0 : i64, step = 2 : i64} : (tensor<2x3x8xf32>) -> tensor<2x2x8xf32>
  %k = model.constant dense<[1.0, -0.5, 0.25, 2.0, 0.0, 1.5, -1.0, 0.75]> : tensor<8xf32>
  %rk = model.mul %r, %k : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %t = model.tanh %rk : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %m = model.mul %t, %h : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %s = model.slice %m {dim = 1 : i64, start = 1 : i64, step = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x2x8xf32>
  %q = model.mul %s, %e : (tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> tensor<2x2x8xf32>
  %l = model.mean %q : (tensor<2x2x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
