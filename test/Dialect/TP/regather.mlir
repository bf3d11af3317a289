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
// gather and a gather over another axis are left alone. Only the units
// (layers.*, the rest the root) whose backward comes after another unit's
// first gather: here layers.0, behind layers.1. The root, gathered first
// and read last by the forward (the head) and first by the backward, and
// layers.1, whose backward follows its forward with no other unit
// gathered between, stay gathered (FSDP2 keeps its root so, torchtitan
// its last block): gathering them again would repeat the forward's
// gather at once.
// RUN: tp-opt %s -split-input-file -tp-regather=parameters-only -verify-diagnostics | FileCheck %s --check-prefix=PARAMS
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], fsdp_axis = "dp">} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  // PARAMS-LABEL: func.func @fsdp
  // PARAMS: %[[SE:.*]] = tp.chunk %{{.*}} on @mesh mesh_axes = [0] axis = 0
  // PARAMS-NEXT: %[[WE:.*]] = tp.all_gather %[[SE]] on @mesh mesh_axes = [0]
  // PARAMS-NEXT: %[[A:.*]] = tp.all_gather %arg0 on @mesh mesh_axes = [0]
  // PARAMS-NEXT: %[[T:.*]] = tp.all_gather %arg0 on @mesh mesh_axes = [1]
  // PARAMS-NEXT: %[[H0:.*]] = model.mul %[[WE]], %[[A]]
  // PARAMS: %[[S0:.*]] = tp.chunk
  // PARAMS-NEXT: %[[W0:.*]] = tp.all_gather %[[S0]] on @mesh mesh_axes = [0]
  // PARAMS-NEXT: %[[H1:.*]] = model.mul %[[W0]], %[[H0]]
  // PARAMS: %[[S1:.*]] = tp.chunk
  // PARAMS-NEXT: %[[W1:.*]] = tp.all_gather %[[S1]] on @mesh mesh_axes = [0]
  // PARAMS-NEXT: %[[H2:.*]] = model.mul %[[W1]], %[[H1]]
  // PARAMS-NEXT: %[[H3:.*]] = model.mul %[[WE]], %[[H2]]
  // PARAMS-NEXT: %[[D3:.*]] = model.mul %[[WE]], %[[H3]] {tp.phase = #tp.phase<backward>}
  // PARAMS-NEXT: %[[D2:.*]] = model.mul %[[W1]], %[[D3]] {tp.phase = #tp.phase<backward>}
  // PARAMS-NEXT: %[[W0B:.*]] = tp.all_gather %[[S0]] on @mesh mesh_axes = [0] gather_axis = 0 {tp.phase = #tp.phase<backward>}
  // PARAMS-NEXT: %[[D1:.*]] = model.mul %[[W0B]], %[[D2]] {tp.phase = #tp.phase<backward>}
  // PARAMS-NEXT: model.mul %[[A]], %[[T]] {tp.phase = #tp.phase<backward>}
  func.func @fsdp(%x: tensor<2xf32>) -> tensor<4xf32> {
    %pe = model.param "embed.weight" : tensor<4xf32>
    %se = tp.chunk %pe on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %we = tp.all_gather %se on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %a = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %t = tp.all_gather %x on @mesh mesh_axes = [1] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %h0 = model.mul %we, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %p0 = model.param "layers.0.w.weight" : tensor<4xf32>
    %s0 = tp.chunk %p0 on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %w0 = tp.all_gather %s0 on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %h1 = model.mul %w0, %h0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %p1 = model.param "layers.1.w.weight" : tensor<4xf32>
    %s1 = tp.chunk %p1 on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %w1 = tp.all_gather %s1 on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %h2 = model.mul %w1, %h1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %h3 = model.mul %we, %h2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d3 = model.mul %we, %h3 {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d2 = model.mul %w1, %d3 {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d1 = model.mul %w0, %d2 {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = model.mul %a, %t {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %z = model.add %d1, %e {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %z : tensor<4xf32>
  }
}

// -----

// The plan's fsdp_units name the units: with each layer's `w` and `v`
// units of their own, layers.1.v, gathered last and read first by the
// backward, stays gathered; layers.1.w, behind v's gather, is gathered
// again.
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], fsdp_axis = "dp", fsdp_units = ["layers.*.w", "layers.*.v"]>} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  // PARAMS-LABEL: func.func @units
  // PARAMS: %[[SW:.*]] = tp.chunk
  // PARAMS: %[[SV:.*]] = tp.chunk
  // PARAMS-NEXT: %[[WV:.*]] = tp.all_gather %[[SV]]
  // PARAMS-NEXT: %[[H1:.*]] = model.mul %[[WV]]
  // PARAMS-NEXT: %[[D1:.*]] = model.mul %[[WV]], %[[H1]] {tp.phase = #tp.phase<backward>}
  // PARAMS-NEXT: %[[WW:.*]] = tp.all_gather %[[SW]] on @mesh mesh_axes = [0] gather_axis = 0 {tp.phase = #tp.phase<backward>}
  // PARAMS-NEXT: model.mul %[[WW]], %[[D1]] {tp.phase = #tp.phase<backward>}
  func.func @units(%x: tensor<4xf32>) -> tensor<4xf32> {
    %pw = model.param "layers.1.w.weight" : tensor<4xf32>
    %sw = tp.chunk %pw on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %ww = tp.all_gather %sw on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %h0 = model.mul %ww, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %pv = model.param "layers.1.v.weight" : tensor<4xf32>
    %sv = tp.chunk %pv on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %wv = tp.all_gather %sv on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %h1 = model.mul %wv, %h0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d1 = model.mul %wv, %h1 {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d0 = model.mul %ww, %d1 {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %d0 : tensor<4xf32>
  }
}

// -----

// reshard_after_forward = false: nothing is gathered again.
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], fsdp_axis = "dp", reshard_after_forward = false>} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  // PARAMS-LABEL: func.func @kept
  // PARAMS-COUNT-2: tp.all_gather
  // PARAMS-NOT: tp.all_gather
  // PARAMS: return
  func.func @kept(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p0 = model.param "layers.0.w.weight" : tensor<4xf32>
    %s0 = tp.chunk %p0 on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %w0 = tp.all_gather %s0 on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %h0 = model.mul %w0, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %p1 = model.param "layers.1.w.weight" : tensor<4xf32>
    %s1 = tp.chunk %p1 on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %w1 = tp.all_gather %s1 on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
    %h1 = model.mul %w1, %h0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d1 = model.mul %w1, %h1 {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d0 = model.mul %w0, %d1 {tp.phase = #tp.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %d0 : tensor<4xf32>
  }
}
