// RUN: tp-opt %s -split-input-file --tp-pipeline -verify-diagnostics | FileCheck %s
// RUN: tp-opt %s -split-input-file --tp-apply-plan --tp-lower-styles -verify-diagnostics | FileCheck %s --check-prefix=STYLES
// RUN: tp-opt %S/Inputs/styles-legacy.mlir --tp-pipeline="plan=%S/Inputs/styles-legacy.json" 2>/dev/null | FileCheck %s --check-prefix=LEGACY
// RUN: tp-opt %S/Inputs/styles-legacy.mlir --tp-pipeline="plan=%S/Inputs/styles-legacy.json" 2>&1 >/dev/null | FileCheck %s --check-prefix=LEGACY-WARN

// What each parallel style lowers to, one case per style and argument
// (DESIGN 4.1 and 4.2), through the whole pipeline (prefix CHECK, the SPMD
// function with its chunks and collectives, 4 ranks unless said otherwise)
// and, where the pipeline optimizes the style's own ops away, through
// tp-apply-plan and tp-lower-styles alone (prefix STYLES, the tp.distribute /
// tp.redistribute ops). Plans are inline tp.plan attributes; the seed's
// legacy API as written in plan files (the nine _prepare_input /
// _prepare_output functions, PairwiseParallel and the seed's
// SequenceParallel) is at the end (prefixes LEGACY and LEGACY-WARN), on
// Inputs/styles-legacy.mlir with Inputs/styles-legacy.json.

//===----------------------------------------------------------------------===//
// ColwiseParallel
//===----------------------------------------------------------------------===//

// Colwise on a linear with bias (defaults: input Replicate, output Shard(-1)):
// weight and bias are chunked on dim 0, the input is used as is, and the
// output stays sharded on its last dim (local 4x4, global type kept in
// tp.result_types). No communication.
// CHECK-LABEL: func.func @colwise_linear(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>) -> (tensor<4x4xf32> {tp.local}) attributes {tp.result_types = [!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "net1.bias" : tensor<16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[X]], %[[C1]], %[[C2]]) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[GELU1:.*]] = model.gelu %[[LIN1]] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %[[GELU1]] : tensor<4x4xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_linear(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %b = model.param "net1.bias" : tensor<16xf32>
    %y = model.linear "net1"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %r = model.gelu %y : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %r : tensor<4x16xf32>
  }
}

// -----

// Colwise on an embedding: the weight is chunked on its embedding dim (1) and
// the output is Shard(-1) = Shard(2). No communication.
// CHECK-LABEL: func.func @colwise_embedding(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x4xi64>) -> (tensor<2x4x2xf32> {tp.local}) attributes {tp.result_types = [!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "tok_embeddings.weight" : tensor<32x8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "tok_embeddings"} : tensor<32x8xf32> -> tensor<32x2xf32>
// CHECK-NEXT: %[[EMB1:.*]] = model.embedding "tok_embeddings"(%[[X]], %[[C1]]) : (tensor<2x4xi64>, tensor<32x2xf32>) -> tensor<2x4x2xf32>
// CHECK-NEXT: return %[[EMB1]] : tensor<2x4x2xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["tok_embeddings"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_embedding(%ids: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
    %w = model.param "tok_embeddings.weight" : tensor<32x8xf32>
    %y = model.embedding "tok_embeddings"(%ids, %w) : (tensor<2x4xi64>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }
}

// -----

// input_layouts = Shard(0) on a model input: the input arrives as each
// rank's Shard(0) (DTensor.from_local; the function's argument type says so,
// STYLES) and is all-gathered to the Replicate Colwise needs, as in PyTorch.
// The SPMD function takes the local [2, 8] and records the global type in
// tp.arg_types.
// CHECK-LABEL: func.func @colwise_input_shard0_arg(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x8xf32>) -> (tensor<8x4xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[X]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "net1"} : tensor<2x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[AG1]], %[[C1]]) : (tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: return %[[LIN1]] : tensor<8x4xf32>
// STYLES-LABEL: func.func @colwise_input_shard0_arg(
// STYLES-SAME: %[[X:[a-zA-Z0-9_]+]]: !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>) -> (!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> {tp.local})
// STYLES-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// STYLES-NEXT: %[[REDISTRIBUTE1:.*]] = tp.redistribute %[[X]] {module = "net1"} : !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x8xf32, @mesh, [#tp.replicate]>
// STYLES-NEXT: %[[DISTRIBUTE1:.*]] = tp.distribute %[[P1]] {module = "net1"} : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
// STYLES-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[REDISTRIBUTE1]], %[[DISTRIBUTE1]]) : (!tp.dtensor<8x8xf32, @mesh, [#tp.replicate]>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// STYLES-NEXT: return %[[LIN1]] : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<input_layouts = #tp.shard<0>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_input_shard0_arg(%x: tensor<8x8xf32>) -> tensor<8x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}

// -----

// input_layouts = Shard(0) on an input that really is Shard(0) (a
// sequence-parallel dropout on dim 0): one all_gather on dim 0 before the
// linear.
// CHECK-LABEL: func.func @colwise_input_shard0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x8xf32>) -> (tensor<8x4xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[DROP1:.*]] = model.dropout "drop"(%[[X]]) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[DROP1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "net1"} : tensor<2x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[AG1]], %[[C1]]) : (tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: return %[[LIN1]] : tensor<8x4xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "net1"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.colwise<input_layouts = #tp.shard<0>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_input_shard0(%x: tensor<8x8xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%d, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}

// -----

// output_layouts = Replicate: the Shard(-1) output is all-gathered on its
// last dim.
// CHECK-LABEL: func.func @colwise_output_replicate(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>) -> tensor<4x16xf32> attributes {tp.result_types = [!tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "net1.bias" : tensor<16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[X]], %[[C1]], %[[C2]]) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[LIN1]] on @mesh mesh_axes = [0] gather_axis = 1 {module = "net1"} : tensor<4x4xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[AG1]] : tensor<4x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<output_layouts = #tp.replicate>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @colwise_output_replicate(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %b = model.param "net1.bias" : tensor<16xf32>
    %y = model.linear "net1"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// RowwiseParallel
