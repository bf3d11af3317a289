// RUN: tp-opt %s -split-input-file -tp-partition -verify-diagnostics | FileCheck %s

// tp-partition: one SPMD function per model function, on local types, with
// modules inlined, parameters chunked locally and the distributed results'
// global types kept in tp.result_types.

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

// Composite modules are inlined; dtensors become this rank's local tensors;
// tp.distribute of a parameter becomes a local tp.chunk; to_local/from_local
// pairs disappear, leaving the collective.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-SAME: attributes {tp.spmd}
// CHECK-NOT: model.module
// CHECK-NOT: model.yield
// CHECK: %[[W1:.*]] = model.param "mlp.net1.weight" : tensor<32x8xf32>
// CHECK-NEXT: %[[W1L:.*]] = tp.chunk %[[W1]] on @mesh mesh_axes = [0] axis = 0 {module = "mlp.net1"} : tensor<32x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[H:.*]] = model.linear "mlp.net1"(%[[X]], %[[W1L]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = model.relu %[[H]] : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[W2:.*]] = model.param "mlp.net2.weight" : tensor<8x32xf32>
// CHECK-NEXT: %[[W2L:.*]] = tp.chunk %[[W2]] on @mesh mesh_axes = [0] axis = 1 {module = "mlp.net2"} : tensor<8x32xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[P:.*]] = model.linear "mlp.net2"(%[[R]], %[[W2L]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = tp.all_reduce %[[P]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "mlp.net2"} : tensor<4x8xf32>
// CHECK-NEXT: %[[Z:.*]] = model.relu %[[X]]
// CHECK-NEXT: return %[[S]], %[[Z]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NOT: tp.to_local
// CHECK-NOT: tp.from_local
func.func @forward(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %y = model.module "mlp"(%x) {kind = "FeedForward"} : (tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> {
  ^bb0(%a: tensor<4x8xf32>):
    %w1 = model.param "mlp.net1.weight" : tensor<32x8xf32>
    %dw1 = tp.distribute %w1 {module = "mlp.net1"} : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>
    %h = model.linear "mlp.net1"(%a, %dw1) : (tensor<4x8xf32>, !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>
    %r = model.relu %h : (!tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>
    %w2 = model.param "mlp.net2.weight" : tensor<8x32xf32>
    %dw2 = tp.distribute %w2 {module = "mlp.net2"} : tensor<8x32xf32> -> !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>
    %p = model.linear "mlp.net2"(%r, %dw2) : (!tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
    %l = tp.to_local %p : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> tensor<4x8xf32>
    %s = tp.all_reduce %l on @mesh mesh_axes = [0] reduction = sum {module = "mlp.net2"} : tensor<4x8xf32>
    %o = tp.from_local %s : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
    model.yield %o : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  }
  %ly = tp.to_local %y : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> -> tensor<4x8xf32>
  %z = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %ly, %z : tensor<4x8xf32>, tensor<4x8xf32>
}

// A result that stays distributed has its local type in the signature and
// its global type in tp.result_types.
// CHECK-LABEL: func.func @distributed_result
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-SAME: attributes {tp.result_types = [!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// CHECK-NEXT: %[[C:.*]] = tp.chunk %[[X]] on @mesh mesh_axes = [0] axis = 0 : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT: %[[G:.*]] = model.gelu %[[C]] : (tensor<1x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: return %[[G]] : tensor<1x8xf32>
func.func @distributed_result(%x: tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  %r = model.gelu %d : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
}

// Replicated and plain results are listed too when another one is
// distributed, so the list lines up with the results.
// CHECK-LABEL: func.func @mixed_results
// CHECK-SAME: -> (tensor<4x2xf32>, tensor<4x8xf32>)
// CHECK-SAME: tp.result_types = [!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<4x8xf32>]
func.func @mixed_results(%x: tensor<4x8xf32>) -> (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<4x8xf32>) {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  return %d, %x : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<4x8xf32>
}

// A vocabulary-sharded embedding becomes the lookup that knows which rows
// its local weight holds: the mesh axes and the full vocabulary.
// CHECK-LABEL: func.func @vocab_shard
// CHECK: %[[WL:.*]] = tp.chunk %{{.*}} on @mesh mesh_axes = [0] axis = 0 : tensor<32x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: tp.sharded_embedding %{{.*}}, %[[WL]] on @mesh mesh_axes = [0] vocab_size = 32 {module = "tok_embeddings"} : (tensor<2x4xi64>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NOT: model.embedding
func.func @vocab_shard(%ids: tensor<2x4xi64>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]> {
  %w = model.param "tok_embeddings.weight" : tensor<32x8xf32>
  %dw = tp.distribute %w : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>
  %e = model.embedding "tok_embeddings"(%ids, %dw) : (tensor<2x4xi64>, !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
  return %e : !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
}

// Uneven shards (6 rows over 4 ranks: 2, 2, 2, 0) have dynamic local dims;
// an op whose result is one keeps its largest shape over the ranks
// (tp.local_bound, rank 0's), which the executor's memory plan counts.
// CHECK-LABEL: func.func @uneven
// CHECK-SAME: -> tensor<?x8xf32>
// CHECK-SAME: tp.result_types = [!tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>]
// CHECK-NEXT: %[[C:.*]] = tp.chunk %{{.*}} on @mesh mesh_axes = [0] axis = 0 : tensor<6x8xf32> -> tensor<?x8xf32>
// CHECK-NEXT: model.gelu %[[C]] {tp.local_bound = array<i64: 2, 8>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
func.func @uneven(%x: tensor<6x8xf32>) -> !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x8xf32> -> !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>
  %r = model.gelu %d : (!tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>
}

// -----

// A 3-D mesh: parameters are chunked axis by axis, in mesh order; size-1
// axes need no chunk.
tp.mesh @mesh(shape = 2x2x1) {axis_names = ["dp", "tp", "pp"]}
// CHECK-LABEL: func.func @mesh_3d
// CHECK-NEXT: %[[W:.*]] = model.param "w" : tensor<8x16xf32>
// CHECK-NEXT: %[[C0:.*]] = tp.chunk %[[W]] on @mesh mesh_axes = [0] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[C0]] on @mesh mesh_axes = [1] axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[C1]] : tensor<4x8xf32>
func.func @mesh_3d() -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]> {
  %w = model.param "w" : tensor<8x16xf32>
  %d = tp.distribute %w : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]>
  return %d : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>, #tp.shard<0>]>
}

// -----

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @leftover_redistribute(%x: tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  // expected-error @below {{tp-partition: tp.redistribute is not lowered yet; run tp-lower-redistribute first}}
  %r = tp.redistribute %d : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
}

// -----

// A distributed argument (a model input declared Shard(d)) arrives as this
// rank's piece: the SPMD function takes the local type, uneven dims
// dynamic, and tp.arg_types keeps every argument's global type for the
// runtime to cut the inputs.
tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @dtensor_argument
// CHECK-SAME: (%[[X:.*]]: tensor<1x8xf32>, %[[U:.*]]: tensor<?x8xf32>, %[[R:.*]]: tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-SAME: tp.arg_types = [!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>, tensor<4x8xf32>]
// CHECK-NEXT: return %[[X]] : tensor<1x8xf32>
func.func @dtensor_argument(%x: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>, %u: !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>, %r: tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> {
  return %x : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
}

// -----

// A replicated tensor distributed as Partial: the local op per axis of more
// than one rank (the size-1 "pp" axis needs nothing), in mesh order with the
// chunks; the shape only changes where a chunk is taken.
tp.mesh @mesh(shape = 2x2x1) {axis_names = ["dp", "tp", "pp"]}
// CHECK-LABEL: func.func @distribute_partial
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[S:.*]] = tp.chunk %[[X]] on @mesh mesh_axes = [0] axis = 0 {module = "net3"} : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[P:.*]] = tp.partial_from_replicate %[[S]] on @mesh mesh_axes = [1] reduction = {{ *}}sum {module = "net3"} : tensor<2x8xf32>
// CHECK-NEXT: %[[M:.*]] = tp.partial_from_replicate %[[X]] on @mesh mesh_axes = [0] reduction = {{ *}}max : tensor<4x8xf32>
// CHECK-NEXT: return %[[P]], %[[M]] : tensor<2x8xf32>, tensor<4x8xf32>
func.func @distribute_partial(%x: tensor<4x8xf32>) -> (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>, #tp.partial<avg>]>, !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>, #tp.replicate, #tp.replicate]>) {
  %d = tp.distribute %x {module = "net3"} : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>, #tp.partial<avg>]>
  %m = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>, #tp.replicate, #tp.replicate]>
  return %d, %m : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>, #tp.partial<sum>, #tp.partial<avg>]>, !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>, #tp.replicate, #tp.replicate]>
}

// -----

// Dropouts in training on a shard become tp.sharded_dropout (and _grad),
// which carry the global shape and the shard dim of each mesh axis: a rank
// finds its slice of the global mask from them and its coordinates. A dim
// split by both axes (10 rows: nested uneven chunks) is dynamic. Training
// dropouts on a tensor no axis shards, and dropouts in eval, stay model ops.
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @training_dropouts
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x16xf32>, %[[U:.*]]: tensor<?x8xf32>, %[[R:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[Y:.*]] = tp.sharded_dropout "drop"(%[[X]]) on @mesh shard_dims = [-1, 1] global_shape = [2, 8, 16] {p = 1.000000e-01 : f64} : tensor<2x4x16xf32>
// CHECK-NEXT: %[[G:.*]] = tp.sharded_dropout_grad "drop"(%[[Y]]) on @mesh shard_dims = [-1, 1] global_shape = [2, 8, 16] {p = 1.000000e-01 : f64} : tensor<2x4x16xf32>
// CHECK-NEXT: tp.sharded_dropout "nested"(%[[U]]) on @mesh shard_dims = [0, 0] global_shape = [10, 8] {p = 5.000000e-01 : f64} : tensor<?x8xf32>
// CHECK-NEXT: model.dropout "whole"(%[[R]]) {p = 1.000000e-01 : f64, train} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: model.dropout "eval"(%[[X]]) {p = 1.000000e-01 : f64} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
func.func @training_dropouts(%x: !tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>, %u: !tp.dtensor<10x8xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>, %r: !tp.dtensor<4x8xf32, @mesh, [#tp.replicate, #tp.partial<sum>]>) -> !tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]> {
  %y = model.dropout "drop"(%x) {p = 0.1 : f64, train} : (!tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>) -> !tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
  %g = model.dropout_grad "drop"(%y) {p = 0.1 : f64} : (!tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>) -> !tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
  %n = model.dropout "nested"(%u) {p = 0.5 : f64, train} : (!tp.dtensor<10x8xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<10x8xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>
  %w = model.dropout "whole"(%r) {p = 0.1 : f64, train} : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate, #tp.partial<sum>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate, #tp.partial<sum>]>
  %e = model.dropout "eval"(%x) {p = 0.1 : f64} : (!tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>) -> !tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
  return %g : !tp.dtensor<2x8x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
}

// -----

// A layout inside a loop: only the function's body is rewritten, so the
// function would be marked partitioned with the loop's layouts left.
tp.mesh @mesh(shape = 2)
func.func @layout_in_loop(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %x) -> tensor<4x8xf32> {
    // expected-error @+1 {{tp-partition: tp.distribute inside scf.for works on distributed tensors; tp-partition partitions the function's body, not nested regions}}
    %d = tp.distribute %a : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
    %l = tp.to_local %d : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> -> tensor<4x8xf32>
    scf.yield %l : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// A cross entropy over rows split on both axes of a 2x2 mesh divides each
// rank's sum by a global count. Targets that only the loss reads may hold
// -100 (ignore_index): the count is of the rows not ignored, each rank's
// model.valid_rows summed by one scalar all_reduce over the axes that split
// the rows, built where the targets are (so it overlaps the forward) and
// shared by the loss and its gradient.
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @ignored_rows
// CHECK-SAME: (%[[L:.*]]: tensor<2x16xf32>, %[[T:.*]]: tensor<2xi64>)
// CHECK-NEXT: %[[OWN:.*]] = model.valid_rows %[[T]] : (tensor<2xi64>) -> tensor<f32>
// CHECK-NEXT: %[[N:.*]] = tp.all_reduce %[[OWN]] on @mesh mesh_axes = [0, 1] reduction = sum : tensor<f32>
// CHECK-NEXT: %[[LOSS:.*]] = model.cross_entropy %[[L]], %[[T]], %[[N]] : (tensor<2x16xf32>, tensor<2xi64>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[ONE:.*]] = model.full
// CHECK-NEXT: %[[G:.*]] = model.cross_entropy_grad %[[ONE]], %[[L]], %[[T]], %[[N]] : (tensor<f32>, tensor<2x16xf32>, tensor<2xi64>, tensor<f32>) -> tensor<2x16xf32>
// CHECK-NEXT: return %[[LOSS]], %[[G]]
func.func @ignored_rows(%l: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>, %t: !tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.shard<0>]>) -> (!tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.partial<sum>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>) {
  %loss = model.cross_entropy %l, %t : (!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>, !tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.partial<sum>]>
  %one = model.full 1.0 : tensor<f32>
  %g = model.cross_entropy_grad %one, %l, %t : (tensor<f32>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>, !tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>
  return %loss, %g : !tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.partial<sum>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>
}

// Rows split on dp only: the all_reduce is over dp.
// CHECK-LABEL: func.func @ignored_rows_dp
// CHECK-NEXT: model.valid_rows %{{.*}} : (tensor<4xi64>) -> tensor<f32>
// CHECK-NEXT: tp.all_reduce %{{.*}} on @mesh mesh_axes = [0] reduction = sum : tensor<f32>
func.func @ignored_rows_dp(%l: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]>, %t: !tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.replicate]>) -> !tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.replicate]> {
  %loss = model.cross_entropy %l, %t : (!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]>, !tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.replicate]>) -> !tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.replicate]>
  return %loss : !tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.replicate]>
}

// Targets an embedding reads too (a language model's shifted tokens) are
// ids in the vocabulary, never -100: the divisor is the global row count,
// with no communication.
// CHECK-LABEL: func.func @embedded_targets
// CHECK-NOT: model.valid_rows
// CHECK-NOT: tp.all_reduce
// CHECK: model.cross_entropy %{{.*}}, %{{.*}} {count = 8 : i64} : (tensor<2x16xf32>, tensor<2xi64>) -> tensor<f32>
func.func @embedded_targets(%l: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>, %t: !tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.shard<0>]>) -> (!tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.partial<sum>]>, !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>) {
  %w = model.param "emb.weight" : tensor<16x4xf32>
  %e = model.embedding "emb"(%t, %w) : (!tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.shard<0>]>, tensor<16x4xf32>) -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>
  %loss = model.cross_entropy %l, %t : (!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>, !tp.dtensor<8xi64, @mesh, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.partial<sum>]>
  return %loss, %e : !tp.dtensor<f32, @mesh, [#tp.partial<sum>, #tp.partial<sum>]>, !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.shard<0>]>
}
