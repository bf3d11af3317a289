// RUN: tp-opt %s -split-input-file --tp-lower-redistribute --tp-partition -verify-diagnostics | FileCheck %s

// tp-lower-redistribute then tp-partition, on every transition of DESIGN 4.3
// over a 1-D mesh of 4, a size-1 axis, a 2x2 and a 2x2x2 mesh, with even and
// uneven (torch.chunk: 10 over 4 -> 3,3,3,1; 6 over 4 -> 2,2,2,0) sizes, dims
// sharded over several mesh axes (split in mesh order: on 2x2, [S(0), S(0)]
// gives rank (i, j) chunk 2i+j) and multi-step transitions. Each function
// takes the global tensor and tp.distribute's it (partitioned: tp.chunk per
// sharded axis, first axis first), or, for a Partial source, this rank's local
// tensor through tp.from_local, so the checks show the source's chunks, then
// the exact collectives (op, mesh axes, gather/scatter/split/concat axis,
// local types), then the result. Every expected lowering here was also
// checked rank by rank against the target placement (a subset also runs
// numerically in test/tp-run/redistribute-nd.test and
// test/tp-run/redistribute-mesh-order.test).
// Placements in the comments are written as in PyTorch: [S(0), P] means
// Shard(0) on the first mesh axis and Partial(sum) on the second.

// 1-D mesh of 4: one collective per transition. Even 8x16, uneven 10x6
// (rows 3,3,3,1; columns 2,2,2,0; uneven local dims are `?`).

tp.mesh @mesh4(shape = 4) {axis_names = ["tp"]}

// 8x16 [S(0)] -> [R]: all_gather on tp.
// CHECK-LABEL: func.func @m4_8x16_s0_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh4 mesh_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x16xf32>
func.func @m4_8x16_s0_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

// 8x16 [S(1)] -> [R]: all_gather on tp.
// CHECK-LABEL: func.func @m4_8x16_s1_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh4 mesh_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x16xf32>
func.func @m4_8x16_s1_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

// 8x16 [S(-1)] -> [R]: all_gather on tp.
// CHECK-LABEL: func.func @m4_8x16_sm1_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh4 mesh_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x16xf32>
func.func @m4_8x16_sm1_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<-1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<-1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

// 8x16 [P] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_8x16_p_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x16xf32>
func.func @m4_8x16_p_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

// 8x16 [P(avg)] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_8x16_pavg_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}avg : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x16xf32>
func.func @m4_8x16_pavg_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

// 8x16 [P(max)] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_8x16_pmax_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}max : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x16xf32>
func.func @m4_8x16_pmax_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

// 8x16 [P(min)] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_8x16_pmin_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}min : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x16xf32>
func.func @m4_8x16_pmin_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<min>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
}

// 8x16 [P] -> [S(0)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m4_8x16_p_to_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<2x16xf32>
func.func @m4_8x16_p_to_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
}

// 8x16 [P(avg)] -> [S(1)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m4_8x16_pavg_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x4xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}avg scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<8x4xf32>
func.func @m4_8x16_pavg_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
}

// 8x16 [S(0)] -> [S(1)]: all_to_all on tp.
// CHECK-LABEL: func.func @m4_8x16_s0_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x4xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh4 mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<8x4xf32>
func.func @m4_8x16_s0_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
}

// 8x16 [S(1)] -> [S(0)]: all_to_all on tp.
// CHECK-LABEL: func.func @m4_8x16_s1_to_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh4 mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<2x16xf32>
func.func @m4_8x16_s1_to_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
}

// 8x16 [R] -> [S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m4_8x16_r_to_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH0]] : tensor<2x16xf32>
func.func @m4_8x16_r_to_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<0>]>
}

// 8x16 [R] -> [S(1)]: chunk on tp.
// CHECK-LABEL: func.func @m4_8x16_r_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x4xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[CH0]] : tensor<8x4xf32>
func.func @m4_8x16_r_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
}

// 10x6 [S(0)] -> [R]: all_gather on tp.
// CHECK-LABEL: func.func @m4_10x6_s0_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh4 mesh_axes = [0] gather_axis = 0 : tensor<?x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x6xf32>
func.func @m4_10x6_s0_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

// 10x6 [S(1)] -> [R]: all_gather on tp.
// CHECK-LABEL: func.func @m4_10x6_s1_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x?xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh4 mesh_axes = [0] gather_axis = 1 : tensor<10x?xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x6xf32>
func.func @m4_10x6_s1_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

// 10x6 [P] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_10x6_p_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}sum : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x6xf32>
func.func @m4_10x6_p_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

// 10x6 [P(avg)] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_10x6_pavg_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}avg : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x6xf32>
func.func @m4_10x6_pavg_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

// 10x6 [P(max)] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_10x6_pmax_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}max : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x6xf32>
func.func @m4_10x6_pmax_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<max>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

// 10x6 [P(min)] -> [R]: all_reduce on tp.
// CHECK-LABEL: func.func @m4_10x6_pmin_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}min : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x6xf32>
func.func @m4_10x6_pmin_to_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<min>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
}

// 10x6 [P] -> [S(0)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m4_10x6_p_to_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 : tensor<10x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<?x6xf32>
func.func @m4_10x6_p_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
}

// 10x6 [P(avg)] -> [S(1)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m4_10x6_pavg_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x?xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh4 mesh_axes = [0] reduction = {{ *}}avg scatter_axis = 1 : tensor<10x6xf32> -> tensor<10x?xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<10x?xf32>
func.func @m4_10x6_pavg_to_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.partial<avg>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
}

// 10x6 [S(0)] -> [S(1)]: all_gather on tp, then chunk on tp.
// CHECK-LABEL: func.func @m4_10x6_s0_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x?xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh4 mesh_axes = [0] gather_axis = 0 : tensor<?x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[AG1]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x?xf32>
// CHECK-NEXT: return %[[CH2]] : tensor<10x?xf32>
func.func @m4_10x6_s0_to_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
}