//===----------------------------------------------------------------------===//

// Rowwise on a linear with bias (defaults: input Shard(-1), output
// Replicate): input and weight chunked on dim 1, the partial sums
// all-reduced, and the bias added once, after the reduction.
// CHECK-LABEL: func.func @rowwise_bias(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x4xf32>) -> tensor<4x8xf32> attributes {tp.arg_types = [!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net2.weight" : tensor<8x16xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "net2.bias" : tensor<8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "net2"} : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net2"(%[[X]], %[[C1]]) : (tensor<4x4xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "net2"} : tensor<4x8xf32>
// CHECK-NEXT: %[[ADD1:.*]] = model.add %[[AR1]], %[[P2]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[ADD1]] : tensor<4x8xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net2"], styles = [#tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @rowwise_bias(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %b = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%x, %w, %b) : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

// Rowwise on a linear without bias: the same, with no add.
// CHECK-LABEL: func.func @rowwise_no_bias(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x4xf32>) -> tensor<4x8xf32> attributes {tp.arg_types = [!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net2.weight" : tensor<8x16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "net2"} : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net2"(%[[X]], %[[C1]]) : (tensor<4x4xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "net2"} : tensor<4x8xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<4x8xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net2"], styles = [#tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @rowwise_no_bias(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %y = model.linear "net2"(%x, %w) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

// output_layouts = Shard(0): one reduce_scatter on dim 0 instead of the
// all_reduce; the bias is added to each rank's rows.
// CHECK-LABEL: func.func @rowwise_output_shard0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf32>) -> (tensor<2x8xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net2.weight" : tensor<8x16xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "net2.bias" : tensor<8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "net2"} : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net2"(%[[X]], %[[C1]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "net2"} : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[ADD1:.*]] = model.add %[[RS1]], %[[P2]] : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %[[ADD1]] : tensor<2x8xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net2"], styles = [#tp.rowwise<output_layouts = #tp.shard<0>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @rowwise_output_shard0(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %b = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%x, %w, %b) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x8xf32>
    return %y : tensor<8x8xf32>
  }
}

// -----

// Rowwise on an embedding (input Replicate): the weight is chunked on the
// vocabulary (dim 0), the lookup masks ids outside this rank's rows
// (tp.sharded_embedding), and the Partial(sum) result is all-reduced.
// CHECK-LABEL: func.func @rowwise_embedding(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x4xi64>) -> tensor<2x4x8xf32> attributes {tp.result_types = [!tp.dtensor<2x4x8xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "tok_embeddings.weight" : tensor<32x8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "tok_embeddings"} : tensor<32x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[EMB1:.*]] = tp.sharded_embedding %[[X]], %[[C1]] on @mesh mesh_axes = [0] vocab_size = 32 {module = "tok_embeddings"} : (tensor<2x4xi64>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[EMB1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "tok_embeddings"} : tensor<2x4x8xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<2x4x8xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["tok_embeddings"], styles = [#tp.rowwise<input_layouts = #tp.replicate>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @rowwise_embedding(%ids: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
    %w = model.param "tok_embeddings.weight" : tensor<32x8xf32>
    %y = model.embedding "tok_embeddings"(%ids, %w) : (tensor<2x4xi64>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }
}

// -----

// Colwise then Rowwise on a 2x2 (dp, tp) mesh with tp_axis = "tp": every
// chunk and the all_reduce act on mesh axis 1 only.
// CHECK-LABEL: func.func @mlp_2d_mesh(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {tp.result_types = [!tp.dtensor<4x8xf32, @mesh, [#tp.replicate, #tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<32x8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [1] axis = 0 {module = "net1"} : tensor<32x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[X]], %[[C1]]) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[RELU1:.*]] = model.relu %[[LIN1]] : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "net2.weight" : tensor<8x32xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [1] axis = 1 {module = "net2"} : tensor<8x32xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[LIN2:.*]] = model.linear "net2"(%[[RELU1]], %[[C2]]) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN2]] on @mesh mesh_axes = [1] reduction = {{ *}}sum {module = "net2"} : tensor<4x8xf32>
// CHECK-NEXT: return %[[AR1]] : tensor<4x8xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = ["net1", "net2"], styles = [#tp.colwise<>, #tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  func.func @mlp_2d_mesh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w1 = model.param "net1.weight" : tensor<32x8xf32>
    %h = model.linear "net1"(%x, %w1) : (tensor<4x8xf32>, tensor<32x8xf32>) -> tensor<4x32xf32>
    %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
    %w2 = model.param "net2.weight" : tensor<8x32xf32>
    %y = model.linear "net2"(%r, %w2) : (tensor<4x32xf32>, tensor<8x32xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// SequenceParallel
//===----------------------------------------------------------------------===//

// SequenceParallel on a layer_norm (default sequence_dim 1): the input is
// chunked on the sequence dim, weight and bias stay replicated, the output
// stays Shard(1). No communication.
// CHECK-LABEL: func.func @sp_layer_norm(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x2x16xf32>) -> tensor<2x2x16xf32> attributes {tp.arg_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "norm.weight" : tensor<16xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "norm.bias" : tensor<16xf32>
// CHECK-NEXT: %[[LN1:.*]] = model.layer_norm "norm"(%[[X]], %[[P1]], %[[P2]]) : (tensor<2x2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x2x16xf32>
// CHECK-NEXT: return %[[LN1]] : tensor<2x2x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_layer_norm(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %g = model.param "norm.weight" : tensor<16xf32>
    %b = model.param "norm.bias" : tensor<16xf32>
    %y = model.layer_norm "norm"(%x, %g, %b) : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    return %y : tensor<2x8x16xf32>
  }
}

