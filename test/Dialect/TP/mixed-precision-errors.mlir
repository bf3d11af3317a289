// RUN: tp-opt %s -split-input-file -tp-mixed-precision -verify-diagnostics

// tp-mixed-precision refuses what it cannot keep f32 masters of.

// A model built in bf16 has no f32 master to keep.
func.func @bf16_model(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  // expected-error @above {{tp-mixed-precision: @bf16_model has no f32 parameter to keep as the master copy (its parameters are 'bf16'); build the model in f32 to train it in 'bf16' with f32 masters}}
  %w = model.param "w" : tensor<4x4xbf16>
  %y = model.linear "l"(%x, %w) : (tensor<2x4xbf16>, tensor<4x4xbf16>) -> tensor<2x4xbf16>
  return %y : tensor<2x4xbf16>
}

// -----

// After tp-differentiate, the backward would keep computing in f32.
func.func @step(%x: tensor<2x4xf32>) -> (tensor<f32>, tensor<4x4xf32> {tp.grad_of = "w"}) {
  // expected-error @above {{tp-mixed-precision: @step is already a training step (tp.grad_of on result 1); run tp-mixed-precision before tp-differentiate}}
  %w = model.param "w" : tensor<4x4xf32>
  %y = model.linear "l"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %l = model.mean %y : (tensor<2x4xf32>) -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4x4xf32>
}
