// RUN: tp-opt %s -split-input-file --tp-lower-redistribute --tp-partition -verify-diagnostics | FileCheck %s

// Inner shards (#tp.inner_shard<d>, PyTorch's _StridedShard): on a [dp, tp]
// mesh, [InnerShard(0), Shard(0)] splits dim 0 over tp first and each tp
// piece over dp, FSDP's layout of a tensor-parallel shard. tp-partition cuts
// the tp chunk first; going to and from the tensor-parallel layout
// [R, Shard(0)] is one collective on the local tensor over dp alone (an
// all_gather, a reduce_scatter of a Partial, a chunk of a replica), where the
// mesh-order layout [Shard(0), Shard(0)] would need an all_to_all. Uneven
// pieces (10 rows over tp 2 -> 5, 5; over dp 2 -> 3, 2) are dynamic and
// gather to their tp piece's size. The numerics run
// in test/tp-run/fsdp.test.

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

// [I(0), S(0)] -> [R, S(0)]: all_gather over dp of the dp piece, into the
// tp piece.
// CHECK-LABEL: func.func @inner_to_tp(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tp.chunk %[[X]] on @mesh mesh_axes = [1] axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[D:.*]] = tp.chunk %[[T]] on @mesh mesh_axes = [0] axis = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[D]] on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[G]]
func.func @inner_to_tp(%x: tensor<8x4xf32>) -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
}

// -----

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

// [P, S(0)] -> [I(0), S(0)]: one reduce_scatter over dp on the local dim 0
// (FSDP's gradient of a colwise weight).
// CHECK-LABEL: func.func @partial_to_inner(
// CHECK-NEXT: %[[RS:.*]] = tp.reduce_scatter %{{.*}} on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[RS]]
func.func @partial_to_inner(%x: tensor<4x4xf32>) -> !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<4x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.partial<sum>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x4xf32, @mesh, [#tp.partial<sum>, #tp.shard<0>]> -> !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
}

// -----

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

// [R, S(0)] -> [I(0), S(0)]: a local chunk of the tp piece.
// CHECK-LABEL: func.func @tp_to_inner(
// CHECK-NEXT: %[[C:.*]] = tp.chunk %{{.*}} on @mesh mesh_axes = [0] axis = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @tp_to_inner(%x: tensor<4x4xf32>) -> !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<4x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
}

// -----

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

// [I(0), S(0)] -> [S(0), S(0)]: the other nesting of the same dim: gather
// over dp, then over tp, and chunk in mesh order.
// CHECK-LABEL: func.func @inner_to_mesh_order(
// CHECK: tp.all_gather %{{.*}} on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
// CHECK: tp.all_gather %{{.*}} on @mesh mesh_axes = [1] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK: tp.chunk %{{.*}} on @mesh mesh_axes = [0] axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK: tp.chunk %{{.*}} on @mesh mesh_axes = [1] axis = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
func.func @inner_to_mesh_order(%x: tensor<8x4xf32>) -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>
}

// -----

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

// Uneven: 10 rows, tp pieces 5 and 5, dp pieces of those 3 and 2: the
// gather over dp rebuilds the static tp piece from uneven pieces.
// CHECK-LABEL: func.func @inner_uneven(
// CHECK-NEXT: %[[T:.*]] = tp.chunk %{{.*}} on @mesh mesh_axes = [1] axis = 0 : tensor<10x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: %[[D:.*]] = tp.chunk %[[T]] on @mesh mesh_axes = [0] axis = 0 : tensor<5x4xf32> -> tensor<?x4xf32>
// CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[D]] on @mesh mesh_axes = [0] gather_axis = 0 : tensor<?x4xf32> -> tensor<5x4xf32>
func.func @inner_uneven(%x: tensor<10x4xf32>) -> !tp.dtensor<10x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x4xf32> -> !tp.dtensor<10x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
}

// -----

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

// 11 rows: tp pieces 6 and 5 are themselves uneven, so the gather over dp
// records the global size and the axis split first (outer_axes = [1]), from
// which each rank computes its tp piece's size.
// CHECK-LABEL: func.func @inner_uneven_outer(
// CHECK: tp.all_gather %{{.*}} on @mesh mesh_axes = [0] gather_axis = 0 {global_size = 11 : i64, outer_axes = array<i64: 1>} : tensor<?x4xf32> -> tensor<?x4xf32>
func.func @inner_uneven_outer(%x: tensor<11x4xf32>) -> !tp.dtensor<11x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<11x4xf32> -> !tp.dtensor<11x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<11x4xf32, @mesh, [#tp.inner_shard<0>, #tp.shard<0>]> -> !tp.dtensor<11x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<11x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
}

// -----

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

// An inner shard is only written where a later axis splits the dim first.
// expected-error @below {{dtensor placement 0 is #tp.inner_shard<0>, but no later mesh axis splits dim 0 first: the split is in mesh order, write #tp.shard<0>}}
func.func @not_canonical(%x: !tp.dtensor<8x4xf32, @mesh, [#tp.inner_shard<0>, #tp.replicate]>) {
  return
}