// -----

// SequenceParallel on an rms_norm.
// CHECK-LABEL: func.func @sp_rms_norm(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x2x16xf32>) -> tensor<2x2x16xf32> attributes {tp.arg_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "norm.weight" : tensor<16xf32>
// CHECK-NEXT: %[[RMS1:.*]] = model.rms_norm "norm"(%[[X]], %[[P1]]) : (tensor<2x2x16xf32>, tensor<16xf32>) -> tensor<2x2x16xf32>
// CHECK-NEXT: return %[[RMS1]] : tensor<2x2x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_rms_norm(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %g = model.param "norm.weight" : tensor<16xf32>
    %y = model.rms_norm "norm"(%x, %g) : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    return %y : tensor<2x8x16xf32>
  }
}

// -----

// SequenceParallel on a dropout (no parameters).
// CHECK-LABEL: func.func @sp_dropout(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x2x16xf32>) -> tensor<2x2x16xf32> attributes {tp.arg_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[DROP1:.*]] = model.dropout "drop"(%[[X]]) : (tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
// CHECK-NEXT: return %[[DROP1]] : tensor<2x2x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_dropout(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %y = model.dropout "drop"(%x) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    return %y : tensor<2x8x16xf32>
  }
}

// -----

// sequence_dim = 0 on a [tokens, hidden] input.
// CHECK-LABEL: func.func @sp_dim0(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>) -> tensor<2x16xf32> attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "norm.weight" : tensor<16xf32>
// CHECK-NEXT: %[[RMS1:.*]] = model.rms_norm "norm"(%[[X]], %[[P1]]) : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: return %[[RMS1]] : tensor<2x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm"], styles = [#tp.sequence_parallel<sequence_dim = 0>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_dim0(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %g = model.param "norm.weight" : tensor<16xf32>
    %y = model.rms_norm "norm"(%x, %g) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    return %y : tensor<8x16xf32>
  }
}

// -----

// A sequence-parallel block (Megatron-SP): norm on Shard(1), Colwise with
// input_layouts Shard(1) (all_gather on the sequence dim), Rowwise with
// output_layouts Shard(1) (reduce_scatter on the sequence dim), and the
// residual add on sequence shards.
// CHECK-LABEL: func.func @sp_block(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x2x16xf32>) -> (tensor<2x2x16xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "norm.weight" : tensor<16xf32>
// CHECK-NEXT: %[[RMS1:.*]] = model.rms_norm "norm"(%[[X]], %[[P1]]) : (tensor<2x2x16xf32>, tensor<16xf32>) -> tensor<2x2x16xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "w1.weight" : tensor<32x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[RMS1]] on @mesh mesh_axes = [0] gather_axis = 1 {module = "w1"} : tensor<2x2x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 0 {module = "w1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "w1"(%[[AG1]], %[[C1]]) : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[SILU1:.*]] = model.silu %[[LIN1]] : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[P3:.*]] = model.param "w2.weight" : tensor<16x32xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[P3]] on @mesh mesh_axes = [0] axis = 1 {module = "w2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[LIN2:.*]] = model.linear "w2"(%[[SILU1]], %[[C2]]) : (tensor<2x8x8xf32>, tensor<16x8xf32>) -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN2]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 {module = "w2"} : tensor<2x8x16xf32> -> tensor<2x2x16xf32>
// CHECK-NEXT: %[[ADD1:.*]] = model.add %[[X]], %[[RS1]] : (tensor<2x2x16xf32>, tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
// CHECK-NEXT: return %[[ADD1]] : tensor<2x2x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm", "w1", "w2"], styles = [#tp.sequence_parallel<>, #tp.colwise<input_layouts = #tp.shard<1>>, #tp.rowwise<output_layouts = #tp.shard<1>>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @sp_block(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %g = model.param "norm.weight" : tensor<16xf32>
    %n = model.rms_norm "norm"(%x, %g) : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
    %w1 = model.param "w1.weight" : tensor<32x16xf32>
    %h = model.linear "w1"(%n, %w1) : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<2x8x32xf32>
    %a = model.silu %h : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %w2 = model.param "w2.weight" : tensor<16x32xf32>
    %y = model.linear "w2"(%a, %w2) : (tensor<2x8x32xf32>, tensor<16x32xf32>) -> tensor<2x8x16xf32>
    %r = model.add %x, %y : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    return %r : tensor<2x8x16xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// PrepareModuleInput
//===----------------------------------------------------------------------===//

// Positional layouts with a None entry: the first input (really Shard(0),
// from a sequence-parallel dropout) is all-gathered to the desired
// Replicate; the second (None) passes through untouched.
// CHECK-LABEL: func.func @pmi_positional(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>, tensor<8x16xf32>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[DROP1:.*]] = model.dropout "drop"(%[[X]]) : (tensor<2x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[DROP1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "block"} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[MUL1:.*]] = model.mul %[[AG1]], %[[Y]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: return %[[MUL1]] : tensor<8x16xf32>
// STYLES-LABEL: func.func @pmi_positional(
// STYLES-SAME: %[[X:[a-zA-Z0-9_]+]]: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> {
// STYLES-NEXT: %[[DROP1:.*]] = model.dropout "drop"(%[[X]]) : (!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
// STYLES-NEXT: %[[RD1:.*]] = tp.redistribute %[[DROP1]] {module = "block"} : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
// STYLES-NEXT: %[[MOD1:.*]] = model.module "block"(%[[RD1]], %[[Y]]) : (!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>, tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> {
// STYLES-NEXT: ^bb0(%[[A2:[a-zA-Z0-9_]+]]: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>, %[[A3:[a-zA-Z0-9_]+]]: tensor<8x16xf32>):
// STYLES-NEXT: %[[MUL1:.*]] = model.mul %[[A2]], %[[A3]] : (!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>, tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
// STYLES-NEXT: model.yield %[[MUL1]] : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
// STYLES-NEXT: }
// STYLES-NEXT: return %[[MOD1]] : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "block"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmi_positional(%x: tensor<8x16xf32>, %m: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "block"(%d, %m) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>):
      %s = model.mul %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}