// 10x6 [S(1)] -> [S(0)]: all_gather on tp, then chunk on tp.
// CHECK-LABEL: func.func @m4_10x6_s1_to_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x?xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh4 mesh_axes = [0] gather_axis = 1 : tensor<10x?xf32> -> tensor<10x6xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[AG1]] on @mesh4 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH2]] : tensor<?x6xf32>
func.func @m4_10x6_s1_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
}

// 10x6 [R] -> [S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m4_10x6_r_to_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH0]] : tensor<?x6xf32>
func.func @m4_10x6_r_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<0>]>
}

// 10x6 [R] -> [S(1)]: chunk on tp.
// CHECK-LABEL: func.func @m4_10x6_r_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x?xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh4 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x?xf32>
// CHECK-NEXT: return %[[CH0]] : tensor<10x?xf32>
func.func @m4_10x6_r_to_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh4, [#tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh4, [#tp.shard<1>]>
}

// -----

// A mesh of one rank: every change is free (no collective, no chunk).

tp.mesh @mesh1(shape = 1) {axis_names = ["tp"]}

// 8x16 [S(0)] -> [R]: nothing.
// CHECK-LABEL: func.func @m1_8x16_s0_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: return %[[X]] : tensor<8x16xf32>
func.func @m1_8x16_s0_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
}

// 8x16 [P] -> [R]: nothing.
// CHECK-LABEL: func.func @m1_8x16_p_to_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: return %[[X]] : tensor<8x16xf32>
func.func @m1_8x16_p_to_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.replicate]>
}

// 8x16 [P(max)] -> [S(1)]: nothing.
// CHECK-LABEL: func.func @m1_8x16_pmax_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: return %[[X]] : tensor<8x16xf32>
func.func @m1_8x16_pmax_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
}

// 8x16 [S(0)] -> [S(1)]: nothing.
// CHECK-LABEL: func.func @m1_8x16_s0_to_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: return %[[X]] : tensor<8x16xf32>
func.func @m1_8x16_s0_to_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh1, [#tp.shard<1>]>
}

// 10x6 [R] -> [S(0)]: nothing.
// CHECK-LABEL: func.func @m1_10x6_r_to_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: return %[[X]] : tensor<10x6xf32>
func.func @m1_10x6_r_to_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh1, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh1, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh1, [#tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh1, [#tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh1, [#tp.shard<0>]>
}

// -----

// 2x1x2: changes on the size-1 axis "pp" cost nothing; the other axes
// behave as on a 2x2 mesh.

tp.mesh @mesh2x1x2(shape = 2x1x2) {axis_names = ["dp", "pp", "tp"]}

// 8x16 [R, P, R] -> [R, R, R]: nothing.
// CHECK-LABEL: func.func @m2x1x2_8x16_r_p_r_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: return %[[X]] : tensor<8x16xf32>
func.func @m2x1x2_8x16_r_p_r_to_r_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 8x16 [R, S(0), R] -> [R, R, S(1)]: chunk on tp.
// CHECK-LABEL: func.func @m2x1x2_8x16_r_s0_r_to_r_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x1x2 mesh_axes = [2] axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[CH0]] : tensor<8x8xf32>
func.func @m2x1x2_8x16_r_s0_r_to_r_r_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
}

// 8x16 [S(0), S(0), R] -> [S(0), R, S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m2x1x2_8x16_s0_s0_r_to_s0_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x1x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x1x2 mesh_axes = [2] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<2x16xf32>
func.func @m2x1x2_8x16_s0_s0_r_to_s0_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

// 10x6 [S(0), P, S(0)] -> [S(0), R, R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x1x2_10x6_s0_p_s0_to_s0_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<?x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[AG0:.*]] = tp.all_gather %[[X]] on @mesh2x1x2 mesh_axes = [2] gather_axis = 0 : tensor<?x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[AG0]] : tensor<5x6xf32>
func.func @m2x1x2_10x6_s0_p_s0_to_s0_r_r(%x: tensor<?x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<?x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
}

// 10x6 [R, R, R] -> [S(1), S(1), S(1)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x1x2_10x6_r_r_r_to_s1_s1_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x?xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x1x2 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x1x2 mesh_axes = [2] axis = 1 : tensor<10x3xf32> -> tensor<10x?xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<10x?xf32>
func.func @m2x1x2_10x6_r_r_r_to_s1_s1_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<1>, #tp.shard<1>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.replicate, #tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<1>, #tp.shard<1>, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x1x2, [#tp.shard<1>, #tp.shard<1>, #tp.shard<1>]>
}

// -----

// 2x2 (dp, tp): a split is removed only on the innermost axis splitting its
// dim and added only where the earlier axes already match the target. Even 8x16; uneven 10x6 (10 over 2 is
// even, 5 over 2 is not: [S(0), S(0)] rows 3,2,3,2) and 6x6 ([S(0), S(0)]
// rows 2,1,2,1).

tp.mesh @mesh2x2(shape = 2x2) {axis_names = ["dp", "tp"]}

