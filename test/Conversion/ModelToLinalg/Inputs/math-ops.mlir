// The pointwise math ops (tanh, sigmoid, sqrt, rsqrt, erf, reciprocal, pow,
// div with broadcasting, casts through f16) ending in a scalar loss, so that tp-differentiate
// adds their gradients; runner.test runs it through tp-run and upstream
// MLIR. Under a Colwise fc (math-ops.test) every op runs on a shard of
// the features.
func.func @forward(%x: tensor<4x6xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<8x6xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<4x6xf32>, tensor<8x6xf32>) -> tensor<4x8xf32>
  %b = model.param "b" : tensor<8xf32>
  %h16 = model.cast %h : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %hh = model.cast %h16 : (tensor<4x8xf16>) -> tensor<4x8xf32>
  %t = model.tanh %hh : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = model.sigmoid %h : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = model.sqrt %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = model.rsqrt %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = model.erf %t : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %sb = model.sigmoid %b : (tensor<8xf32>) -> tensor<8xf32>
  %ib = model.reciprocal %sb : (tensor<8xf32>) -> tensor<8xf32>
  %p3 = model.pow %t {exponent = 3.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %ph = model.pow %s {exponent = 0.5 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = model.div %e, %sb : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %a1 = model.add %q, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a2 = model.mul %a1, %ib : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %a3 = model.add %a2, %p3 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a4 = model.add %a3, %ph : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a5 = model.add %a4, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %a6 = model.mul %a5, %a5 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = model.mean %a6 : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