// -----

// None first: only the second input is laid out.
// CHECK-LABEL: func.func @pmi_none_first(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>, tensor<8x16xf32>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[DROP1:.*]] = model.dropout "drop"(%[[X]]) : (tensor<2x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[DROP1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "block"} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[MUL1:.*]] = model.mul %[[Y]], %[[AG1]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: return %[[MUL1]] : tensor<8x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "block"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input<input_layouts = [unit, #tp.shard<0>], desired_input_layouts = [unit, #tp.replicate]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmi_none_first(%x: tensor<8x16xf32>, %m: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "block"(%m, %d) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>):
      %s = model.mul %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}

// -----

// Keyword inputs: `mask` is found through the module's arg_names (its second
// input) and all-gathered; `x` is untouched.
// CHECK-LABEL: func.func @pmi_kwargs(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2x16xf32>) -> tensor<8x16xf32> attributes {tp.arg_types = [tensor<8x16xf32>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[DROP1:.*]] = model.dropout "drop"(%[[Y]]) : (tensor<2x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[DROP1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "attention"} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[ADD1:.*]] = model.add %[[X]], %[[AG1]] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: return %[[ADD1]] : tensor<8x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "attention"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input<input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmi_kwargs(%x: tensor<8x16xf32>, %m: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%m) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "attention"(%x, %d) {arg_names = ["x", "mask"]} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>):
      %s = model.add %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// PrepareModuleOutput
//===----------------------------------------------------------------------===//

// Several outputs of one module: the colwise Shard(1) output is all-gathered
// to Replicate; the rowwise output (Replicate after its all_reduce) is
// wanted Shard(0), which tp-optimize turns into one reduce_scatter; the
// third output (None) passes through.
// CHECK-LABEL: func.func @pmo_several(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> (tensor<8x32xf32>, tensor<2x16xf32> {tp.local}, tensor<8x16xf32>) attributes {tp.result_types = [!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>, tensor<8x16xf32>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "block.w1.weight" : tensor<32x16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "block.w1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "block.w1"(%[[X]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "block.w2.weight" : tensor<16x32xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 1 {module = "block.w2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[LIN2:.*]] = model.linear "block.w2"(%[[LIN1]], %[[C2]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[LIN1]] on @mesh mesh_axes = [0] gather_axis = 1 {module = "block"} : tensor<8x8xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN2]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "block"} : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[AG1]], %[[RS1]], %[[X]] : tensor<8x32xf32>, tensor<2x16xf32>, tensor<8x16xf32>
// STYLES-LABEL: func.func @pmo_several(
// STYLES-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> (!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> {tp.local}, tensor<8x16xf32>) {
// STYLES-NEXT: %[[MOD1:[a-zA-Z0-9_]+]]:3 = model.module "block"(%[[X]]) : (tensor<8x16xf32>) -> (!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>, tensor<8x16xf32>) {
// STYLES-NEXT: ^bb0(%[[A1:[a-zA-Z0-9_]+]]: tensor<8x16xf32>):
// STYLES-NEXT: %[[P1:.*]] = model.param "block.w1.weight" : tensor<32x16xf32>
// STYLES-NEXT: %[[D1:.*]] = tp.distribute %[[P1]] {module = "block.w1"} : tensor<32x16xf32> -> !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>
// STYLES-NEXT: %[[LIN1:.*]] = model.linear "block.w1"(%[[A1]], %[[D1]]) : (tensor<8x16xf32>, !tp.dtensor<32x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>
// STYLES-NEXT: %[[P2:.*]] = model.param "block.w2.weight" : tensor<16x32xf32>
// STYLES-NEXT: %[[D2:.*]] = tp.distribute %[[P2]] {module = "block.w2"} : tensor<16x32xf32> -> !tp.dtensor<16x32xf32, @mesh, [#tp.shard<1>]>
// STYLES-NEXT: %[[LIN2:.*]] = model.linear "block.w2"(%[[LIN1]], %[[D2]]) : (!tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<16x32xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>
// STYLES-NEXT: %[[RD1:.*]] = tp.redistribute %[[LIN2]] {module = "block.w2"} : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
// STYLES-NEXT: %[[RD2:.*]] = tp.redistribute %[[LIN1]] {module = "block"} : !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>
// STYLES-NEXT: %[[RD3:.*]] = tp.redistribute %[[RD1]] {module = "block"} : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
// STYLES-NEXT: model.yield %[[RD2]], %[[RD3]], %[[A1]] : !tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>, tensor<8x16xf32>
// STYLES-NEXT: }
// STYLES-NEXT: return %[[MOD1]]#0, %[[MOD1]]#1, %[[MOD1]]#2 : !tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>, tensor<8x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["block", "block.w1", "block.w2"], styles = [#tp.prepare_module_output<output_layouts = [#tp.shard<1>, #tp.replicate, unit], desired_output_layouts = [#tp.replicate, #tp.shard<0>, unit]>, #tp.colwise<>, #tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmo_several(%x: tensor<8x16xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
    %y:3 = model.module "block"(%x) : (tensor<8x16xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "block.w1.weight" : tensor<32x16xf32>
      %h = model.linear "block.w1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
      %w2 = model.param "block.w2.weight" : tensor<16x32xf32>
      %o = model.linear "block.w2"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
      model.yield %h, %o, %a : tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>
    }
    return %y#0, %y#1, %y#2 : tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// PrepareModuleInputOutput
//===----------------------------------------------------------------------===//