// 8x16 [S(0), R] -> [R, R]: all_gather on dp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_r_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x16xf32>
func.func @m2x2_8x16_s0_r_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [R, S(1)] -> [R, R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2_8x16_r_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x16xf32>
func.func @m2x2_8x16_r_s1_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [S(0), S(1)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<8x16xf32>
func.func @m2x2_8x16_s0_s1_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [S(1), S(0)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_8x16_s1_s0_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<8x16xf32>
func.func @m2x2_8x16_s1_s0_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [S(0), S(0)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_s0_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<8x16xf32>
func.func @m2x2_8x16_s0_s0_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [S(1), S(1)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_8x16_s1_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<8x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<8x16xf32>
func.func @m2x2_8x16_s1_s1_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [R, R] -> [S(0), S(0)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_8x16_r_r_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<2x16xf32>
func.func @m2x2_8x16_r_r_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 8x16 [R, R] -> [S(0), S(1)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_8x16_r_r_to_s0_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x8xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<4x8xf32>
func.func @m2x2_8x16_r_r_to_s0_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

// 8x16 [P, P] -> [R, R]: all_reduce on tp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_8x16_p_p_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<8x16xf32>
func.func @m2x2_8x16_p_p_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [P(avg), R] -> [R, R]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_8x16_pavg_r_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}avg : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x16xf32>
func.func @m2x2_8x16_pavg_r_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [R, P(max)] -> [R, R]: all_reduce on tp.
// CHECK-LABEL: func.func @m2x2_8x16_r_pmax_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}max : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x16xf32>
func.func @m2x2_8x16_r_pmax_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [P(min), P(min)] -> [R, R]: all_reduce on tp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_8x16_pmin_pmin_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}min : tensor<8x16xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}min : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<8x16xf32>
func.func @m2x2_8x16_pmin_pmin_to_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 8x16 [R, P] -> [R, S(0)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_8x16_r_p_to_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<4x16xf32>
func.func @m2x2_8x16_r_p_to_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

// 8x16 [P, R] -> [S(1), R]: reduce_scatter on dp.
// CHECK-LABEL: func.func @m2x2_8x16_p_r_to_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<8x8xf32>
func.func @m2x2_8x16_p_r_to_s1_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

// 8x16 [P, S(1)] -> [R, S(1)]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_8x16_p_s1_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x8xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<8x8xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x8xf32>
func.func @m2x2_8x16_p_s1_to_r_s1(%x: tensor<8x8xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<8x8xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 8x16 [S(0), P] -> [R, S(1)]: reduce_scatter on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_p_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x16xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RS0]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x8xf32>
func.func @m2x2_8x16_s0_p_to_r_s1(%x: tensor<4x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 8x16 [S(0), P] -> [S(0), S(1)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_p_to_s0_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x16xf32>) -> tensor<4x8xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<4x8xf32>
func.func @m2x2_8x16_s0_p_to_s0_s1(%x: tensor<4x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

// 8x16 [P, P] -> [S(1), S(0)]: reduce_scatter on dp, then reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_8x16_p_p_to_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x8xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[RS0]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[RS1]] : tensor<4x8xf32>
func.func @m2x2_8x16_p_p_to_s1_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

// 8x16 [S(0), R] -> [S(1), R]: all_to_all on dp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_r_to_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2 mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<8x8xf32>
func.func @m2x2_8x16_s0_r_to_s1_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

// 8x16 [R, S(0)] -> [R, S(1)]: all_to_all on tp.
// CHECK-LABEL: func.func @m2x2_8x16_r_s0_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2 mesh_axes = [1] split_axis = 1 concat_axis = 0 : tensor<4x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<8x8xf32>
func.func @m2x2_8x16_r_s0_to_r_s1(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 8x16 [S(0), S(1)] -> [S(0), S(0)]: all_to_all on tp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_s1_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[A2A2:.*]] = tp.all_to_all %[[CH1]] on @mesh2x2 mesh_axes = [1] split_axis = 0 concat_axis = 1 : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[A2A2]] : tensor<2x16xf32>
func.func @m2x2_8x16_s0_s1_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 8x16 [S(0), S(0)] -> [S(0), R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_s0_to_s0_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[AG2]] : tensor<4x16xf32>
func.func @m2x2_8x16_s0_s0_to_s0_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
}

// 8x16 [S(0), R] -> [S(0), S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_r_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<2x16xf32>
func.func @m2x2_8x16_s0_r_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 8x16 [R, S(0)] -> [S(0), S(0)]: all_gather on tp, then chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_8x16_r_s0_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[AG1]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[CH2]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<2x16xf32>
func.func @m2x2_8x16_r_s0_to_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 8x16 [S(0), S(0)] -> [R, S(0)]: all_gather on tp, then all_gather on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_8x16_s0_s0_to_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[CH4:.*]] = tp.chunk %[[AG3]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[CH4]] : tensor<4x16xf32>
func.func @m2x2_8x16_s0_s0_to_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

// 8x16 [S(1), S(1)] -> [S(1), S(0)]: all_to_all on tp.
// CHECK-LABEL: func.func @m2x2_8x16_s1_s1_to_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x8xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<8x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[A2A2:.*]] = tp.all_to_all %[[CH1]] on @mesh2x2 mesh_axes = [1] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[A2A2]] : tensor<4x8xf32>
func.func @m2x2_8x16_s1_s1_to_s1_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

// 10x6 [S(0), R] -> [R, R]: all_gather on dp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_r_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x6xf32>
func.func @m2x2_10x6_s0_r_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [R, S(1)] -> [R, R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2_10x6_r_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<10x3xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x6xf32>
func.func @m2x2_10x6_r_s1_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [S(0), S(1)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<5x3xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<10x6xf32>
func.func @m2x2_10x6_s0_s1_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [S(1), S(0)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_10x6_s1_s0_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<10x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<5x3xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 1 : tensor<10x3xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<10x6xf32>
func.func @m2x2_10x6_s1_s0_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [S(0), S(0)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_s0_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<?x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<10x6xf32>
func.func @m2x2_10x6_s0_s0_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [S(1), S(1)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_10x6_s1_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<10x3xf32> -> tensor<10x?xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<10x?xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 1 : tensor<10x3xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<10x6xf32>
func.func @m2x2_10x6_s1_s1_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [R, R] -> [S(0), S(0)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_10x6_r_r_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<?x6xf32>
func.func @m2x2_10x6_r_r_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 10x6 [R, R] -> [S(0), S(1)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_10x6_r_r_to_s0_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<5x3xf32>
func.func @m2x2_10x6_r_r_to_s0_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

// 10x6 [P, P] -> [R, R]: all_reduce on tp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_10x6_p_p_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<10x6xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<10x6xf32>
func.func @m2x2_10x6_p_p_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [P(avg), R] -> [R, R]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_10x6_pavg_r_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}avg : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x6xf32>
func.func @m2x2_10x6_pavg_r_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [R, P(max)] -> [R, R]: all_reduce on tp.
// CHECK-LABEL: func.func @m2x2_10x6_r_pmax_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}max : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x6xf32>
func.func @m2x2_10x6_r_pmax_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [P(min), P(min)] -> [R, R]: all_reduce on tp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_10x6_pmin_pmin_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}min : tensor<10x6xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}min : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<10x6xf32>
func.func @m2x2_10x6_pmin_pmin_to_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 10x6 [R, P] -> [R, S(0)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_10x6_r_p_to_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<5x6xf32>
func.func @m2x2_10x6_r_p_to_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

// 10x6 [P, R] -> [S(1), R]: reduce_scatter on dp.
// CHECK-LABEL: func.func @m2x2_10x6_p_r_to_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<10x3xf32>
func.func @m2x2_10x6_p_r_to_s1_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

// 10x6 [P, S(1)] -> [R, S(1)]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_10x6_p_s1_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x3xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<10x3xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x3xf32>
func.func @m2x2_10x6_p_s1_to_r_s1(%x: tensor<10x3xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<10x3xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 10x6 [S(0), P] -> [R, S(1)]: reduce_scatter on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_p_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x6xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RS0]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x3xf32> -> tensor<10x3xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x3xf32>
func.func @m2x2_10x6_s0_p_to_r_s1(%x: tensor<5x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<5x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 10x6 [S(0), P] -> [S(0), S(1)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_p_to_s0_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x6xf32>) -> tensor<5x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<5x3xf32>
func.func @m2x2_10x6_s0_p_to_s0_s1(%x: tensor<5x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<5x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

// 10x6 [P, P] -> [S(1), S(0)]: reduce_scatter on dp, then reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_10x6_p_p_to_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[RS0]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 0 : tensor<10x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT: return %[[RS1]] : tensor<5x3xf32>
func.func @m2x2_10x6_p_p_to_s1_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

// 10x6 [S(0), R] -> [S(1), R]: all_to_all on dp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_r_to_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2 mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<5x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<10x3xf32>
func.func @m2x2_10x6_s0_r_to_s1_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

// 10x6 [R, S(0)] -> [R, S(1)]: all_to_all on tp.
// CHECK-LABEL: func.func @m2x2_10x6_r_s0_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2 mesh_axes = [1] split_axis = 1 concat_axis = 0 : tensor<5x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<10x3xf32>
func.func @m2x2_10x6_r_s0_to_r_s1(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 10x6 [S(0), S(1)] -> [S(0), S(0)]: all_gather on tp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_s1_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<5x3xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[AG2]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<?x6xf32>
func.func @m2x2_10x6_s0_s1_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 10x6 [S(0), S(0)] -> [S(0), R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_s0_to_s0_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<?x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[AG2]] : tensor<5x6xf32>
func.func @m2x2_10x6_s0_s0_to_s0_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
}

// 10x6 [S(0), R] -> [S(0), S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_r_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<?x6xf32>
func.func @m2x2_10x6_s0_r_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 10x6 [R, S(0)] -> [S(0), S(0)]: all_gather on tp, then chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_10x6_r_s0_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[AG1]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[CH2]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<?x6xf32>
func.func @m2x2_10x6_r_s0_to_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 10x6 [S(0), S(0)] -> [R, S(0)]: all_gather on tp, then all_gather on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_10x6_s0_s0_to_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<?x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: %[[CH4:.*]] = tp.chunk %[[AG3]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[CH4]] : tensor<5x6xf32>
func.func @m2x2_10x6_s0_s0_to_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

// 10x6 [S(1), S(1)] -> [S(1), S(0)]: all_gather on tp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_10x6_s1_s1_to_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<10x3xf32> -> tensor<10x?xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<10x?xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[AG2]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<10x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<5x3xf32>
func.func @m2x2_10x6_s1_s1_to_s1_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

// 6x6 [S(0), R] -> [R, R]: all_gather on dp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_r_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<3x6xf32> -> tensor<6x6xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<6x6xf32>
func.func @m2x2_6x6_s0_r_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [R, S(1)] -> [R, R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2_6x6_r_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<6x3xf32> -> tensor<6x6xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<6x6xf32>
func.func @m2x2_6x6_r_s1_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [S(0), S(1)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<3x6xf32> -> tensor<3x3xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<3x3xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<3x6xf32> -> tensor<6x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<6x6xf32>
func.func @m2x2_6x6_s0_s1_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [S(1), S(0)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_6x6_s1_s0_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<6x3xf32> -> tensor<3x3xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<3x3xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 1 : tensor<6x3xf32> -> tensor<6x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<6x6xf32>
func.func @m2x2_6x6_s1_s0_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [S(0), S(0)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_s0_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<?x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<3x6xf32> -> tensor<6x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<6x6xf32>
func.func @m2x2_6x6_s0_s0_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [S(1), S(1)] -> [R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_6x6_s1_s1_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<6x3xf32> -> tensor<6x?xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<6x?xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 1 : tensor<6x3xf32> -> tensor<6x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<6x6xf32>
func.func @m2x2_6x6_s1_s1_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [R, R] -> [S(0), S(0)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_6x6_r_r_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<?x6xf32>
func.func @m2x2_6x6_r_r_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 6x6 [R, R] -> [S(0), S(1)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_6x6_r_r_to_s0_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<3x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<3x6xf32> -> tensor<3x3xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<3x3xf32>
func.func @m2x2_6x6_r_r_to_s0_s1(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

// 6x6 [P, P] -> [R, R]: all_reduce on tp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_6x6_p_p_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<6x6xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<6x6xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<6x6xf32>
func.func @m2x2_6x6_p_p_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [P(avg), R] -> [R, R]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_6x6_pavg_r_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}avg : tensor<6x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<6x6xf32>
func.func @m2x2_6x6_pavg_r_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [R, P(max)] -> [R, R]: all_reduce on tp.
// CHECK-LABEL: func.func @m2x2_6x6_r_pmax_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}max : tensor<6x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<6x6xf32>
func.func @m2x2_6x6_r_pmax_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<max>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [P(min), P(min)] -> [R, R]: all_reduce on tp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_6x6_pmin_pmin_to_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}min : tensor<6x6xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}min : tensor<6x6xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<6x6xf32>
func.func @m2x2_6x6_pmin_pmin_to_r_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<min>, #tp.partial<min>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.replicate]>
}

// 6x6 [R, P] -> [R, S(0)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_6x6_r_p_to_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<3x6xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<3x6xf32>
func.func @m2x2_6x6_r_p_to_r_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

// 6x6 [P, R] -> [S(1), R]: reduce_scatter on dp.
// CHECK-LABEL: func.func @m2x2_6x6_p_r_to_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<6x3xf32>
func.func @m2x2_6x6_p_r_to_s1_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

// 6x6 [P, S(1)] -> [R, S(1)]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2_6x6_p_s1_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x3xf32>) -> tensor<6x3xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<6x3xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<6x3xf32>
func.func @m2x2_6x6_p_s1_to_r_s1(%x: tensor<6x3xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<6x3xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 6x6 [S(0), P] -> [R, S(1)]: reduce_scatter on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_p_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x6xf32>) -> tensor<6x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<3x6xf32> -> tensor<3x3xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RS0]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<3x3xf32> -> tensor<6x3xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<6x3xf32>
func.func @m2x2_6x6_s0_p_to_r_s1(%x: tensor<3x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<3x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 6x6 [S(0), P] -> [S(0), S(1)]: reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_p_to_s0_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<3x6xf32>) -> tensor<3x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<3x6xf32> -> tensor<3x3xf32>
// CHECK-NEXT: return %[[RS0]] : tensor<3x3xf32>
func.func @m2x2_6x6_s0_p_to_s0_s1(%x: tensor<3x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<3x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
}

// 6x6 [P, P] -> [S(1), S(0)]: reduce_scatter on dp, then reduce_scatter on tp.
// CHECK-LABEL: func.func @m2x2_6x6_p_p_to_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<3x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[RS0]] on @mesh2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 0 : tensor<6x3xf32> -> tensor<3x3xf32>
// CHECK-NEXT: return %[[RS1]] : tensor<3x3xf32>
func.func @m2x2_6x6_p_p_to_s1_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

// 6x6 [S(0), R] -> [S(1), R]: all_to_all on dp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_r_to_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2 mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<3x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<6x3xf32>
func.func @m2x2_6x6_s0_r_to_s1_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.replicate]>
}

// 6x6 [R, S(0)] -> [R, S(1)]: all_to_all on tp.
// CHECK-LABEL: func.func @m2x2_6x6_r_s0_to_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<6x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2 mesh_axes = [1] split_axis = 1 concat_axis = 0 : tensor<3x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<6x3xf32>
func.func @m2x2_6x6_r_s0_to_r_s1(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<1>]>
}

// 6x6 [S(0), S(1)] -> [S(0), S(0)]: all_gather on tp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_s1_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<3x6xf32> -> tensor<3x3xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<3x3xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[AG2]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<?x6xf32>
func.func @m2x2_6x6_s0_s1_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 6x6 [S(0), S(0)] -> [S(0), R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_s0_to_s0_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<3x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<?x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: return %[[AG2]] : tensor<3x6xf32>
func.func @m2x2_6x6_s0_s0_to_s0_r(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
}

// 6x6 [S(0), R] -> [S(0), S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_r_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<?x6xf32>
func.func @m2x2_6x6_s0_r_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 6x6 [R, S(0)] -> [S(0), S(0)]: all_gather on tp, then chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_6x6_r_s0_to_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<3x6xf32> -> tensor<6x6xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[AG1]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[CH2]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<?x6xf32>
func.func @m2x2_6x6_r_s0_to_s0_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
}

// 6x6 [S(0), S(0)] -> [R, S(0)]: all_gather on tp, then all_gather on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_6x6_s0_s0_to_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<3x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 0 : tensor<?x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2 mesh_axes = [0] gather_axis = 0 : tensor<3x6xf32> -> tensor<6x6xf32>
// CHECK-NEXT: %[[CH4:.*]] = tp.chunk %[[AG3]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: return %[[CH4]] : tensor<3x6xf32>
func.func @m2x2_6x6_s0_s0_to_r_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.replicate, #tp.shard<0>]>
}

// 6x6 [S(1), S(1)] -> [S(1), S(0)]: all_gather on tp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2_6x6_s1_s1_to_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<6x6xf32>) -> tensor<3x3xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2 mesh_axes = [0] axis = 1 : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2 mesh_axes = [1] axis = 1 : tensor<6x3xf32> -> tensor<6x?xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2 mesh_axes = [1] gather_axis = 1 : tensor<6x?xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[AG2]] on @mesh2x2 mesh_axes = [1] axis = 0 : tensor<6x3xf32> -> tensor<3x3xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<3x3xf32>
func.func @m2x2_6x6_s1_s1_to_s1_s0(%x: tensor<6x6xf32>) -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x6xf32> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<1>]> -> !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<6x6xf32, @mesh2x2, [#tp.shard<1>, #tp.shard<0>]>
}

// -----

// 2x2x2 (dp, pp, tp): the same rules over three axes; 10x6 and 12x6 give
// uneven chunks on the inner axes.

tp.mesh @mesh2x2x2(shape = 2x2x2) {axis_names = ["dp", "pp", "tp"]}

// 8x16 [S(0), S(0), S(0)] -> [R, R, R]: all_gather on tp, then all_gather on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_s0_s0_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[CH1]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<2x16xf32> -> tensor<1x16xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[CH2]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<1x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG4:.*]] = tp.all_gather %[[AG3]] on @mesh2x2x2 mesh_axes = [1] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG5:.*]] = tp.all_gather %[[AG4]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG5]] : tensor<8x16xf32>
func.func @m2x2x2_8x16_s0_s0_s0_to_r_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 12x6 [S(0), S(0), S(0)] -> [R, R, R]: all_gather on tp, then all_gather on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_12x6_s0_s0_s0_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<12x6xf32>) -> tensor<12x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<12x6xf32> -> tensor<6x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [1] axis = 0 : tensor<6x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[CH1]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<3x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[CH2]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<?x6xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[AG4:.*]] = tp.all_gather %[[AG3]] on @mesh2x2x2 mesh_axes = [1] gather_axis = 0 : tensor<3x6xf32> -> tensor<6x6xf32>
// CHECK-NEXT: %[[AG5:.*]] = tp.all_gather %[[AG4]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<6x6xf32> -> tensor<12x6xf32>
// CHECK-NEXT: return %[[AG5]] : tensor<12x6xf32>
func.func @m2x2x2_12x6_s0_s0_s0_to_r_r_r(%x: tensor<12x6xf32>) -> !tp.dtensor<12x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<12x6xf32> -> !tp.dtensor<12x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<12x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<12x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<12x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 8x16 [S(0), R, S(0)] -> [R, R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_r_s0_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<8x16xf32>
func.func @m2x2x2_8x16_s0_r_s0_to_r_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 8x16 [R, R, R] -> [S(0), R, S(0)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_r_r_r_to_s0_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<2x16xf32>
func.func @m2x2x2_8x16_r_r_r_to_s0_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

// 8x16 [R, R, R] -> [S(0), S(0), S(0)]: chunk on dp, then chunk on pp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_r_r_r_to_s0_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<1x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [1] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[CH1]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<2x16xf32> -> tensor<1x16xf32>
// CHECK-NEXT: return %[[CH2]] : tensor<1x16xf32>
func.func @m2x2x2_8x16_r_r_r_to_s0_s0_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]>
}

// 8x16 [S(0), S(1), S(0)] -> [R, R, R]: all_gather on tp, then all_gather on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_s1_s0_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [1] axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[CH1]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[CH2]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[AG4:.*]] = tp.all_gather %[[AG3]] on @mesh2x2x2 mesh_axes = [1] gather_axis = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG5:.*]] = tp.all_gather %[[AG4]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG5]] : tensor<8x16xf32>
func.func @m2x2x2_8x16_s0_s1_s0_to_r_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 8x16 [P, P, P] -> [R, R, R]: all_reduce on tp, then all_reduce on pp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_p_p_p_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [2] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: %[[AR2:.*]] = tp.all_reduce %[[AR1]] on @mesh2x2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR2]] : tensor<8x16xf32>
func.func @m2x2x2_8x16_p_p_p_to_r_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 8x16 [R, R, P(avg)] -> [R, R, R]: all_reduce on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_r_r_pavg_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [2] reduction = {{ *}}avg : tensor<8x16xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<8x16xf32>
func.func @m2x2x2_8x16_r_r_pavg_to_r_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.partial<avg>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 8x16 [S(0), R, P] -> [R, R, S(1)]: reduce_scatter on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_r_p_to_r_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x16xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2x2 mesh_axes = [2] reduction = {{ *}}sum scatter_axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RS0]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x8xf32>
func.func @m2x2x2_8x16_s0_r_p_to_r_r_s1(%x: tensor<4x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
}

// 8x16 [S(0), P, R] -> [R, S(1), R]: reduce_scatter on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_p_r_to_r_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x16xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RS0]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x8xf32>
func.func @m2x2x2_8x16_s0_p_r_to_r_s1_r(%x: tensor<4x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<4x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]>
}

// 8x16 [S(0), P, S(1)] -> [R, R, S(1)]: all_reduce on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_p_s1_to_r_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>) -> tensor<8x8xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<4x8xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[AR0]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<8x8xf32>
func.func @m2x2x2_8x16_s0_p_s1_to_r_r_s1(%x: tensor<4x8xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<4x8xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
}

// 8x16 [P, S(1), S(0)] -> [R, S(1), S(0)]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2x2_8x16_p_s1_s0_to_r_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<4x8xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<4x8xf32>
func.func @m2x2x2_8x16_p_s1_s0_to_r_s1_s0(%x: tensor<4x8xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<4x8xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.shard<0>]>
}

// 8x16 [S(0), R, S(0)] -> [S(0), R, R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_r_s0_to_s0_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[AG2]] : tensor<4x16xf32>
func.func @m2x2x2_8x16_s0_r_s0_to_s0_r_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
}

// 8x16 [S(0), R, R] -> [S(0), R, S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_r_r_to_s0_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<2x16xf32>
func.func @m2x2x2_8x16_s0_r_r_to_s0_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

// 8x16 [R, R, S(0)] -> [S(0), R, S(0)]: all_gather on tp, then chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_r_r_s0_to_s0_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<2x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[AG1]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[CH2]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<2x16xf32>
func.func @m2x2x2_8x16_r_r_s0_to_s0_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

// 8x16 [S(0), R, S(0)] -> [R, R, S(0)]: all_gather on tp, then all_gather on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_s0_r_s0_to_r_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[CH4:.*]] = tp.chunk %[[AG3]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[CH4]] : tensor<4x16xf32>
func.func @m2x2x2_8x16_s0_r_s0_to_r_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
}

