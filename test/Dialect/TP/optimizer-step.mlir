// RUN: tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="optimizer=adamw lr=0.001" -verify-diagnostics | FileCheck %s
// RUN: tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="lr=0.5 momentum=0.9" -verify-diagnostics | FileCheck %s --check-prefix=SGD

// tp-optimizer-step: every parameter's gradient feeds its update; the step
// returns the updated parameters after the gradients (tp.updated). A tied
// parameter is one value and one update.

// CHECK-LABEL: func.func @step
// CHECK-SAME: -> (tensor<f32>, tensor<4x4xf32> {tp.grad_of = "w"}, tensor<4xf32> {tp.grad_of = "b"}, tensor<4x4xf32> {tp.updated = "w"}, tensor<4xf32> {tp.updated = "b"})
// CHECK: %[[W:.*]] = model.param "w"
// CHECK: %[[B:.*]] = model.param "b"
// CHECK: model.linear "second"(%{{.*}}, %[[W]])
// CHECK: %[[GW:.*]] = model.add
// CHECK: %[[UW:.*]] = model.adamw_update "w"(%[[W]], %[[GW]]) {lr = 1.000000e-03 : f64, tp.phase = #tp.phase<optimizer>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[UB:.*]] = model.adamw_update "b"(%[[B]], %{{.*}}) {lr = 1.000000e-03 : f64, tp.phase = #tp.phase<optimizer>}
// CHECK: return %{{.*}}, %[[GW]], %{{.*}}, %[[UW]], %[[UB]]
// SGD: model.sgd_update "w"(%{{.*}}, %{{.*}}) {lr = 5.000000e-01 : f64, momentum = 9.000000e-01 : f64, tp.phase = #tp.phase<optimizer>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @step(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = model.param "w" : tensor<4x4xf32>
  %b = model.param "b" : tensor<4xf32>
  %h = model.linear "first"(%x, %w, %b) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %w2 = model.param "w" : tensor<4x4xf32>
  %y = model.linear "second"(%h, %w2) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %l = model.mean %y : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