// Both at once: the Shard(0) input is all-gathered to Replicate for the
// softmax, and the Replicate output is chunked back to Shard(0) (local, no
// communication).
// CHECK-LABEL: func.func @pmio(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>) -> (tensor<2x16xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// CHECK-NEXT: %[[DROP1:.*]] = model.dropout "drop"(%[[X]]) : (tensor<2x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[DROP1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "block"} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[SOFTMAX1:.*]] = model.softmax %[[AG1]] {dim = 1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[SOFTMAX1]] on @mesh mesh_axes = [0] axis = 0 {module = "block"} : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[C1]] : tensor<2x16xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["drop", "block"], styles = [#tp.sequence_parallel<sequence_dim = 0>, #tp.prepare_module_input_output<input_layouts = [#tp.shard<0>], desired_input_layouts = [#tp.replicate], output_layouts = [#tp.replicate], desired_output_layouts = [#tp.shard<0>]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pmio(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %d = model.dropout "drop"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = model.module "block"(%d) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %s = model.softmax %a {dim = 1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
      model.yield %s : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// The root key ""
//===----------------------------------------------------------------------===//

// PrepareModuleInput on the root module: its inputs are the function's
// arguments. The first is declared Shard(0), so it arrives as each rank's
// shard, and is wanted Replicate: one all_gather (no module name: the root).
// The second (None) is untouched until the add with the colwise output
// chunks it.
// CHECK-LABEL: func.func @root_input(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x8xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x4xf32> attributes {tp.arg_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>, tensor<8x16xf32>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[X]] on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[AG1]], %[[C1]]) : (tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[Y]] on @mesh mesh_axes = [0] axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[ADD1:.*]] = model.add %[[LIN1]], %[[C2]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: return %[[ADD1]] : tensor<8x4xf32>
// STYLES-LABEL: func.func @root_input(
// STYLES-SAME: %[[X:[a-zA-Z0-9_]+]]: !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>, %[[Y:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// STYLES-NEXT: %[[REDISTRIBUTE1:.*]] = tp.redistribute %[[X]] : !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x8xf32, @mesh, [#tp.replicate]>
// STYLES-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// STYLES-NEXT: %[[DISTRIBUTE1:.*]] = tp.distribute %[[P1]] {module = "net1"} : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
// STYLES-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[REDISTRIBUTE1]], %[[DISTRIBUTE1]]) : (!tp.dtensor<8x8xf32, @mesh, [#tp.replicate]>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// STYLES-NEXT: %[[DISTRIBUTE2:.*]] = tp.distribute %[[Y]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// STYLES-NEXT: %[[ADD1:.*]] = model.add %[[LIN1]], %[[DISTRIBUTE2]] : (!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// STYLES-NEXT: return %[[ADD1]] : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["", "net1"], styles = [#tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit]>, #tp.colwise<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @root_input(%x: tensor<8x8xf32>, %z: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    %r = model.add %y, %z : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    return %r : tensor<8x16xf32>
  }
}

// -----

// PrepareModuleOutput on the root module: the function's first result (a
// colwise Shard(1) output) is all-gathered before the return; the second
// (None) is returned as is.
// CHECK-LABEL: func.func @root_output(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x8xf32>) -> (tensor<8x16xf32>, tensor<8x8xf32>) attributes {tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>, tensor<8x8xf32>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "net1.weight" : tensor<16x8xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "net1"(%[[X]], %[[C1]]) : (tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[LIN1]] on @mesh mesh_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[AG1]], %[[X]] : tensor<8x16xf32>, tensor<8x8xf32>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1", ""], styles = [#tp.colwise<>, #tp.prepare_module_output<output_layouts = [#tp.shard<1>, unit], desired_output_layouts = [#tp.replicate, unit]>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @root_output(%x: tensor<8x8xf32>) -> (tensor<8x16xf32>, tensor<8x8xf32>) {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
    return %y, %x : tensor<8x16xf32>, tensor<8x8xf32>
  }
}

// -----

//===----------------------------------------------------------------------===//
// The seed's legacy styles (inline; the JSON forms are checked below)
//===----------------------------------------------------------------------===//

// #tp.pairwise_parallel: the module's first linear colwise, its second
// rowwise, replicated input and output: one all_reduce. tp-apply-plan warns
// that it is deprecated and names the replacement.
// CHECK-LABEL: func.func @pairwise(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "mlp.net1.weight" : tensor<32x16xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "mlp.net1.bias" : tensor<32xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "mlp.net1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 0 {module = "mlp.net1"} : tensor<32xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "mlp.net1"(%[[X]], %[[C1]], %[[C2]]) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[RELU1:.*]] = model.relu %[[LIN1]] : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[P3:.*]] = model.param "mlp.net2.weight" : tensor<16x32xf32>
// CHECK-NEXT: %[[P4:.*]] = model.param "mlp.net2.bias" : tensor<16xf32>
// CHECK-NEXT: %[[C3:.*]] = tp.chunk %[[P3]] on @mesh mesh_axes = [0] axis = 1 {module = "mlp.net2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[LIN2:.*]] = model.linear "mlp.net2"(%[[RELU1]], %[[C3]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN2]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "mlp.net2"} : tensor<8x16xf32>
// CHECK-NEXT: %[[ADD1:.*]] = model.add %[[AR1]], %[[P4]] : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: return %[[ADD1]] : tensor<8x16xf32>
// expected-warning @below {{plan entry 'mlp': PairwiseParallel is deprecated; use ColwiseParallel and RowwiseParallel instead}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["mlp"], styles = [#tp.pairwise_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pairwise(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %y = model.module "mlp"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "mlp.net1.weight" : tensor<32x16xf32>
      %b1 = model.param "mlp.net1.bias" : tensor<32xf32>
      %h = model.linear "mlp.net1"(%a, %w1, %b1) : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
      %r = model.relu %h : (tensor<8x32xf32>) -> tensor<8x32xf32>
      %w2 = model.param "mlp.net2.weight" : tensor<16x32xf32>
      %b2 = model.param "mlp.net2.bias" : tensor<16xf32>
      %o = model.linear "mlp.net2"(%r, %w2, %b2) : (tensor<8x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<8x16xf32>
      model.yield %o : tensor<8x16xf32>
    }
    return %y : tensor<8x16xf32>
  }
}