// 8x16 [R, S(1), R] -> [R, S(0), R]: all_to_all on pp.
// CHECK-LABEL: func.func @m2x2x2_8x16_r_s1_r_to_r_s0_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [1] axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2x2 mesh_axes = [1] split_axis = 0 concat_axis = 1 : tensor<8x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<4x16xf32>
func.func @m2x2x2_8x16_r_s1_r_to_r_s0_r(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]>
}

// 8x16 [R, R, S(1)] -> [R, R, S(0)]: all_to_all on tp.
// CHECK-LABEL: func.func @m2x2x2_8x16_r_r_s1_to_r_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [2] axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2x2 mesh_axes = [2] split_axis = 0 concat_axis = 1 : tensor<8x8xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<4x16xf32>
func.func @m2x2x2_8x16_r_r_s1_to_r_r_s0(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
}

// 10x6 [S(0), R, S(0)] -> [R, R, R]: all_gather on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_r_s0_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<?x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG3]] : tensor<10x6xf32>
func.func @m2x2x2_10x6_s0_r_s0_to_r_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 10x6 [R, R, R] -> [S(0), R, S(0)]: chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_r_r_r_to_s0_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<?x6xf32>
func.func @m2x2x2_10x6_r_r_r_to_s0_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

// 10x6 [R, R, R] -> [S(0), S(0), S(0)]: chunk on dp, then chunk on pp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_r_r_r_to_s0_s0_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [1] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[CH1]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<?x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH2]] : tensor<?x6xf32>
func.func @m2x2x2_10x6_r_r_r_to_s0_s0_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<0>, #tp.shard<0>]>
}

