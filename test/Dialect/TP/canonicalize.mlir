// RUN: tp-opt %s --cse --canonicalize | FileCheck %s

// Collectives are Pure (every rank runs the same SPMD function), so CSE
// merges identical ones and drops unused ones; over a group of one rank each
// folds to its input, and so do all_reduce max/min and broadcast of a value
// every rank of the group already holds.

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
tp.mesh @ones(shape = 1x4x1) {axis_names = ["a", "tp", "b"]}

//===----------------------------------------------------------------------===//
// CSE
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @three_all_gathers
// CHECK-SAME: (%[[X:.*]]: tensor<2x16xf32>)
// CHECK-NEXT: %[[GATHERED:.*]] = tp.all_gather %[[X]] on @mesh mesh_axes = [0] gather_axis = 0
// CHECK-NEXT: return %[[GATHERED]], %[[GATHERED]], %[[GATHERED]]
func.func @three_all_gathers(%x: tensor<2x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
  %1 = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
  %2 = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
  return %0, %1, %2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// CHECK-LABEL: func.func @identical_all_reduces
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[SUM:.*]] = tp.all_reduce %[[X]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "w2"}
// CHECK-NEXT: return %[[SUM]], %[[SUM]]
func.func @identical_all_reduces(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {module = "w2"} : tensor<4x8xf32>
  %1 = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {module = "w2"} : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// The other kinds merge the same way.
// CHECK-LABEL: func.func @identical_other_kinds
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[RS:.*]] = tp.reduce_scatter %[[X]]
// CHECK-NEXT: %[[A2A:.*]] = tp.all_to_all %[[X]]
// CHECK-NEXT: %[[BC:.*]] = tp.broadcast %[[X]]
// CHECK-NEXT: return %[[RS]], %[[RS]], %[[A2A]], %[[A2A]], %[[BC]], %[[BC]]
func.func @identical_other_kinds(%x: tensor<8x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %rs0 = tp.reduce_scatter %x on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  %rs1 = tp.reduce_scatter %x on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  %aa0 = tp.all_to_all %x on @mesh mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
  %aa1 = tp.all_to_all %x on @mesh mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
  %b0 = tp.broadcast %x on @mesh mesh_axes = [0] root = 0 : tensor<8x4xf32>
  %b1 = tp.broadcast %x on @mesh mesh_axes = [0] root = 0 : tensor<8x4xf32>
  return %rs0, %rs1, %aa0, %aa1, %b0, %b1 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// Collectives that differ in input, mesh axes, dim, reduction, root or
// module (tp-comm-report counts per module) all stay.
// CHECK-LABEL: func.func @different_collectives_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[Y:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: tp.all_gather %[[X]] on @mesh2d mesh_axes = [0] gather_axis = 0
// CHECK-NEXT: tp.all_gather %[[X]] on @mesh2d mesh_axes = [1] gather_axis = 0
// CHECK-NEXT: tp.all_gather %[[X]] on @mesh2d mesh_axes = [0, 1] gather_axis = 0
// CHECK-NEXT: tp.all_gather %[[X]] on @mesh2d mesh_axes = [0] gather_axis = 1
// CHECK-NEXT: tp.all_gather %[[Y]] on @mesh2d mesh_axes = [0] gather_axis = 0
// CHECK-NEXT: tp.all_reduce %[[X]] on @mesh2d mesh_axes = [0] reduction = {{ *}}sum :
// CHECK-NEXT: tp.all_reduce %[[X]] on @mesh2d mesh_axes = [0] reduction = {{ *}}max :
// CHECK-NEXT: tp.all_reduce %[[X]] on @mesh2d mesh_axes = [0] reduction = {{ *}}sum {module = "wo"}
// CHECK-NEXT: tp.broadcast %[[X]] on @mesh2d mesh_axes = [0] root = 0
// CHECK-NEXT: tp.broadcast %[[X]] on @mesh2d mesh_axes = [0] root = 1
// CHECK-NEXT: return
func.func @different_collectives_kept(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<16x4xf32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %g0 = tp.all_gather %x on @mesh2d mesh_axes = [0] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  %g1 = tp.all_gather %x on @mesh2d mesh_axes = [1] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  %g2 = tp.all_gather %x on @mesh2d mesh_axes = [0, 1] gather_axis = 0 : tensor<4x4xf32> -> tensor<16x4xf32>
  %g3 = tp.all_gather %x on @mesh2d mesh_axes = [0] gather_axis = 1 : tensor<4x4xf32> -> tensor<4x8xf32>
  %g4 = tp.all_gather %y on @mesh2d mesh_axes = [0] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  %r0 = tp.all_reduce %x on @mesh2d mesh_axes = [0] reduction = sum : tensor<4x4xf32>
  %r1 = tp.all_reduce %x on @mesh2d mesh_axes = [0] reduction = max : tensor<4x4xf32>
  %r2 = tp.all_reduce %x on @mesh2d mesh_axes = [0] reduction = sum {module = "wo"} : tensor<4x4xf32>
  %b0 = tp.broadcast %x on @mesh2d mesh_axes = [0] root = 0 : tensor<4x4xf32>
  %b1 = tp.broadcast %x on @mesh2d mesh_axes = [0] root = 1 : tensor<4x4xf32>
  return %g0, %g1, %g2, %g3, %g4, %r0, %r1, %r2, %b0, %b1 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<16x4xf32>, tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @unused_collective_removed
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @unused_collective_removed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  %1 = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  return %x : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Folding: a group of one rank is the identity
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @one_rank_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tp.
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @one_rank_identity(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %ag = tp.all_gather %x on @ones mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %ar = tp.all_reduce %x on @ones mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  %rs = tp.reduce_scatter %x on @ones mesh_axes = [2] reduction = avg scatter_axis = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %aa = tp.all_to_all %x on @ones mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %bc = tp.broadcast %x on @ones mesh_axes = [2] root = 0 : tensor<4x8xf32>
  %ch = tp.chunk %x on @ones mesh_axes = [0] axis = 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %pr = tp.partial_from_replicate %x on @ones mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  // Two axes of size 1 are still one rank; so are no axes at all.
  %two = tp.all_reduce %x on @ones mesh_axes = [0, 2] reduction = max : tensor<4x8xf32>
  %none = tp.all_reduce %x on @mesh mesh_axes = [] reduction = sum : tensor<4x8xf32>
  return %ag, %ar, %rs, %aa, %bc, %ch, %pr, %two, %none : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// A group of more than one rank keeps the collective, also where the types
// match (a dynamic dim, or a type-preserving collective), and also where one
// of its axes has size 1.
// CHECK-LABEL: func.func @more_ranks_kept
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: tp.all_gather %[[X]] on @mesh mesh_axes = [0] gather_axis = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
// CHECK-NEXT: tp.all_reduce %[[X]] on @ones mesh_axes = [0, 1] reduction = {{ *}}sum
// CHECK-NEXT: tp.broadcast %[[X]] on @ones mesh_axes = [1] root = 0
// CHECK-NEXT: return
func.func @more_ranks_kept(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %ag = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %ar = tp.all_reduce %x on @ones mesh_axes = [0, 1] reduction = sum : tensor<?x8xf32>
  %bc = tp.broadcast %x on @ones mesh_axes = [1] root = 0 : tensor<?x8xf32>
  return %ag, %ar, %bc : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}

//===----------------------------------------------------------------------===//
// Folding: a value every rank of the group already holds
//===----------------------------------------------------------------------===//

// all_reduce max/min and broadcast of the result of a collective over the
// same axes (or more) give back that result: every rank holds it already.
// CHECK-LABEL: func.func @replicated_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[SUM:.*]] = tp.all_reduce %[[X]] on @mesh2d mesh_axes = [0, 1] reduction = {{ *}}sum
// CHECK-NEXT: %[[GATHERED:.*]] = tp.all_gather %[[X]] on @mesh2d mesh_axes = [1] gather_axis = 0
// CHECK-NEXT: %[[ROOT:.*]] = tp.broadcast %[[X]] on @mesh2d mesh_axes = [0] root = 1
// CHECK-NEXT: return %[[SUM]], %[[SUM]], %[[GATHERED]], %[[ROOT]]
func.func @replicated_identity(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>) {
  %sum = tp.all_reduce %x on @mesh2d mesh_axes = [0, 1] reduction = sum : tensor<4x4xf32>
  %max = tp.all_reduce %sum on @mesh2d mesh_axes = [1] reduction = max : tensor<4x4xf32>
  %min = tp.all_reduce %sum on @mesh2d mesh_axes = [1, 0] reduction = min : tensor<4x4xf32>
  %g = tp.all_gather %x on @mesh2d mesh_axes = [1] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
  %gb = tp.broadcast %g on @mesh2d mesh_axes = [1] root = 1 : tensor<8x4xf32>
  %b = tp.broadcast %x on @mesh2d mesh_axes = [0] root = 1 : tensor<4x4xf32>
  %bb = tp.broadcast %b on @mesh2d mesh_axes = [0] root = 0 : tensor<4x4xf32>
  return %max, %min, %gb, %bb : tensor<4x4xf32>, tensor<4x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>
}

// Not where the sum or avg of the copies differs from one copy, nor where
// the group reaches ranks the first collective did not (another axis, or
// another mesh).
// CHECK-LABEL: func.func @not_replicated_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[INNER:.*]] = tp.all_reduce %[[X]] on @mesh2d mesh_axes = [0] reduction = {{ *}}max
// CHECK-NEXT: tp.all_reduce %[[INNER]] on @mesh2d mesh_axes = [0] reduction = {{ *}}sum
// CHECK-NEXT: tp.all_reduce %[[INNER]] on @mesh2d mesh_axes = [0] reduction = {{ *}}avg
// CHECK-NEXT: tp.all_reduce %[[INNER]] on @mesh2d mesh_axes = [0, 1] reduction = {{ *}}max
// CHECK-NEXT: tp.broadcast %[[INNER]] on @mesh2d mesh_axes = [1] root = 0
// CHECK-NEXT: %[[OTHER:.*]] = tp.all_reduce %[[X]] on @mesh mesh_axes = [0] reduction = {{ *}}max
// CHECK-NEXT: tp.broadcast %[[OTHER]] on @mesh2d mesh_axes = [0] root = 0
// CHECK-NEXT: return
func.func @not_replicated_kept(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %inner = tp.all_reduce %x on @mesh2d mesh_axes = [0] reduction = max : tensor<4x4xf32>
  %sum = tp.all_reduce %inner on @mesh2d mesh_axes = [0] reduction = sum : tensor<4x4xf32>
  %avg = tp.all_reduce %inner on @mesh2d mesh_axes = [0] reduction = avg : tensor<4x4xf32>
  %wider = tp.all_reduce %inner on @mesh2d mesh_axes = [0, 1] reduction = max : tensor<4x4xf32>
  %other_axis = tp.broadcast %inner on @mesh2d mesh_axes = [1] root = 0 : tensor<4x4xf32>
  %other = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = max : tensor<4x4xf32>
  %other_mesh = tp.broadcast %other on @mesh2d mesh_axes = [0] root = 0 : tensor<4x4xf32>
  return %sum, %avg, %wider, %other_axis, %other_mesh : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