// -----

// #tp.pairwise_sequence_parallel (the seed's SequenceParallel) on two blocks
// in a row: each output is reduce-scattered to Shard(0), and each block's
// Shard(0) input (the model input arrives so) is all-gathered back to
// Replicate where its first linear takes it (the seed's input_fn on that
// linear).
// CHECK-LABEL: func.func @pairwise_sequence_parallel(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>) -> (tensor<2x16xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// CHECK-NEXT: %[[P1:.*]] = model.param "sp0.net1.weight" : tensor<32x16xf32>
// CHECK-NEXT: %[[AG1:.*]] = tp.all_gather %[[X]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "sp0.net1"} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "sp0.net1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[LIN1:.*]] = model.linear "sp0.net1"(%[[AG1]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[P2:.*]] = model.param "sp0.net2.weight" : tensor<16x32xf32>
// CHECK-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 1 {module = "sp0.net2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[LIN2:.*]] = model.linear "sp0.net2"(%[[LIN1]], %[[C2]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN2]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "sp0.net2"} : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[P3:.*]] = model.param "sp1.net1.weight" : tensor<32x16xf32>
// CHECK-NEXT: %[[AG2:.*]] = tp.all_gather %[[RS1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "sp1.net1"} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[C3:.*]] = tp.chunk %[[P3]] on @mesh mesh_axes = [0] axis = 0 {module = "sp1.net1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[LIN3:.*]] = model.linear "sp1.net1"(%[[AG2]], %[[C3]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[P4:.*]] = model.param "sp1.net2.weight" : tensor<16x32xf32>
// CHECK-NEXT: %[[C4:.*]] = tp.chunk %[[P4]] on @mesh mesh_axes = [0] axis = 1 {module = "sp1.net2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[LIN4:.*]] = model.linear "sp1.net2"(%[[LIN3]], %[[C4]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[RS2:.*]] = tp.reduce_scatter %[[LIN4]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "sp1.net2"} : tensor<8x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[RS2]] : tensor<2x16xf32>
// expected-warning @below {{plan entry 'sp*': PyTorch 2.1's SequenceParallel (the PairwiseParallel variant) is deprecated; use ColwiseParallel and RowwiseParallel with SequenceParallel on the norms instead}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["sp*"], styles = [#tp.pairwise_sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
  func.func @pairwise_sequence_parallel(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %y0 = model.module "sp0"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "sp0.net1.weight" : tensor<32x16xf32>
      %h = model.linear "sp0.net1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
      %w2 = model.param "sp0.net2.weight" : tensor<16x32xf32>
      %o = model.linear "sp0.net2"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
      model.yield %o : tensor<8x16xf32>
    }
    %y1 = model.module "sp1"(%y0) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
    ^bb0(%a: tensor<8x16xf32>):
      %w1 = model.param "sp1.net1.weight" : tensor<32x16xf32>
      %h = model.linear "sp1.net1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
      %w2 = model.param "sp1.net2.weight" : tensor<16x32xf32>
      %o = model.linear "sp1.net2"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
      model.yield %o : tensor<8x16xf32>
    }
    return %y1 : tensor<8x16xf32>
  }
}


//===----------------------------------------------------------------------===//
// The seed's legacy API in a plan file (Inputs/styles-legacy.json on
// Inputs/styles-legacy.mlir): each _prepare_input/_prepare_output function
// warns that it is deprecated and names the argument that replaces it, and
// lowers to the layouts it stands for.
//===----------------------------------------------------------------------===//

// LEGACY-WARN: warning: plan entry 'in_shard_1d': make_input_shard_1d is deprecated; specify input_layouts instead
// LEGACY-WARN: warning: plan entry 'in_shard_1d_dim1': make_input_shard_1d is deprecated; specify input_layouts instead
// LEGACY-WARN: warning: plan entry 'in_last_dim': make_input_shard_1d_last_dim is deprecated; specify input_layouts instead
// LEGACY-WARN: warning: plan entry 'in_reshard_replicate': make_input_reshard_replicate is deprecated; specify input_layouts instead
// LEGACY-WARN: warning: plan entry 'in_replicate_1d': make_input_replicate_1d is deprecated; specify input_layouts instead
// LEGACY-WARN: warning: plan entry 'out_shard_1d': make_output_shard_1d is deprecated; specify output_layouts instead
// LEGACY-WARN: warning: plan entry 'out_shard_1d_dim1': make_output_shard_1d is deprecated; specify output_layouts instead
// LEGACY-WARN: warning: plan entry 'out_replicate_1d': make_output_replicate_1d is deprecated; specify output_layouts instead
// LEGACY-WARN: warning: plan entry 'out_tensor': make_output_tensor is deprecated; specify output_layouts instead
// LEGACY-WARN: warning: plan entry 'out_sharded_tensor': make_sharded_output_tensor is deprecated; specify output_layouts instead
// LEGACY-WARN: warning: plan entry 'out_reshard_tensor': make_output_reshard_tensor is deprecated; specify output_layouts instead
// LEGACY-WARN: warning: plan entry 'pw': PairwiseParallel is deprecated; use ColwiseParallel and RowwiseParallel instead
// LEGACY-WARN: warning: plan entry 'sp*': PyTorch 2.1's SequenceParallel (the PairwiseParallel variant) is deprecated; use ColwiseParallel and RowwiseParallel with SequenceParallel on the norms instead
// LEGACY-WARN-NOT: warning