// 10x6 [S(0), S(1), S(0)] -> [R, R, R]: all_gather on tp, then all_gather on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_s1_s0_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [1] axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[CH1]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<5x3xf32> -> tensor<?x3xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[CH2]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<?x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[AG4:.*]] = tp.all_gather %[[AG3]] on @mesh2x2x2 mesh_axes = [1] gather_axis = 1 : tensor<5x3xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG5:.*]] = tp.all_gather %[[AG4]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: return %[[AG5]] : tensor<10x6xf32>
func.func @m2x2x2_10x6_s0_s1_s0_to_r_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 10x6 [P, P, P] -> [R, R, R]: all_reduce on tp, then all_reduce on pp, then all_reduce on dp.
// CHECK-LABEL: func.func @m2x2x2_10x6_p_p_p_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [2] reduction = {{ *}}sum : tensor<10x6xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[AR0]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<10x6xf32>
// CHECK-NEXT: %[[AR2:.*]] = tp.all_reduce %[[AR1]] on @mesh2x2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR2]] : tensor<10x6xf32>
func.func @m2x2x2_10x6_p_p_p_to_r_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 10x6 [R, R, P(avg)] -> [R, R, R]: all_reduce on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_r_r_pavg_to_r_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<10x6xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [2] reduction = {{ *}}avg : tensor<10x6xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<10x6xf32>
func.func @m2x2x2_10x6_r_r_pavg_to_r_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]> {
  %d = tp.from_local %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.partial<avg>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.partial<avg>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.replicate]>
}

