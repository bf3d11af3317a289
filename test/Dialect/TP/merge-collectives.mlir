// RUN: tp-opt %s -split-input-file -tp-merge-collectives -verify-diagnostics | FileCheck %s
// RUN: tp-opt %s -split-input-file -tp-merge-collectives="bucket-bytes=70" -verify-diagnostics | FileCheck %s --check-prefix=CAP

// tp-merge-collectives: a Partial on two mesh axes reduced by one
// all_reduce over both; the axes come out sorted, and the module stays.

tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[R:.*]] = tp.all_reduce %arg0 on @mesh mesh_axes = [0, 1] reduction = sum {module = "norm.weight"} : tensor<16xf32>
// CHECK-NEXT: return %[[R]]
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = tp.all_reduce %x on @mesh mesh_axes = [1] reduction = sum {module = "norm.weight"} : tensor<16xf32>
  %b = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum {module = "norm.weight"} : tensor<16xf32>
  return %b : tensor<16xf32>
}

// -----

// Not when the inner result has another reader, the reductions differ or
// the axes overlap.
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @no_chain
// CHECK-COUNT-6: tp.all_reduce
func.func @no_chain(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %a = tp.all_reduce %x on @mesh mesh_axes = [1] reduction = sum : tensor<16xf32>
  %b = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum : tensor<16xf32>
  %c = tp.all_reduce %x on @mesh mesh_axes = [1] reduction = max : tensor<16xf32>
  %d = tp.all_reduce %c on @mesh mesh_axes = [0] reduction = sum : tensor<16xf32>
  %e = tp.all_reduce %x on @mesh mesh_axes = [0, 1] reduction = min : tensor<16xf32>
  %f = tp.all_reduce %e on @mesh mesh_axes = [1] reduction = min : tensor<16xf32>
  return %a, %b, %d, %f : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// Gradients the optimizer reads at the end, each reduced right before its
// update, and the loss: one bucket right after the last input, in the
// order the inputs become ready; the chunk that only feeds one of them
// moves along. The all_reduce over other axes, alone, stays.
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @bucket
// CHECK: %[[L:.*]] = model.mean
// CHECK-NEXT: %[[GW:.*]] = model.neg %arg1
// CHECK-NEXT: %[[GB:.*]] = model.neg %arg2
// CHECK-NEXT: %[[C:.*]] = tp.chunk %[[GW]] on @mesh mesh_axes = [1] axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[P:.*]] = tp.pack %[[L]], %[[C]], %[[GB]] : tensor<f32>, tensor<4x4xf32>, tensor<4xf32> -> tensor<21xf32>
// CHECK-NEXT: %[[R:.*]] = tp.all_reduce %[[P]] on @mesh mesh_axes = [0] reduction = sum : tensor<21xf32>
// CHECK-NEXT: %[[UL:.*]] = tp.unpack %[[R]] offset = 0 : tensor<21xf32> -> tensor<f32>
// CHECK-NEXT: %[[UW:.*]] = tp.unpack %[[R]] offset = 1 : tensor<21xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[UB:.*]] = tp.unpack %[[R]] offset = 17 : tensor<21xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[N:.*]] = model.neg %arg2
// CHECK-NEXT: model.sgd_update "w"(%arg3, %[[UW]])
// CHECK-NEXT: model.sgd_update "b"(%arg4, %[[UB]])
// CHECK-NEXT: %[[RN:.*]] = tp.all_reduce %[[N]] on @mesh mesh_axes = [0, 1] reduction = sum {module = "norm.weight"}
// CHECK-NEXT: model.sgd_update "norm.weight"(%arg4, %[[RN]])
// CHECK-NEXT: return %[[UL]]
// A cap of 70 bytes: the loss (4 bytes) and the weight's gradient (64)
// fill one bucket, the bias's gradient is reduced alone.
// CAP-LABEL: func.func @bucket
// CAP: tp.pack %{{.*}}, %{{.*}} : tensor<f32>, tensor<4x4xf32> -> tensor<17xf32>
// CAP: tp.all_reduce %{{.*}} on @mesh mesh_axes = [0] reduction = sum {module = "b"} : tensor<4xf32>
func.func @bucket(%x: tensor<2x4xf32>, %w: tensor<8x4xf32>, %bias: tensor<4xf32>, %pw: tensor<4x4xf32>, %pb: tensor<4xf32>) -> (tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %l = model.mean %x : (tensor<2x4xf32>) -> tensor<f32>
  %gw = model.neg %w : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %gb = model.neg %bias : (tensor<4xf32>) -> tensor<4xf32>
  %n = model.neg %bias : (tensor<4xf32>) -> tensor<4xf32>
  %c = tp.chunk %gw on @mesh mesh_axes = [1] axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  %rw = tp.all_reduce %c on @mesh mesh_axes = [0] reduction = sum {module = "w"} : tensor<4x4xf32>
  %uw = model.sgd_update "w"(%pw, %rw) {lr = 0.1 : f64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %rb = tp.all_reduce %gb on @mesh mesh_axes = [0] reduction = sum {module = "b"} : tensor<4xf32>
  %ub = model.sgd_update "b"(%pb, %rb) {lr = 0.1 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %rn = tp.all_reduce %n on @mesh mesh_axes = [0, 1] reduction = sum {module = "norm.weight"} : tensor<4xf32>
  %un = model.sgd_update "norm.weight"(%pb, %rn) {lr = 0.1 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %rl = tp.all_reduce %l on @mesh mesh_axes = [0] reduction = sum : tensor<f32>
  return %rl, %uw, %ub, %un : tensor<f32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A result read before the next all_reduce's input exists (the forward's
// all_reduces) stays where it is; so does one of a dynamic shape.
tp.mesh @mesh(shape = 3) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @dependent
// CHECK-NOT: tp.pack
// CHECK-COUNT-3: tp.all_reduce
func.func @dependent(%x: tensor<4xf32>, %y: tensor<?x4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
  %a = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum : tensor<4xf32>
  %b = model.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = tp.all_reduce %b on @mesh mesh_axes = [0] reduction = sum : tensor<4xf32>
  %d = tp.all_reduce %y on @mesh mesh_axes = [0] reduction = sum : tensor<?x4xf32>
  return %c, %d : tensor<4xf32>, tensor<?x4xf32>
}

// -----

// The pass runs on the partitioned program.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @not_partitioned(%x: tensor<4xf32>) -> !tp.dtensor<4xf32, @mesh, [#tp.replicate]> {
  // expected-error @below {{tp-merge-collectives: the program is not partitioned yet ('tp.distribute' yields a !tp.dtensor); run tp-partition first}}
  %d = tp.distribute %x : tensor<4xf32> -> !tp.dtensor<4xf32, @mesh, [#tp.replicate]>
  return %d : !tp.dtensor<4xf32, @mesh, [#tp.replicate]>
}
