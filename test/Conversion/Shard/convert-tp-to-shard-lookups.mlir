// convert-tp-to-shard on the lookups into a sharded dim: each becomes a
// linalg.generic over this rank's rows or classes, whose offset is the
// torch.chunk offset of the rank's index in the group. Upstream's mlir-opt
// parses and verifies the result.
// RUN: tp-opt %s --convert-tp-to-shard | FileCheck %s
// RUN: tp-opt %s --convert-tp-to-shard | mlir-opt-22 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: shard.grid @mesh(shape = 4)
// UPSTREAM-COUNT-4: linalg.generic

tp.mesh @mesh(shape = 4)

// 10 rows over 4 ranks: pieces of ceil(10/4) = 3 rows at min(10, 3 i).
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x5xi64>, %[[W:.*]]: tensor<?x8xf32>)
// CHECK: %[[I:.*]] = shard.process_multi_index on @mesh axes = [0] : index
// CHECK: %[[V:.*]] = arith.constant 10 : index
// CHECK: %[[P:.*]] = arith.ceildivui %[[V]], %{{.*}}
// CHECK: %[[S:.*]] = arith.muli %[[I]], %[[P]]
// CHECK: %[[OFF:.*]] = arith.minui %[[S]], %[[V]]
// CHECK: %[[ROWS:.*]] = tensor.dim %[[W]], %{{.*}}
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x5x8xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} ins(%[[IDS]] : tensor<2x5xi64>) outs(%[[INIT]] : tensor<2x5x8xf32>)
// CHECK: ^bb0(%[[ID:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[IX:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[LOC:.*]] = arith.subi %[[IX]], %[[OFF]]
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[LOC]]
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[LOC]], %[[ROWS]]
// CHECK: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]]
// CHECK: %[[COL:.*]] = linalg.index 2
// CHECK: scf.if %[[OK]] -> (f32)
// CHECK: tensor.extract %[[W]][%[[LOC]], %[[COL]]]
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : f32
func.func @embedding(%ids: tensor<2x5xi64>, %w: tensor<?x8xf32>) -> tensor<2x5x8xf32> {
  %e = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 10 : (tensor<2x5xi64>, tensor<?x8xf32>) -> tensor<2x5x8xf32>
  return %e : tensor<2x5x8xf32>
}

// Row r of this rank's gradient sums the gradient rows whose id is
// offset + r: parallel over (r, d), a reduction over the ids' dims.
// CHECK-LABEL: func.func @embedding_grad
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x5xi64>, tensor<2x5x8xf32>) outs(%[[Z]] : tensor<2x8xf32>)
// CHECK: %[[R:.*]] = linalg.index 0
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[R]]
// CHECK: arith.cmpi eq, %{{.*}}, %[[ROW]]
// CHECK: arith.select
// CHECK: arith.addf
func.func @embedding_grad(%g: tensor<2x5x8xf32>, %ids: tensor<2x5xi64>, %w: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = tp.sharded_embedding_grad %g, %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2x5x8xf32>, tensor<2x5xi64>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// The target's logit where this rank holds the class, zero elsewhere.
// CHECK-LABEL: func.func @target_logit
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<6xi64>) outs(%{{.*}} : tensor<6x1xf32>)
// CHECK: %[[ROW:.*]] = linalg.index 0
// CHECK: scf.if
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<6x4xf32>
func.func @target_logit(%l: tensor<6x4xf32>, %t: tensor<6xi64>) -> tensor<6x1xf32> {
  %r = tp.sharded_target_logit %l, %t on @mesh mesh_axes = [0] num_classes = 16 : (tensor<6x4xf32>, tensor<6xi64>) -> tensor<6x1xf32>
  return %r : tensor<6x1xf32>
}

// The gradient at (i, target_i - offset), zero elsewhere.
// CHECK-LABEL: func.func @target_logit_grad
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<6x1xf32>, tensor<6xi64>) outs(%{{.*}} : tensor<6x4xf32>)
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK: %[[CLS:.*]] = arith.addi %{{.*}}, %[[C]]
// CHECK: arith.cmpi eq, %{{.*}}, %[[CLS]]
// CHECK: arith.select
func.func @target_logit_grad(%g: tensor<6x1xf32>, %l: tensor<6x4xf32>, %t: tensor<6xi64>) -> tensor<6x4xf32> {
  %r = tp.sharded_target_logit_grad %g, %l, %t on @mesh mesh_axes = [0] num_classes = 16 : (tensor<6x1xf32>, tensor<6x4xf32>, tensor<6xi64>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
