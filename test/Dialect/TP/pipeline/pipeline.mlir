// RUN: tp-opt %s --tp-pipeline="plan=%examples/mlp_plan.json" | FileCheck %s
// RUN: tp-opt %s --tp-pipeline="plan=%examples/mlp_plan.json report-json=- report-table=false" | FileCheck %s --check-prefix=REPORT
// RUN: tp-opt %s --tp-pipeline="plan=%examples/mlp_plan.json report-table=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=TABLE
// RUN: tp-opt %S/../Inputs/transformer.mlir --tp-pipeline="plan=%S/Inputs/transformer_tp_plan.json report-json=- report-table=false" | FileCheck %s --check-prefix=LLAMA

// The whole plan-to-SPMD lowering on the two-layer MLP of examples/ with its
// plan (net1 colwise, net2 rowwise): Megatron's MLP, whose only
// communication is one all_reduce after net2.

// A two-layer MLP (PyTorch: net1 = Linear(8, 32), ReLU, net2 = Linear(32, 8)).
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w1 = model.param "net1.weight" : tensor<32x8xf32>
  %b1 = model.param "net1.bias" : tensor<32xf32>
  %h = model.linear "net1"(%x, %w1, %b1) : (tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %w2 = model.param "net2.weight" : tensor<8x32xf32>
  %b2 = model.param "net2.bias" : tensor<8xf32>
  %y = model.linear "net2"(%r, %w2, %b2) : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK: tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-SAME: attributes {tp.result_types = [!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>], tp.spmd}
// CHECK-NOT: tp.all_gather
// CHECK-NOT: tp.reduce_scatter
// CHECK-NOT: tp.all_to_all
// CHECK-NOT: tp.all_reduce
// CHECK: %[[W1:.*]] = model.param "net1.weight" : tensor<32x8xf32>
// CHECK: %[[B1:.*]] = model.param "net1.bias" : tensor<32xf32>
// CHECK: %[[W1L:.*]] = tp.chunk %[[W1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<32x8xf32> -> tensor<8x8xf32>
// CHECK: %[[B1L:.*]] = tp.chunk %[[B1]] on @mesh mesh_axes = [0] axis = 0 {module = "net1"} : tensor<32xf32> -> tensor<8xf32>
// CHECK: %[[H:.*]] = model.linear "net1"(%[[X]], %[[W1L]], %[[B1L]]) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = model.relu %[[H]] : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[W2:.*]] = model.param "net2.weight" : tensor<8x32xf32>
// CHECK: %[[B2:.*]] = model.param "net2.bias" : tensor<8xf32>
// CHECK: %[[W2L:.*]] = tp.chunk %[[W2]] on @mesh mesh_axes = [0] axis = 1 {module = "net2"} : tensor<8x32xf32> -> tensor<8x8xf32>
// CHECK: %[[P:.*]] = model.linear "net2"(%[[R]], %[[W2L]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[S:.*]] = tp.all_reduce %[[P]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "net2"} : tensor<4x8xf32>
// CHECK: %[[Y:.*]] = model.add %[[S]], %[[B2]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: return %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: tp.all_gather
// CHECK-NOT: tp.reduce_scatter
// CHECK-NOT: tp.all_to_all
// CHECK-NOT: tp.all_reduce
// CHECK-NOT: tp.redistribute
// CHECK-NOT: tp.distribute
// CHECK-NOT: !tp.dtensor<4x32

// Each rank sends its 4x8 f32 partial sum (128 bytes) into the all_reduce.
// REPORT:      "bytes_per_rank": 128,
// REPORT-NEXT: "collectives": {
// REPORT-NEXT:   "all_gather": 0,
// REPORT-NEXT:   "all_reduce": 1,
// REPORT-NEXT:   "all_to_all": 0,
// REPORT-NEXT:   "broadcast": 0,
// REPORT-NEXT:   "reduce_scatter": 0
// REPORT-NEXT: },
// A forward program communicates in the forward phase only.
// REPORT-NEXT: "collectives_by_phase": {
// REPORT-NEXT:   "backward": {
// REPORT-NEXT:     "all_gather": 0,
// REPORT-NEXT:     "all_reduce": 0,
// REPORT-NEXT:     "all_to_all": 0,
// REPORT-NEXT:     "broadcast": 0,
// REPORT-NEXT:     "reduce_scatter": 0
// REPORT-NEXT:   },
// REPORT-NEXT:   "forward": {
// REPORT-NEXT:     "all_gather": 0,
// REPORT-NEXT:     "all_reduce": 1,
// REPORT-NEXT:     "all_to_all": 0,
// REPORT-NEXT:     "broadcast": 0,
// REPORT-NEXT:     "reduce_scatter": 0
// REPORT-NEXT:   },
// REPORT-NEXT:   "optimizer": {
// REPORT-NEXT:     "all_gather": 0,
// REPORT-NEXT:     "all_reduce": 0,
// REPORT-NEXT:     "all_to_all": 0,
// REPORT-NEXT:     "broadcast": 0,
// REPORT-NEXT:     "reduce_scatter": 0
// REPORT-NEXT:   }
// REPORT-NEXT: },
// REPORT-NEXT: "modules": {
// REPORT-NEXT:   "net2": {
// REPORT-NEXT:     "all_reduce": 1,
// REPORT-NEXT:     "bytes_per_rank": 128
// REPORT-NEXT:   }
// REPORT-NEXT: },
// REPORT-NEXT: "modules_by_phase": {
// REPORT-NEXT:   "backward": {},
// REPORT-NEXT:   "forward": {
// REPORT-NEXT:     "net2": {
// REPORT-NEXT:       "all_reduce": 1,
// REPORT-NEXT:       "bytes_per_rank": 128
// REPORT-NEXT:     }
// REPORT-NEXT:   },
// REPORT-NEXT:   "optimizer": {}
// REPORT-NEXT: }
// REPORT-NEXT: {{^}$}}

// TABLE:      module collective count bytes/rank phase
// TABLE-NEXT: net2 all_reduce 1 128 forward
// TABLE-NEXT: total 1 128{{$}}

// The two-layer Llama-style transformer with torchtitan's plan (no sequence
// parallelism): one all_reduce for the vocabulary-sharded embedding, two per
// layer (attention.wo, feed_forward.w2), one all_gather for the output.
// LLAMA:      "collectives": {
// LLAMA-NEXT:   "all_gather": 1,
// LLAMA-NEXT:   "all_reduce": 5,
// LLAMA-NEXT:   "all_to_all": 0,
// LLAMA-NEXT:   "broadcast": 0,
// LLAMA-NEXT:   "reduce_scatter": 0
// LLAMA-NEXT: },
// LLAMA:      "layers.0.attention.wo": {
// LLAMA-NEXT:   "all_reduce": 1,
// LLAMA:      "layers.0.feed_forward.w2": {
// LLAMA-NEXT:   "all_reduce": 1,
// LLAMA:      "layers.1.attention.wo": {
// LLAMA-NEXT:   "all_reduce": 1,
// LLAMA:      "layers.1.feed_forward.w2": {
// LLAMA-NEXT:   "all_reduce": 1,
// LLAMA:      "output": {
// LLAMA-NEXT:   "all_gather": 1,
// LLAMA:      "tok_embeddings": {
// LLAMA-NEXT:   "all_reduce": 1,
// LLAMA-LABEL: func.func @forward
// LLAMA-SAME: tp.spmd
// LLAMA-COUNT-5: tp.all_reduce
// LLAMA-NOT: tp.all_reduce
// LLAMA: tp.all_gather %{{.*}} on @mesh mesh_axes = [0] gather_axis = 2 {module = "output"} : tensor<2x4x8xf32> -> tensor<2x4x16xf32>
// LLAMA-NEXT: return
