// Top-2 routing over 4 experts: the router's probabilities, the positions
// of the two largest (model.topk), their values (model.gather) normalized,
// and a one-hot mask (model.one_hot) spreading them to a per-expert weight
// that scales each expert's output; a scalar loss, so that
// tp-differentiate adds gather_grad (the indices and the mask get no
// gradient). runner.test runs it through tp-run and upstream MLIR, and
// test/tp-run/routing-ops.test under plans on 2 and 4 ranks.
func.func @forward(%x: tensor<6x8xf32> {model.name = "x"}) -> tensor<f32> {
  %wg = model.param "gate.weight" : tensor<4x8xf32>
  %r = model.linear "gate"(%x, %wg) : (tensor<6x8xf32>, tensor<4x8xf32>) -> tensor<6x4xf32>
  %p = model.softmax %r {dim = 1 : i64} : (tensor<6x4xf32>) -> tensor<6x4xf32>
  %i = model.topk %p {dim = -1 : i64} : (tensor<6x4xf32>) -> tensor<6x2xi64>
  %v = model.gather %p, %i {dim = 1 : i64} : (tensor<6x4xf32>, tensor<6x2xi64>) -> tensor<6x2xf32>
  %s = model.reduce_sum %v {dim = 1 : i64} : (tensor<6x2xf32>) -> tensor<6x1xf32>
  %vn = model.div %v, %s : (tensor<6x2xf32>, tensor<6x1xf32>) -> tensor<6x2xf32>
  %oh = model.one_hot %i : (tensor<6x2xi64>) -> tensor<6x2x4xi64>
  %m = model.cast %oh : (tensor<6x2x4xi64>) -> tensor<6x2x4xf32>
  %vr = model.reshape %vn : (tensor<6x2xf32>) -> tensor<6x2x1xf32>
  %wm = model.mul %m, %vr : (tensor<6x2x4xf32>, tensor<6x2x1xf32>) -> tensor<6x2x4xf32>
  %ws = model.reduce_sum %wm {dim = 1 : i64} : (tensor<6x2x4xf32>) -> tensor<6x1x4xf32>
  %w = model.reshape %ws : (tensor<6x1x4xf32>) -> tensor<6x4xf32>
  %we = model.param "experts.weight" : tensor<4x8xf32>
  %e = model.linear "experts"(%x, %we) : (tensor<6x8xf32>, tensor<4x8xf32>) -> tensor<6x4xf32>
  %t = model.tanh %e : (tensor<6x4xf32>) -> tensor<6x4xf32>
  %o = model.mul %t, %w : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  %l = model.mean %o : (tensor<6x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
