// RUN: tp-opt %s -split-input-file --tp-cse | FileCheck %s

// tp-cse: common subexpression elimination in which the phase of a
// training step (tp.phase) does not count. Of two equal ops the first in
// program order survives, with its phase: what the forward gathered, the
// backward reuses, and nothing moves to another phase.

tp.mesh @mesh(shape = 4)

// CHECK-LABEL: func.func @across_phases
func.func @across_phases(%x: tensor<2x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK-NEXT: %[[G:.*]] = tp.all_gather %{{.*}} {module = "net1"} : tensor<2x8xf32> -> tensor<8x8xf32>
  // CHECK-NEXT: %[[R:.*]] = model.relu %[[G]] {tp.phase = #tp.phase<backward>}
  // CHECK-NEXT: return %[[G]], %[[G]], %[[R]]
  %f = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 {module = "net1"} : tensor<2x8xf32> -> tensor<8x8xf32>
  %b = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 {module = "net1", tp.phase = #tp.phase<backward>} : tensor<2x8xf32> -> tensor<8x8xf32>
  // Their users are equal once the gathers are one.
  %r1 = model.relu %b {tp.phase = #tp.phase<backward>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %r2 = model.relu %f {tp.phase = #tp.phase<backward>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %f, %b, %r2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

tp.mesh @mesh(shape = 4)

// The first survives with its phase, whichever it is; ops that differ in
// anything but the phase (here the module) stay apart, as with MLIR's CSE.
// CHECK-LABEL: func.func @first_wins
func.func @first_wins(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  // CHECK-NEXT: %[[B:.*]] = tp.all_reduce %{{.*}} {module = "w", tp.phase = #tp.phase<backward>}
  // CHECK-NEXT: %[[O:.*]] = tp.all_reduce %{{.*}} {module = "v", tp.phase = #tp.phase<optimizer>}
  // CHECK-NEXT: return %[[B]], %[[B]], %[[O]]
  %b = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {module = "w", tp.phase = #tp.phase<backward>} : tensor<8x8xf32>
  %o = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {module = "w", tp.phase = #tp.phase<optimizer>} : tensor<8x8xf32>
  %v = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {module = "v", tp.phase = #tp.phase<optimizer>} : tensor<8x8xf32>
  return %b, %o, %v : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A first scan decides whether CSE has anything to do; each thing it looks
// for still reaches CSE. Operand-less ops of one name and equal
// properties (two reads of one parameter) become one; different
// parameters stay.
// CHECK-LABEL: func.func @operandless
func.func @operandless() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[A:.*]] = model.param "a.weight"
  // CHECK-NEXT: %[[B:.*]] = model.param "b.weight"
  // CHECK-NEXT: return %[[A]], %[[A]], %[[B]]
  %a1 = model.param "a.weight" : tensor<4xf32>
  %a2 = model.param "a.weight" : tensor<4xf32>
  %b = model.param "b.weight" : tensor<4xf32>
  return %a1, %a2, %b : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Equal ops whose first operand is a function argument; a trivially dead op
// alone (nothing equal anywhere) is erased too.
// CHECK-LABEL: func.func @on_arguments
func.func @on_arguments(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[S:.*]] = model.add %arg0, %arg1
  // CHECK-NEXT: %[[T:.*]] = model.add %arg0, %arg0
  // CHECK-NEXT: return %[[S]], %[[S]], %[[T]]
  %s1 = model.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s2 = model.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = model.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s1, %s2, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @dead_only
func.func @dead_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: return %arg0
  %unused = model.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// Nothing to eliminate: the IR is left as it is (same first operand, other
// operands differ; same properties, other names).
// CHECK-LABEL: func.func @nothing
func.func @nothing(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: model.add %arg0, %arg1
  // CHECK-NEXT: model.mul %arg0, %arg1
  // CHECK-NEXT: model.add %arg0, %arg0
  // CHECK-NEXT: return
  %s = model.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = model.mul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = model.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s, %m, %t : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