// 10x6 [S(0), R, P] -> [R, R, S(1)]: reduce_scatter on tp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_r_p_to_r_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x6xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2x2 mesh_axes = [2] reduction = {{ *}}sum scatter_axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RS0]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x3xf32> -> tensor<10x3xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x3xf32>
func.func @m2x2x2_10x6_s0_r_p_to_r_r_s1(%x: tensor<5x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<5x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
}

// 10x6 [S(0), P, R] -> [R, S(1), R]: reduce_scatter on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_p_r_to_r_s1_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x6xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[RS0:.*]] = tp.reduce_scatter %[[X]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 1 : tensor<5x6xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RS0]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x3xf32> -> tensor<10x3xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x3xf32>
func.func @m2x2x2_10x6_s0_p_r_to_r_s1_r(%x: tensor<5x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<5x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]>
}

// 10x6 [S(0), P, S(1)] -> [R, R, S(1)]: all_reduce on pp, then all_gather on dp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_p_s1_to_r_r_s1(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x3xf32>) -> tensor<10x3xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<5x3xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[AR0]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x3xf32> -> tensor<10x3xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<10x3xf32>
func.func @m2x2x2_10x6_s0_p_s1_to_r_r_s1(%x: tensor<5x3xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> {
  %d = tp.from_local %x : tensor<5x3xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.partial<sum>, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
}

// 10x6 [P, S(1), S(0)] -> [R, S(1), S(0)]: all_reduce on dp.
// CHECK-LABEL: func.func @m2x2x2_10x6_p_s1_s0_to_r_s1_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<5x3xf32>) -> tensor<5x3xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [0] reduction = {{ *}}sum : tensor<5x3xf32>
// CHECK-NEXT: return %[[AR0]] : tensor<5x3xf32>
func.func @m2x2x2_10x6_p_s1_s0_to_r_s1_s0(%x: tensor<5x3xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.shard<0>]> {
  %d = tp.from_local %x : tensor<5x3xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.shard<1>, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.shard<1>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.shard<0>]>
}

