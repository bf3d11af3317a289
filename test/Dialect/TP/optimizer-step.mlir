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


// -----

// max-grad-norm: the gradients, each on its parameter's placement (a
// Partial one would be reduced once, for the sum of squares and the update
// alike), scaled by clip_grad_norm_'s coefficient; the step returns the
// clipped gradients. The sum of squares of a sharded gradient is a partial
// sum: after tp-partition the replicated gradient counts on one rank only.
// RUN: tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="lr=0.5 max-grad-norm=1.5" | FileCheck %s --check-prefix=CLIP
// RUN: tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="lr=0.5 max-grad-norm=1.5" -tp-optimize -tp-lower-redistribute -tp-partition | FileCheck %s --check-prefix=PART
// RUN: not tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="max-grad-norm=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: tp-optimizer-step: max-grad-norm must be a finite number of at least 0, got -1
// The pass's own options are checked as tp-pipeline's and tp-run's are
// (checkOptimizerOptions): an infinite lr, the other optimizer's options.
// RUN: not tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="lr=inf" 2>&1 | FileCheck %s --check-prefix=PASS-LR
// PASS-LR: error: tp-optimizer-step: lr must be a finite number of at least 0, got inf
// RUN: not tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="optimizer=adamw momentum=0.9" 2>&1 | FileCheck %s --check-prefix=PASS-MOMENTUM
// PASS-MOMENTUM: error: tp-optimizer-step: momentum belongs to optimizer=sgd
// RUN: not tp-opt %s -split-input-file -tp-differentiate -tp-optimizer-step="beta1=0.5" 2>&1 | FileCheck %s --check-prefix=PASS-BETA
// PASS-BETA: error: tp-optimizer-step: beta1 belongs to optimizer=adamw
// CLIP-LABEL: func.func @clip
// CLIP: model.linear_grad_weight
// CLIP-NEXT: %[[GW:.*]] = tp.distribute %{{.*}} {tp.phase = #tp.phase<optimizer>} : tensor<4x4xf32> -> !tp.dtensor<4x4xf32, @mesh, [#tp.shard<0>]>
// CLIP-NEXT: %[[SQ:.*]] = model.sum_squares %[[GW]], %[[GB:[0-9]+]] {tp.phase = #tp.phase<optimizer>} : !tp.dtensor<4x4xf32, @mesh, [#tp.shard<0>]>, tensor<4xf32> -> !tp.dtensor<f32, @mesh, [#tp.partial<sum>]>
// CLIP-NEXT: %[[SQR:.*]] = tp.redistribute %[[SQ]] {tp.phase = #tp.phase<optimizer>} : !tp.dtensor<f32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<f32, @mesh, [#tp.replicate]>
// CLIP-NEXT: %[[C:.*]] = model.clip_coefficient %[[SQR]] {max_norm = 1.500000e+00 : f64, tp.phase = #tp.phase<optimizer>}
// CLIP-NEXT: %[[CW:.*]] = model.mul %[[GW]], %[[C]]
// CLIP-NEXT: %[[CB:.*]] = model.mul %[[GB]], %[[C]]
// CLIP-NEXT: model.sgd_update "w"(%{{.*}}, %[[CW]])
// CLIP-NEXT: model.sgd_update "b"(%{{.*}}, %[[CB]])
// CLIP-NEXT: return %{{.*}}, %[[CW]], %[[CB]],
// PART-LABEL: func.func @clip
// PART: %[[ONCE:.*]] = tp.partial_from_replicate %{{.*}} on @mesh mesh_axes = [0] reduction = sum : tensor<4xf32>
// PART: %[[SQ:.*]] = model.sum_squares %{{.*}}, %[[ONCE]] {{.*}}: tensor<2x4xf32>, tensor<4xf32> -> tensor<f32>
// PART: tp.all_reduce %[[SQ]] on @mesh mesh_axes = [0] reduction = sum {{.*}}: tensor<f32>
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @clip(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = model.param "w" : tensor<4x4xf32>
  %ws = tp.distribute %w : tensor<4x4xf32> -> !tp.dtensor<4x4xf32, @mesh, [#tp.shard<0>]>
  %b = model.param "b" : tensor<4xf32>
  %h = model.linear "first"(%x, %ws) : (tensor<2x4xf32>, !tp.dtensor<4x4xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x4xf32, @mesh, [#tp.shard<1>]>
  %r = tp.redistribute %h : !tp.dtensor<2x4xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<2x4xf32, @mesh, [#tp.shard<0>]>
  %y = model.add %r, %b : (!tp.dtensor<2x4xf32, @mesh, [#tp.shard<0>]>, tensor<4xf32>) -> !tp.dtensor<2x4xf32, @mesh, [#tp.shard<0>]>
  %l = model.mean %y : (!tp.dtensor<2x4xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<f32, @mesh, [#tp.partial<sum>]>
  %lr = tp.redistribute %l : !tp.dtensor<f32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<f32, @mesh, [#tp.replicate]>
  %lt = tp.to_local %lr : !tp.dtensor<f32, @mesh, [#tp.replicate]> -> tensor<f32>
  return %lt : tensor<f32>
}
