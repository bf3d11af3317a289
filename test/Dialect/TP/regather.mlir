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