// 10x6 [S(0), R, S(0)] -> [S(0), R, R]: all_gather on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_r_s0_to_s0_r_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<?x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[AG2]] : tensor<5x6xf32>
func.func @m2x2x2_10x6_s0_r_s0_to_s0_r_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
}

// 10x6 [S(0), R, R] -> [S(0), R, S(0)]: chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_r_r_to_s0_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH1]] : tensor<?x6xf32>
func.func @m2x2x2_10x6_s0_r_r_to_s0_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

// 10x6 [R, R, S(0)] -> [S(0), R, S(0)]: all_gather on tp, then chunk on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_r_r_s0_to_s0_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<?x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[CH0]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: %[[CH2:.*]] = tp.chunk %[[AG1]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH3:.*]] = tp.chunk %[[CH2]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: return %[[CH3]] : tensor<?x6xf32>
func.func @m2x2x2_10x6_r_r_s0_to_s0_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
}

// 10x6 [S(0), R, S(0)] -> [R, R, S(0)]: all_gather on tp, then all_gather on dp, then chunk on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_s0_r_s0_to_r_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [0] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[CH1:.*]] = tp.chunk %[[CH0]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<5x6xf32> -> tensor<?x6xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[CH1]] on @mesh2x2x2 mesh_axes = [2] gather_axis = 0 : tensor<?x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[AG3:.*]] = tp.all_gather %[[AG2]] on @mesh2x2x2 mesh_axes = [0] gather_axis = 0 : tensor<5x6xf32> -> tensor<10x6xf32>
// CHECK-NEXT: %[[CH4:.*]] = tp.chunk %[[AG3]] on @mesh2x2x2 mesh_axes = [2] axis = 0 : tensor<10x6xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[CH4]] : tensor<5x6xf32>
func.func @m2x2x2_10x6_s0_r_s0_to_r_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
}

