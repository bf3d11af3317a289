// A cross entropy over a shard of rows with ignored targets (-100), as
// tp-partition leaves it on one rank of two: the divisor is the rows not
// ignored on both (here this rank's count doubled), the loss's operand
// `valid`; tp-differentiate passes it to the gradient. runner.test runs it
// through tp-run and upstream MLIR.
func.func @forward(%x: tensor<4x6xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<5x6xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<4x6xf32>, tensor<5x6xf32>) -> tensor<4x5xf32>
  %t = model.constant dense<[2, -100, 0, 4]> : tensor<4xi64>
  %own = model.valid_rows %t : (tensor<4xi64>) -> tensor<f32>
  %n = model.add %own, %own : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %l = model.cross_entropy %h, %t, %n : (tensor<4x5xf32>, tensor<4xi64>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