// make_input_shard_1d on Colwise: input_layouts Shard(0) (the input
// really is Shard(0)), gathered to the Replicate Colwise needs.
// LEGACY-LABEL: func.func @in_shard_1d(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>) -> (tensor<8x8xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// LEGACY-NEXT: %[[DROP1:.*]] = model.dropout "in_shard_1d_src"(%[[X]]) : (tensor<2x16xf32>) -> tensor<2x16xf32>
// LEGACY-NEXT: %[[P1:.*]] = model.param "in_shard_1d.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[AG1:.*]] = tp.all_gather %[[DROP1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "in_shard_1d"} : tensor<2x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "in_shard_1d"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "in_shard_1d"(%[[AG1]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: return %[[LIN1]] : tensor<8x8xf32>

// make_input_shard_1d(dim=1) on Rowwise: the colwise Shard(1) output is
// already what Rowwise wants: no collective before the all_reduce.
// LEGACY-LABEL: func.func @in_shard_1d_dim1(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "in_shard_1d_dim1_src.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "in_shard_1d_dim1_src"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "in_shard_1d_dim1_src"(%[[X]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[P2:.*]] = model.param "in_shard_1d_dim1.weight" : tensor<16x32xf32>
// LEGACY-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 1 {module = "in_shard_1d_dim1"} : tensor<16x32xf32> -> tensor<16x8xf32>
// LEGACY-NEXT: %[[LIN2:.*]] = model.linear "in_shard_1d_dim1"(%[[LIN1]], %[[C2]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// LEGACY-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN2]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "in_shard_1d_dim1"} : tensor<8x16xf32>
// LEGACY-NEXT: return %[[AR1]] : tensor<8x16xf32>

// make_input_shard_1d_last_dim on Colwise: Shard(-1), gathered on the last
// dim.
// LEGACY-LABEL: func.func @in_last_dim(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> (tensor<8x4xf32> {tp.local}) attributes {tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "in_last_dim_src.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "in_last_dim_src"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "in_last_dim_src"(%[[X]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[P2:.*]] = model.param "in_last_dim.weight" : tensor<16x32xf32>
// LEGACY-NEXT: %[[AG1:.*]] = tp.all_gather %[[LIN1]] on @mesh mesh_axes = [0] gather_axis = 1 {module = "in_last_dim"} : tensor<8x8xf32> -> tensor<8x32xf32>
// LEGACY-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 0 {module = "in_last_dim"} : tensor<16x32xf32> -> tensor<4x32xf32>
// LEGACY-NEXT: %[[LIN2:.*]] = model.linear "in_last_dim"(%[[AG1]], %[[C2]]) : (tensor<8x32xf32>, tensor<4x32xf32>) -> tensor<8x4xf32>
// LEGACY-NEXT: return %[[LIN2]] : tensor<8x4xf32>

// make_input_reshard_replicate on Colwise: Shard(0) resharded to
// Replicate: one all_gather on dim 0.
// LEGACY-LABEL: func.func @in_reshard_replicate(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>) -> (tensor<8x8xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// LEGACY-NEXT: %[[DROP1:.*]] = model.dropout "in_reshard_replicate_src"(%[[X]]) : (tensor<2x16xf32>) -> tensor<2x16xf32>
// LEGACY-NEXT: %[[P1:.*]] = model.param "in_reshard_replicate.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[AG1:.*]] = tp.all_gather %[[DROP1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "in_reshard_replicate"} : tensor<2x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "in_reshard_replicate"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "in_reshard_replicate"(%[[AG1]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: return %[[LIN1]] : tensor<8x8xf32>

// make_input_replicate_1d on Rowwise: a Replicate input is chunked locally
// to the Shard(-1) Rowwise needs.
// LEGACY-LABEL: func.func @in_replicate_1d(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x8xf32> attributes {tp.result_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.replicate]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "in_replicate_1d.weight" : tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[X]] on @mesh mesh_axes = [0] axis = 1 {module = "in_replicate_1d"} : tensor<8x16xf32> -> tensor<8x4xf32>
// LEGACY-NEXT: %[[C2:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "in_replicate_1d"} : tensor<8x16xf32> -> tensor<8x4xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "in_replicate_1d"(%[[C1]], %[[C2]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "in_replicate_1d"} : tensor<8x8xf32>
// LEGACY-NEXT: return %[[AR1]] : tensor<8x8xf32>

// make_output_shard_1d on Rowwise: the Partial output is reduce-scattered
// to Shard(0) (kept a DTensor: use_local_output false).
// LEGACY-LABEL: func.func @out_shard_1d(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf32>) -> tensor<2x8xf32> attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "out_shard_1d.weight" : tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "out_shard_1d"} : tensor<8x16xf32> -> tensor<8x4xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "out_shard_1d"(%[[X]], %[[C1]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "out_shard_1d"} : tensor<8x8xf32> -> tensor<2x8xf32>
// LEGACY-NEXT: return %[[RS1]] : tensor<2x8xf32>

// make_output_shard_1d(dim=1) on Rowwise: reduce_scatter on dim 1.
// LEGACY-LABEL: func.func @out_shard_1d_dim1(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf32>) -> tensor<8x2xf32> attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "out_shard_1d_dim1.weight" : tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "out_shard_1d_dim1"} : tensor<8x16xf32> -> tensor<8x4xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "out_shard_1d_dim1"(%[[X]], %[[C1]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 1 {module = "out_shard_1d_dim1"} : tensor<8x8xf32> -> tensor<8x2xf32>
// LEGACY-NEXT: return %[[RS1]] : tensor<8x2xf32>

// make_output_replicate_1d on Rowwise: all_reduce.
// LEGACY-LABEL: func.func @out_replicate_1d(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf32>) -> tensor<8x8xf32> attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.replicate]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "out_replicate_1d.weight" : tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "out_replicate_1d"} : tensor<8x16xf32> -> tensor<8x4xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "out_replicate_1d"(%[[X]], %[[C1]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "out_replicate_1d"} : tensor<8x8xf32>
// LEGACY-NEXT: return %[[AR1]] : tensor<8x8xf32>