// 10x6 [R, S(1), R] -> [R, S(0), R]: all_to_all on pp.
// CHECK-LABEL: func.func @m2x2x2_10x6_r_s1_r_to_r_s0_r(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [1] axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2x2 mesh_axes = [1] split_axis = 0 concat_axis = 1 : tensor<10x3xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<5x6xf32>
func.func @m2x2x2_10x6_r_s1_r_to_r_s0_r(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<1>, #tp.replicate]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.shard<0>, #tp.replicate]>
}

// 10x6 [R, R, S(1)] -> [R, R, S(0)]: all_to_all on tp.
// CHECK-LABEL: func.func @m2x2x2_10x6_r_r_s1_to_r_r_s0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<10x6xf32>) -> tensor<5x6xf32> attributes
// CHECK-NEXT: %[[CH0:.*]] = tp.chunk %[[X]] on @mesh2x2x2 mesh_axes = [2] axis = 1 : tensor<10x6xf32> -> tensor<10x3xf32>
// CHECK-NEXT: %[[A2A1:.*]] = tp.all_to_all %[[CH0]] on @mesh2x2x2 mesh_axes = [2] split_axis = 0 concat_axis = 1 : tensor<10x3xf32> -> tensor<5x6xf32>
// CHECK-NEXT: return %[[A2A1]] : tensor<5x6xf32>
func.func @m2x2x2_10x6_r_r_s1_to_r_r_s0(%x: tensor<10x6xf32>) -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]> {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]>
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<1>]> -> !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
  return %r : !tp.dtensor<10x6xf32, @mesh2x2x2, [#tp.replicate, #tp.replicate, #tp.shard<0>]>
}
// -----

// Shard -> Partial is rejected on every mesh shape, naming the mesh axis
// (and the module the redistribution serves) and what to do instead;
// Partial(a) -> Partial(b) goes through Replicate.
tp.mesh @mesh4(shape = 4) {axis_names = ["tp"]}
func.func @shard_to_partial_1d(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]>
  // expected-error @below {{cannot redistribute Shard(1) to Partial(min) on mesh axis tp (in 'net1'): DTensor does not support Shard -> Partial; redistribute to Replicate() first}}
  %r = tp.redistribute %d {module = "net1"} : !tp.dtensor<8x16xf32, @mesh4, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh4, [#tp.partial<min>]>
  return
}

// -----

tp.mesh @mesh2x2(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @shard_to_partial_2x2(%x: tensor<10x6xf32>) {
  %d = tp.distribute %x : tensor<10x6xf32> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]>
  // expected-error @below {{cannot redistribute Shard(0) to Partial() on mesh axis tp: DTensor does not support Shard -> Partial; redistribute to Replicate() first}}
  %r = tp.redistribute %d : !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.shard<0>]> -> !tp.dtensor<10x6xf32, @mesh2x2, [#tp.shard<0>, #tp.partial<sum>]>
  return
}

// -----

// The other axes do not matter: the first axis made Partial from a shard is
// named.
tp.mesh @mesh2x2(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @shard_to_partial_first_axis_2x2(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.partial<sum>]>
  // expected-error @below {{cannot redistribute Shard(1) to Partial(avg) on mesh axis dp: DTensor does not support Shard -> Partial; redistribute to Replicate() first}}
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.shard<1>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<avg>, #tp.replicate]>
  return
}

// -----

tp.mesh @mesh2x2x2(shape = 2x2x2) {axis_names = ["dp", "pp", "tp"]}
func.func @shard_to_partial_2x2x2(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]>
  // expected-error @below {{cannot redistribute Shard(0) to Partial(avg) on mesh axis tp: DTensor does not support Shard -> Partial; redistribute to Replicate() first}}
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.shard<0>, #tp.replicate, #tp.partial<avg>]>
  return
}

// -----

// 8x16 [P, P, P] -> [P, P(max), P] on 2x2x2: all_reduce(sum) on pp, then
// the local op on pp; the other axes stay partial sums.
tp.mesh @mesh2x2x2(shape = 2x2x2) {axis_names = ["dp", "pp", "tp"]}
// CHECK-LABEL: func.func @partial_sum_to_max_2x2x2(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}sum : tensor<8x16xf32>
// CHECK-NEXT: %[[P1:.*]] = tp.partial_from_replicate %[[AR0]] on @mesh2x2x2 mesh_axes = [1] reduction = {{ *}}max : tensor<8x16xf32>
// CHECK-NEXT: return %[[P1]] : tensor<8x16xf32>
func.func @partial_sum_to_max_2x2x2(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<max>, #tp.partial<sum>]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<sum>, #tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<max>, #tp.partial<sum>]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2x2, [#tp.partial<sum>, #tp.partial<max>, #tp.partial<sum>]>
}

// 8x16 [P(max), R] -> [P(min), R] on 2x2: all_reduce(max), then the local op.
tp.mesh @mesh2x2(shape = 2x2) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @partial_max_to_min_2x2(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes
// CHECK-NEXT: %[[AR0:.*]] = tp.all_reduce %[[X]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}max : tensor<8x16xf32>
// CHECK-NEXT: %[[P1:.*]] = tp.partial_from_replicate %[[AR0]] on @mesh2x2 mesh_axes = [0] reduction = {{ *}}min : tensor<8x16xf32>
// CHECK-NEXT: return %[[P1]] : tensor<8x16xf32>
func.func @partial_max_to_min_2x2(%x: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.replicate]> {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<max>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<max>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.replicate]>
  return %r : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.replicate]>
}
