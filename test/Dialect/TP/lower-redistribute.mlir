// RUN: tp-opt %s -split-input-file -tp-lower-redistribute -verify-diagnostics | FileCheck %s
// RUN: tp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tp-lower-redistribute))' -verify-diagnostics | FileCheck %s

// tp-lower-redistribute: each changed mesh axis becomes one collective on
// local tensors, between tp.to_local and tp.from_local (DESIGN 4.3).

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

// Shard(d) -> Replicate: all_gather along d.
// CHECK-LABEL: func.func @shard_to_replicate
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>)
// CHECK-NEXT: %[[L:.*]] = tp.to_local %[[X]] : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> tensor<2x16xf32>
// CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[L]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "net1"} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[R:.*]] = tp.from_local %[[G]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: return %[[R]]
func.func @shard_to_replicate(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> {
  %r = tp.redistribute %x {module = "net1"} : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
}

// CHECK-LABEL: func.func @shard_last_to_replicate
// CHECK: tp.all_gather %{{.*}} on @mesh mesh_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
func.func @shard_last_to_replicate(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
}

// Partial(op) -> Replicate: all_reduce with the same reduction.
// CHECK-LABEL: func.func @partial_to_replicate
// CHECK: %[[L0:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> tensor<8x16xf32>
// CHECK-NEXT: tp.all_reduce %[[L0]] on @mesh mesh_axes = [0] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK: tp.all_reduce %{{.*}} on @mesh mesh_axes = [0] reduction = {{ *}}avg : tensor<8x16xf32>
// CHECK: tp.all_reduce %{{.*}} on @mesh mesh_axes = [0] reduction = {{ *}}max : tensor<8x16xf32>
// CHECK: tp.all_reduce %{{.*}} on @mesh mesh_axes = [0] reduction = {{ *}}min : tensor<8x16xf32>
// CHECK-NOT: tp.all_reduce
func.func @partial_to_replicate(%s: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>, %a: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]>, %mx: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>, %mn: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<min>]>) {
  %0 = tp.redistribute %s : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %1 = tp.redistribute %a : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %2 = tp.redistribute %mx : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %3 = tp.redistribute %mn : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<min>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  return
}

// Partial -> Shard(d): reduce_scatter along d.
// CHECK-LABEL: func.func @partial_to_shard
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> tensor<8x16xf32>
// CHECK-NEXT: %[[RS:.*]] = tp.reduce_scatter %[[L]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: tp.from_local %[[RS]] : tensor<2x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
func.func @partial_to_shard(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
}

// Shard(i) -> Shard(j): all_to_all splitting j and concatenating i.
// CHECK-LABEL: func.func @shard_to_shard
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> tensor<2x16xf32>
// CHECK-NEXT: %[[A:.*]] = tp.all_to_all %[[L]] on @mesh mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: tp.from_local %[[A]] : tensor<8x4xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
func.func @shard_to_shard(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
}

// Replicate -> Shard(d): a local chunk, no communication.
// CHECK-LABEL: func.func @replicate_to_shard
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> tensor<8x16xf32>
// CHECK-NEXT: %[[C:.*]] = tp.chunk %[[L]] on @mesh mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: tp.from_local %[[C]] : tensor<8x4xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
func.func @replicate_to_shard(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
}

// -----

// A size-1 mesh axis needs no collective; the other axis gets one.
tp.mesh @mesh(shape = 1x4) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @size_one_axis
// CHECK-NOT: tp.all_gather
// CHECK: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>]> -> tensor<8x16xf32>
// CHECK-NEXT: %[[AR:.*]] = tp.all_reduce %[[L]] on @mesh mesh_axes = [1] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: %[[F:.*]] = tp.from_local %[[AR]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]>
// CHECK-NEXT: %[[L2:.*]] = tp.to_local %[[F]] : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]> -> tensor<8x16xf32>
// CHECK-NEXT: %[[F2:.*]] = tp.from_local %[[L2]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: return %[[F2]]
func.func @size_one_axis(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]>
}

// -----

tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}

// 2x2 mesh: axes that drop a shard or partial go last axis first.
// CHECK-LABEL: func.func @mesh_2x2
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.partial<sum>]> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AR:.*]] = tp.all_reduce %[[L]] on @mesh2d mesh_axes = [1] reduction = {{ *}}sum : tensor<4x16xf32>
// CHECK-NEXT: %[[F:.*]] = tp.from_local %[[AR]] : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
// CHECK-NEXT: %[[L2:.*]] = tp.to_local %[[F]] : {{.*}} -> tensor<4x16xf32>
// CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[L2]] on @mesh2d mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[F2:.*]] = tp.from_local %[[G]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: return %[[F2]]
func.func @mesh_2x2(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.partial<sum>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]>
}

// Unchanged axes get no collective.
// CHECK-LABEL: func.func @mesh_2x2_one_axis
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> tensor<4x8xf32>
// CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[L]] on @mesh2d mesh_axes = [1] gather_axis = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[F:.*]] = tp.from_local %[[G]] : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
// CHECK-NEXT: return %[[F]]
func.func @mesh_2x2_one_axis(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
}