// make_output_tensor on Colwise: the Shard(-1) output is all-gathered to
// Replicate, then made local.
// LEGACY-LABEL: func.func @out_tensor(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x32xf32> attributes {tp.result_types = [!tp.dtensor<8x32xf32, @mesh, [#tp.replicate]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "out_tensor.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "out_tensor"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "out_tensor"(%[[X]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[AG1:.*]] = tp.all_gather %[[LIN1]] on @mesh mesh_axes = [0] gather_axis = 1 {module = "out_tensor"} : tensor<8x8xf32> -> tensor<8x32xf32>
// LEGACY-NEXT: return %[[AG1]] : tensor<8x32xf32>

// make_sharded_output_tensor on Colwise: the output stays Shard(-1), made
// local: no collective.
// LEGACY-LABEL: func.func @out_sharded_tensor(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> (tensor<8x8xf32> {tp.local}) attributes {tp.result_types = [!tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "out_sharded_tensor.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "out_sharded_tensor"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "out_sharded_tensor"(%[[X]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: return %[[LIN1]] : tensor<8x8xf32>

// make_output_reshard_tensor on Rowwise: reduce_scatter to Shard(0), then
// made local.
// LEGACY-LABEL: func.func @out_reshard_tensor(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x4xf32>) -> (tensor<2x8xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>], tp.result_types = [!tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "out_reshard_tensor.weight" : tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 1 {module = "out_reshard_tensor"} : tensor<8x16xf32> -> tensor<8x4xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "out_reshard_tensor"(%[[X]], %[[C1]]) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN1]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "out_reshard_tensor"} : tensor<8x8xf32> -> tensor<2x8xf32>
// LEGACY-NEXT: return %[[RS1]] : tensor<2x8xf32>

// PairwiseParallel from a plan file: colwise then rowwise, one all_reduce.
// LEGACY-LABEL: func.func @pairwise(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "pw.net1.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "pw.net1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "pw.net1"(%[[X]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[RELU1:.*]] = model.relu %[[LIN1]] : (tensor<8x8xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[P2:.*]] = model.param "pw.net2.weight" : tensor<16x32xf32>
// LEGACY-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 1 {module = "pw.net2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// LEGACY-NEXT: %[[LIN2:.*]] = model.linear "pw.net2"(%[[RELU1]], %[[C2]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// LEGACY-NEXT: %[[AR1:.*]] = tp.all_reduce %[[LIN2]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "pw.net2"} : tensor<8x16xf32>
// LEGACY-NEXT: return %[[AR1]] : tensor<8x16xf32>

// The seed's SequenceParallel from a plan file (a "SequenceParallel" entry
// with input_layouts/output_layouts): Shard(0) outputs by reduce_scatter,
// each block's Shard(0) input all-gathered (the first block's is the model
// input, which arrives as each rank's Shard(0)).
// LEGACY-LABEL: func.func @seed_sequence_parallel(
// LEGACY-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x16xf32>) -> (tensor<2x16xf32> {tp.local}) attributes {tp.arg_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.result_types = [!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>], tp.spmd}
// LEGACY-NEXT: %[[P1:.*]] = model.param "sp0.net1.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[AG1:.*]] = tp.all_gather %[[X]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "sp0.net1"} : tensor<2x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[C1:.*]] = tp.chunk %[[P1]] on @mesh mesh_axes = [0] axis = 0 {module = "sp0.net1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN1:.*]] = model.linear "sp0.net1"(%[[AG1]], %[[C1]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[RELU1:.*]] = model.relu %[[LIN1]] : (tensor<8x8xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[P2:.*]] = model.param "sp0.net2.weight" : tensor<16x32xf32>
// LEGACY-NEXT: %[[C2:.*]] = tp.chunk %[[P2]] on @mesh mesh_axes = [0] axis = 1 {module = "sp0.net2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// LEGACY-NEXT: %[[LIN2:.*]] = model.linear "sp0.net2"(%[[RELU1]], %[[C2]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// LEGACY-NEXT: %[[RS1:.*]] = tp.reduce_scatter %[[LIN2]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "sp0.net2"} : tensor<8x16xf32> -> tensor<2x16xf32>
// LEGACY-NEXT: %[[P3:.*]] = model.param "sp1.net1.weight" : tensor<32x16xf32>
// LEGACY-NEXT: %[[AG2:.*]] = tp.all_gather %[[RS1]] on @mesh mesh_axes = [0] gather_axis = 0 {module = "sp1.net1"} : tensor<2x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[C3:.*]] = tp.chunk %[[P3]] on @mesh mesh_axes = [0] axis = 0 {module = "sp1.net1"} : tensor<32x16xf32> -> tensor<8x16xf32>
// LEGACY-NEXT: %[[LIN3:.*]] = model.linear "sp1.net1"(%[[AG2]], %[[C3]]) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[RELU2:.*]] = model.relu %[[LIN3]] : (tensor<8x8xf32>) -> tensor<8x8xf32>
// LEGACY-NEXT: %[[P4:.*]] = model.param "sp1.net2.weight" : tensor<16x32xf32>
// LEGACY-NEXT: %[[C4:.*]] = tp.chunk %[[P4]] on @mesh mesh_axes = [0] axis = 1 {module = "sp1.net2"} : tensor<16x32xf32> -> tensor<16x8xf32>
// LEGACY-NEXT: %[[LIN4:.*]] = model.linear "sp1.net2"(%[[RELU2]], %[[C4]]) : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
// LEGACY-NEXT: %[[RS2:.*]] = tp.reduce_scatter %[[LIN4]] on @mesh mesh_axes = [0] reduction = {{ *}}sum scatter_axis = 0 {module = "sp1.net2"} : tensor<8x16xf32> -> tensor<2x16xf32>
// LEGACY-NEXT: return %[[RS2]] : tensor<2x16xf32>
