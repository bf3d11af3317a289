// RUN: tp-opt %s --tp-pipeline="plan=%examples/mlp_plan.json grad=true" | FileCheck %s
// RUN: tp-opt %s --tp-pipeline="plan=%examples/mlp_plan.json grad=true report-json=- report-table=false" | FileCheck %s --check-prefix=REPORT

// The training step of Megatron's MLP (net1 colwise, net2 rowwise) with a
// mean squared error: the backward program needs no communication at all.
// The loss gradient is replicated, so net2's input gradient comes out
// sharded on the hidden features (rowwise weight), the ReLU gradient keeps
// that shard, and every weight gradient lands with its parameter's
// placement: net1's rows, net2's columns, net2's replicated bias. The only
// collective is the forward all_reduce of net2.

func.func @forward(%x: tensor<4x8xf32> {model.name = "x"}, %t: tensor<4x8xf32> {model.name = "targets"}) -> tensor<f32> {
  %w1 = model.param "net1.weight" : tensor<32x8xf32>
  %b1 = model.param "net1.bias" : tensor<32xf32>
  %h = model.linear "net1"(%x, %w1, %b1) : (tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %w2 = model.param "net2.weight" : tensor<8x32xf32>
  %b2 = model.param "net2.bias" : tensor<8xf32>
  %y = model.linear "net2"(%r, %w2, %b2) : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %d = model.sub %y, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %sq = model.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = model.mean %sq : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<8x8xf32> {tp.grad_of = "net1.weight"}, tensor<8xf32> {tp.grad_of = "net1.bias"}, tensor<8x8xf32> {tp.grad_of = "net2.weight"}, tensor<8xf32> {tp.grad_of = "net2.bias"})
// CHECK-SAME: tp.result_types = [!tp.dtensor<f32, @mesh, [#tp.replicate]>, !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<32xf32, @mesh, [#tp.shard<0>]>, !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8xf32, @mesh, [#tp.replicate]>]
// CHECK: %[[W2:.*]] = tp.chunk %{{.*}} axis = 1 {module = "net2"} : tensor<8x32xf32> -> tensor<8x8xf32>
// CHECK: tp.all_reduce
// CHECK: %[[ONE:.*]] = model.full 1.000000e+00 {tp.phase = #tp.phase<backward>} : tensor<f32>
// CHECK-NOT: tp.all_gather
// CHECK-NOT: tp.all_reduce
// CHECK-NOT: tp.reduce_scatter
// CHECK-NOT: tp.all_to_all
// CHECK: model.linear_grad_input "net2"(%{{.*}}, %[[W2]]) {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK: model.linear_grad_weight "net2"{{.*}} -> tensor<8x8xf32>
// CHECK: model.relu_grad {{.*}} {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: model.linear_grad_weight "net1"{{.*}} -> tensor<8x8xf32>
// CHECK: model.sum_to {{.*}} {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return

// REPORT: "collectives": {
// REPORT-NEXT: "all_gather": 0,
// REPORT-NEXT: "all_reduce": 1,
// REPORT-NEXT: "all_to_all": 0,
// REPORT-NEXT: "broadcast": 0,
// REPORT-NEXT: "reduce_scatter": 0
// REPORT-NEXT: },
// The one all_reduce is the forward's: the backward phase has none.
// REPORT-NEXT: "collectives_by_phase": {
// REPORT-NEXT: "backward": {
// REPORT-NEXT: "all_gather": 0,
// REPORT-NEXT: "all_reduce": 0,
// REPORT-NEXT: "all_to_all": 0,
// REPORT-NEXT: "broadcast": 0,
// REPORT-NEXT: "reduce_scatter": 0
// REPORT-NEXT: },
// REPORT-NEXT: "forward": {
// REPORT-NEXT: "all_gather": 0,
// REPORT-NEXT: "all_reduce": 1,
