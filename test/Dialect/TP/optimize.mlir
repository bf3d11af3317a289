// RUN: tp-opt %s -tp-optimize | FileCheck %s
// RUN: tp-opt %s --pass-pipeline='builtin.module(func.func(tp-optimize))' | FileCheck %s

// tp-optimize: composes chains of redistributions (so inverse pairs cancel),
// folds identities, merges identical redistributions of one value and
// computes a chunked weight gradient on the chunk, but never drops a value
// another op still uses.

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}

// Shard(1) -> Replicate -> Shard(1) is the identity.
// CHECK-LABEL: func.func @inverse_pair
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>)
// CHECK-NOT: tp.redistribute
// CHECK: %[[R:.*]] = model.relu %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @inverse_pair(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {
  %a = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %b : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
}

// all_reduce then chunk becomes one reduce_scatter-to-be; the later module
// name wins.
// CHECK-LABEL: func.func @compose_partial
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>)
// CHECK-NEXT: %[[S:.*]] = tp.redistribute %[[X]] {module = "second"} : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: return %[[S]]
func.func @compose_partial(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> {
  %a = tp.redistribute %x {module = "first"} : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a {module = "second"} : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  return %b : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
}

// Without a module name on the second, the first one's is kept.
// CHECK-LABEL: func.func @compose_keeps_module
// CHECK-NEXT: tp.redistribute %{{.*}} {module = "first"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: return
func.func @compose_keeps_module(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> {
  %a = tp.redistribute %x {module = "first"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  return %b : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
}

// A three-step chain collapses to one step.
// CHECK-LABEL: func.func @long_chain
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: return %[[R]]
func.func @long_chain(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> {
  %a = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = tp.redistribute %a : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %c = tp.redistribute %b : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %c : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

// Two identical redistributions of one value become one.
// CHECK-LABEL: func.func @merge_siblings
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>)
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[X]] : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[A:.*]] = model.relu %[[R]]
// CHECK-NEXT: %[[B:.*]] = model.gelu %[[R]]
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @merge_siblings(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>) -> (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) {
  %r1 = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %a = model.relu %r1 : (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %r2 = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %b = model.gelu %r2 : (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %a, %b : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

// The intermediate Replicate is also used by the relu: both steps stay.
// CHECK-LABEL: func.func @other_users
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>)
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[X]] : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[A:.*]] = model.relu %[[R]]
// CHECK-NEXT: %[[S:.*]] = tp.redistribute %[[R]] : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: return %[[A]], %[[S]]
func.func @other_users(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>) -> (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) {
  %r = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %a = model.relu %r : (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %s = tp.redistribute %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  return %a, %s : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
}

// Shard(0) -> Replicate -> Partial cannot become Shard(0) -> Partial, which
// tp-lower-redistribute rejects: both steps stay.
// CHECK-LABEL: func.func @illegal_composition
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[P:.*]] = tp.redistribute %[[R]] : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: return %[[P]]
func.func @illegal_composition(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> {
  %r = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %p = tp.redistribute %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
  return %p : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
}

// Shard(0) -> Partial -> Replicate is not composed into the Shard(0) ->
// Replicate it computes: the Shard -> Partial a plan asked for is left for
// tp-lower-redistribute to reject.
// CHECK-LABEL: func.func @illegal_step
// CHECK-NEXT: %[[P:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[P]] : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: return %[[R]]
func.func @illegal_step(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> {
  %p = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
  %r = tp.redistribute %p : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

// Partial(sum) -> Replicate -> Partial(max) is one redistribution, which
// tp-lower-redistribute lowers through Replicate again.
// CHECK-LABEL: func.func @compose_partial_kinds
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>)
// CHECK-NEXT: %[[M:.*]] = tp.redistribute %[[X]] : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<max>]>
// CHECK-NEXT: return %[[M]]
func.func @compose_partial_kinds(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<max>]> {
  %r = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %m = tp.redistribute %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<max>]>
  return %m : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<max>]>
}

// An identity redistribution folds away.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>)
// CHECK-NEXT: return %[[X]]
func.func @identity(%x: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {
  %a = tp.redistribute %x : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  return %a : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
}

// Redistributing a freshly distributed full tensor is distributing it
// straight to the target: no communication.
// CHECK-LABEL: func.func @distribute_then_redistribute
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[D:.*]] = tp.distribute %[[X]] {module = "block"} : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: return %[[D]]
func.func @distribute_then_redistribute(%x: tensor<4x16xf32>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> {
  %d = tp.distribute %x {module = "block"} : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  %r = tp.redistribute %d {module = "block"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

// A Partial target is not free (zeros on all but one rank): kept.
// CHECK-LABEL: func.func @distribute_then_partial
// CHECK-NEXT: %[[D:.*]] = tp.distribute %{{.*}} : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[P:.*]] = tp.redistribute %[[D]] : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: return %[[P]]
func.func @distribute_then_partial(%x: tensor<4x16xf32>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
}

// The distributed value has another user: the redistribution stays.
// CHECK-LABEL: func.func @distribute_with_other_users
// CHECK-NEXT: %[[D:.*]] = tp.distribute %{{.*}} : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[D]]
// CHECK-NEXT: return %[[D]], %[[R]]
func.func @distribute_with_other_users(%x: tensor<4x16xf32>) -> (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>) {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %d, %r : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}

// A weight gradient computed whole and chunked for its column-parallel
// parameter (Shard(0)) is computed from the chunked output gradient; the
// whole one the step returned is returned laid out as its parameter.
// CHECK-LABEL: func.func @shard_linear_grad_weight
// CHECK-SAME: -> (!tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>)
// CHECK-NEXT: %[[G:.*]] = tp.distribute %{{.*}} {module = "output.weight"} : tensor<8x32xf32> -> !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[W:.*]] = model.linear_grad_weight "output"(%[[G]], %{{.*}}) : (!tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: return %[[W]], %[[W]]
func.func @shard_linear_grad_weight(%g: tensor<8x32xf32>, %x: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> (!tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>) {
  %w = model.linear_grad_weight "output"(%g, %x) : (tensor<8x32xf32>, !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>
  %s = tp.redistribute %w {module = "output.weight"} : !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
  return %w, %s : !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
}

// For a row-parallel parameter (Shard(1)) the input is chunked instead.
// CHECK-LABEL: func.func @shard_linear_grad_weight_columns
// CHECK-NEXT: %[[X:.*]] = tp.redistribute %{{.*}} {module = "w2"} : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[W:.*]] = model.linear_grad_weight "w2"(%{{.*}}, %[[X]]) : (!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: return %[[W]]
func.func @shard_linear_grad_weight_columns(%g: !tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, %x: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<1>]> {
  %w = model.linear_grad_weight "w2"(%g, %x) : (!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>
  %s = tp.redistribute %w : !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<1>]>
  return %s : !tp.dtensor<32x16xf32, @mesh, [#tp.shard<1>]>
}

// In a training step the chunk is the optimizer's, after the whole
// backward: the gradient is computed on the chunk where the whole one was,
// in the backward phase, so that its operands die there.
// CHECK-LABEL: func.func @shard_linear_grad_weight_phase
// CHECK-NEXT: %[[W:.*]] = model.linear_grad_weight "out"(%{{.*}}, %{{.*}}) {tp.phase = #tp.phase<backward>} : {{.*}} -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: model.relu %{{.*}} {tp.phase = #tp.phase<backward>}
// CHECK-NEXT: return %[[W]]
func.func @shard_linear_grad_weight_phase(%g: !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>, %x: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> (!tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) {
  %g2 = tp.redistribute %g {tp.phase = #tp.phase<backward>} : !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>
  %w = model.linear_grad_weight "out"(%g2, %x) {tp.phase = #tp.phase<backward>} : (!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>
  %r = model.relu %x {tp.phase = #tp.phase<backward>} : (!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %s = tp.redistribute %w {tp.phase = #tp.phase<optimizer>} : !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
  return %s, %r : !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
}

// On a dp x tp mesh the gradient is also Partial over dp (each dp rank's
// batch): it is computed on the tp chunk, still Partial over dp, and
// reduced over dp after, where the redistribution was: each rank runs 1/tp
// of the GEMM and the dp reduction moves the chunk only. The step returns
// it Partial over dp, as before, and laid out as its parameter over tp.
// CHECK-LABEL: func.func @shard_linear_grad_weight_dp
// CHECK-SAME: -> (!tp.dtensor<32x16xf32, @mesh2d, [#tp.partial<sum>, #tp.shard<0>]>, !tp.dtensor<32x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>)
// CHECK-NEXT: %[[G:.*]] = tp.redistribute %{{.*}} {module = "out", tp.phase = #tp.phase<backward>} : !tp.dtensor<8x32xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>
// CHECK-NEXT: %[[W:.*]] = model.linear_grad_weight "out"(%[[G]], %{{.*}}) {tp.phase = #tp.phase<backward>} : {{.*}} -> !tp.dtensor<32x16xf32, @mesh2d, [#tp.partial<sum>, #tp.shard<0>]>
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[W]] {module = "out", tp.phase = #tp.phase<optimizer>} : !tp.dtensor<32x16xf32, @mesh2d, [#tp.partial<sum>, #tp.shard<0>]> -> !tp.dtensor<32x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
// CHECK-NEXT: return %[[W]], %[[R]]
func.func @shard_linear_grad_weight_dp(%g: !tp.dtensor<8x32xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>, %x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>) -> (!tp.dtensor<32x16xf32, @mesh2d, [#tp.partial<sum>, #tp.replicate]>, !tp.dtensor<32x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>) {
  %w = model.linear_grad_weight "out"(%g, %x) {tp.phase = #tp.phase<backward>} : (!tp.dtensor<8x32xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>, !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh2d, [#tp.partial<sum>, #tp.replicate]>
  %s = tp.redistribute %w {tp.phase = #tp.phase<optimizer>} : !tp.dtensor<32x16xf32, @mesh2d, [#tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<32x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
  return %w, %s : !tp.dtensor<32x16xf32, @mesh2d, [#tp.partial<sum>, #tp.replicate]>, !tp.dtensor<32x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
}

// Another reader of the whole gradient: it stays.
// CHECK-LABEL: func.func @linear_grad_weight_read_whole
// CHECK: model.linear_grad_weight "w"(%{{.*}}, %{{.*}}) : {{.*}} -> !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>
// CHECK: tp.redistribute
func.func @linear_grad_weight_read_whole(%g: !tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, %x: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> (!tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>) {
  %w = model.linear_grad_weight "w"(%g, %x) : (!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>
  %r = model.relu %w : (!tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>
  %s = tp.redistribute %w : !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
  return %r, %s : !tp.dtensor<32x16xf32, @mesh, [#tp.replicate]>, !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
}