// A dim split over both axes is split in mesh order: rank (i, j) holds
// chunk 2i+j. Adding the outer split to [Replicate, Shard(0)] (rank (i, j)
// holds half j) cannot just chunk each half: the inner split is undone and
// redone after the outer one.
// CHECK-LABEL: func.func @add_outer_split
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]> -> tensor<4x16xf32>
// CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[L]] on @mesh2d mesh_axes = [1] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[F:.*]] = tp.from_local %[[G]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: %[[L2:.*]] = tp.to_local %[[F]]
// CHECK-NEXT: %[[C0:.*]] = tp.chunk %[[L2]] on @mesh2d mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[F2:.*]] = tp.from_local %[[C0]] : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
// CHECK-NEXT: %[[L3:.*]] = tp.to_local %[[F2]]
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[L3]] on @mesh2d mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[F3:.*]] = tp.from_local %[[C1]] : tensor<2x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
// CHECK-NEXT: return %[[F3]]
func.func @add_outer_split(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
}

// Dropping the outer split: gathering over axis 0 alone would concatenate
// chunks j and 2+j, which is not half j.
// CHECK-LABEL: func.func @drop_outer_split
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> -> tensor<2x16xf32>
// CHECK-NEXT: %[[G1:.*]] = tp.all_gather %[[L]] on @mesh2d mesh_axes = [1] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK: %[[G0:.*]] = tp.all_gather %{{.*}} on @mesh2d mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK: %[[C:.*]] = tp.chunk %{{.*}} on @mesh2d mesh_axes = [1] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[F:.*]] = tp.from_local %[[C]] : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
// CHECK-NEXT: return %[[F]]
func.func @drop_outer_split(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.shard<0>]>
}

// Adding the inner split to an outer one keeps mesh order with one chunk.
// CHECK-LABEL: func.func @add_inner_split
// CHECK-NEXT: %[[L:.*]] = tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> -> tensor<4x16xf32>
// CHECK-NEXT: %[[C:.*]] = tp.chunk %[[L]] on @mesh2d mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: tp.from_local %[[C]] : tensor<2x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
// CHECK-NEXT: return
func.func @add_inner_split(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>) -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
}

// -----

// Uneven shards (6 rows over 4 ranks: 2, 2, 2, 0, as torch.chunk) are
// dynamic local dims.
tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @uneven_chunk
// CHECK: tp.chunk %{{.*}} on @mesh mesh_axes = [0] axis = 0 : tensor<6x16xf32> -> tensor<?x16xf32>
// CHECK-NEXT: tp.from_local %{{.*}} : tensor<?x16xf32> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
func.func @uneven_chunk(%x: !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]> {
  %r = tp.redistribute %x : !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
}

// CHECK-LABEL: func.func @uneven_gather
// CHECK: tp.to_local %{{.*}} : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]> -> tensor<?x16xf32>
// CHECK-NEXT: tp.all_gather %{{.*}} on @mesh mesh_axes = [0] gather_axis = 0 : tensor<?x16xf32> -> tensor<6x16xf32>
func.func @uneven_gather(%x: !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<6x16xf32, @mesh, [#tp.replicate]>
}

// An uneven Shard(i) -> Shard(j) cannot be one all_to_all: gather, then
// keep this rank's chunk.
// CHECK-LABEL: func.func @uneven_shard_to_shard
// CHECK-NOT: tp.all_to_all
// CHECK: %[[G:.*]] = tp.all_gather %{{.*}} on @mesh mesh_axes = [0] gather_axis = 0 : tensor<?x16xf32> -> tensor<6x16xf32>
// CHECK-NEXT: %[[C:.*]] = tp.chunk %[[G]] on @mesh mesh_axes = [0] axis = 1 : tensor<6x16xf32> -> tensor<6x4xf32>
// CHECK-NEXT: tp.from_local %[[C]] : tensor<6x4xf32> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<1>]>
func.func @uneven_shard_to_shard(%x: !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<1>]> {
  %r = tp.redistribute %x : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<6x16xf32, @mesh, [#tp.shard<1>]>
}

// -----

// 5 rows over 2 x 2 ranks: gathering the inner split leaves an uneven outer
// chunk (3 or 2 rows), so the gather records the global size and the outer
// axis; each rank computes its group's size from its dp coordinate.
// CHECK-LABEL: func.func @uneven_nested_gather
// CHECK: tp.all_gather %{{.*}} on @mesh2d mesh_axes = [1] gather_axis = 0 {global_size = 5 : i64, outer_axes = array<i64: 0>} : tensor<?x16xf32> -> tensor<?x16xf32>
tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @uneven_nested_gather(%x: !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]> {
  %r = tp.redistribute %x : !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<5x16xf32, @mesh2d, [#tp.shard<0>, #tp.replicate]>
}
