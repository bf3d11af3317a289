// RUN: tp-opt %s -split-input-file -tp-regather -verify-diagnostics | FileCheck %s

// tp-regather: the backward reads the forward's gathered value again; it
// gathers it again, from the shard, right before its first backward
// reader (marked backward), and the forward's gathered value dies with the
// forward. Forward readers and a returned value keep the forward's.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @step
// CHECK: %[[FWD:.*]] = tp.all_gather %arg0 on @mesh mesh_axes = [0] gather_axis = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[Y:.*]] = model.relu %[[FWD]]
// CHECK-NEXT: %[[G:.*]] = model.neg %[[Y]] {tp.phase = #tp.phase<backward>}
// CHECK-NEXT: %[[BWD:.*]] = tp.all_gather %arg0 on @mesh mesh_axes = [0] gather_axis = 1 {tp.phase = #tp.phase<backward>} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: model.relu_grad %[[G]], %[[BWD]] {tp.phase = #tp.phase<backward>}
// CHECK-NEXT: model.mul %[[BWD]], %[[G]] {tp.phase = #tp.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[FWD]]
func.func @step(%x: tensor<2x4x8xf32>) -> (tensor<2x8x8xf32>, tensor<2x8x8xf32>) {
  %g = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %y = model.relu %g : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %d = model.neg %y {tp.phase = #tp.phase<backward>} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %r = model.relu_grad %d, %g {tp.phase = #tp.phase<backward>} : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %m = model.mul %g, %d {tp.phase = #tp.phase<backward>} : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %m, %g : tensor<2x8x8xf32>, tensor<2x8x8xf32>
}

// -----

// The pass runs on the partitioned program.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @not_partitioned(%x: tensor<4xf32>) -> !tp.dtensor<4xf32, @mesh, [#tp.replicate]> {
  // expected-error @below {{tp-regather: the program is not partitioned yet ('tp.distribute' yields a !tp.dtensor); run tp-partition first}}
  %d = tp.distribute %x : tensor<4xf32> -> !tp.dtensor<4xf32, @mesh, [#tp.replicate]>
  return %d : !tp.dtensor<4xf32, @mesh, [#tp.replicate]>
}

// -----

// parameters-only (what tp-pipeline runs on every training step): only
// the gathers of parameter shards over the plan's fsdp_axis are gathered
// again for the backward (FSDP's reshard_after_forward); an activation's
// gather and a gather over another axis are left alone.
// RUN: tp-opt %s -split-input-file -tp-regather=parameters-only -verify-diagnostics | FileCheck %s --check-prefix=PARAMS
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], fsdp_axis = "dp">} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  // PARAMS-LABEL: func.func @fsdp
  // PARAMS: %[[S:.*]] = tp.chunk %{{.*}} on @mesh mesh_axes = [0] axis = 0
  // PARAMS-NEXT: %[[W:.*]] = tp.all_gather %[[S]] on @mesh mesh_axes = [0]
  // PARAMS-NEXT: %[[A:.*]] = tp.all_gather %arg0 on @mesh mesh_axes = [0]
  // PARAMS-NEXT: model.mul %[[W]], %[[A]]
  // PARAMS-NEXT: %[[W2:.*]] = tp.all_gather %[[S]] on @mesh mesh_axes = [0] gather_axis = 0 {tp.phase = #tp.phase<backward>}
  // PARAMS-NEXT: model.mul %[[W2]], %[[A]] {tp.phase = #tp.phase<backward>}
  func.func @fsdp(%x: tensor<2xf32>) -> tensor<4xf32> {
    %p = model.param "layers.0.w.weight" : tensor<4xf32>
    %s = tp.chunk %p on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %w = tp.all_gather %s on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %a = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %y = model.mul %w, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = model.mul %w, %a {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %z = model.add %y, %d {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %z : tensor<4xf32>
  }
}
