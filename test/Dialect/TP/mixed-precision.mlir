// RUN: tp-opt %s -split-input-file -tp-mixed-precision -verify-diagnostics | FileCheck %s
// The pass is idempotent: a second run changes nothing.
// RUN: tp-opt %s -split-input-file -tp-mixed-precision -tp-mixed-precision -verify-diagnostics | FileCheck %s
// RUN: tp-opt %s -split-input-file -tp-mixed-precision=param-dtype=f16 -verify-diagnostics | FileCheck %s --check-prefix=F16
// f32 changes nothing.
// RUN: tp-opt %s -split-input-file -tp-mixed-precision=param-dtype=f32 -verify-diagnostics | FileCheck %s --check-prefix=F32
// RUN: not tp-opt %s -split-input-file -tp-mixed-precision=param-dtype=f8 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: tp-mixed-precision: param-dtype must be bf16, f16 or f32, not 'f8'

// tp-mixed-precision: the f32 parameters stay f32 and are read through a
// cast right after they are placed; the input is cast where it is read;
// activations (and the forward's all_reduce) are bf16; the cross entropy
// reads its logits in f32; a returned activation is cast back to the
// declared f32.

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[T:.*]]: tensor<2xi64>) -> (tensor<f32>, tensor<2x8xf32>)
// CHECK-NEXT: %[[XC:.*]] = model.cast %[[X]] : (tensor<2x8xf32>) -> tensor<2x8xbf16>
// CHECK-NEXT: %[[W1:.*]] = model.param "w1.weight" : tensor<16x8xf32>
// CHECK-NEXT: %[[S1:.*]] = tp.distribute %[[W1]] : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: %[[C1:.*]] = model.cast %[[S1]] : (!tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<16x8xbf16, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: %[[H:.*]] = model.linear "w1"(%[[XC]], %[[C1]]) : (tensor<2x8xbf16>, !tp.dtensor<16x8xbf16, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x16xbf16, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[A:.*]] = model.relu %[[H]] : (!tp.dtensor<2x16xbf16, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<2x16xbf16, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[W2:.*]] = model.param "w2.weight" : tensor<8x16xf32>
// CHECK-NEXT: %[[S2:.*]] = tp.distribute %[[W2]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[C2:.*]] = model.cast %[[S2]]
// CHECK-NEXT: %[[P:.*]] = model.linear "w2"(%[[A]], %[[C2]]) : {{.*}} -> !tp.dtensor<2x8xbf16, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[P]] : !tp.dtensor<2x8xbf16, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<2x8xbf16, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[L:.*]] = tp.to_local %[[R]] : !tp.dtensor<2x8xbf16, @mesh, [#tp.replicate]> -> tensor<2x8xbf16>
// CHECK-NEXT: %[[LW:.*]] = model.cast %[[L]] : (tensor<2x8xbf16>) -> tensor<2x8xf32>
// CHECK-NEXT: %[[CE:.*]] = model.cross_entropy %[[LW]], %[[T]] : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<f32>
// CHECK-NEXT: return %[[CE]], %[[LW]] : tensor<f32>, tensor<2x8xf32>
// F16-LABEL: func.func @mlp
// F16: model.cast %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf16>
// F16: model.cross_entropy %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<f32>
// F32-LABEL: func.func @mlp
// F32-NOT: model.cast
// F32: return
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @mlp(%x: tensor<2x8xf32>, %t: tensor<2xi64>) -> (tensor<f32>, tensor<2x8xf32>) {
  %w1 = model.param "w1.weight" : tensor<16x8xf32>
  %s1 = tp.distribute %w1 : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
  %h = model.linear "w1"(%x, %s1) : (tensor<2x8xf32>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x16xf32, @mesh, [#tp.shard<1>]>
  %a = model.relu %h : (!tp.dtensor<2x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<2x16xf32, @mesh, [#tp.shard<1>]>
  %w2 = model.param "w2.weight" : tensor<8x16xf32>
  %s2 = tp.distribute %w2 : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %p = model.linear "w2"(%a, %s2) : (!tp.dtensor<2x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<2x8xf32, @mesh, [#tp.partial<sum>]>
  %r = tp.redistribute %p : !tp.dtensor<2x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<2x8xf32, @mesh, [#tp.replicate]>
  %l = tp.to_local %r : !tp.dtensor<2x8xf32, @mesh, [#tp.replicate]> -> tensor<2x8xf32>
  %ce = model.cross_entropy %l, %t : (tensor<2x8xf32>, tensor<2xi64>) -> tensor<f32>
  return %ce, %l : tensor<f32>, tensor<2x8xf32>
}

// -----

// FSDP: the cast reads the dp shard (the distribute the optimizer
// updates), so the gather moves bf16. A constant is computed in f32 and
// cast once; a model.generic computes in f32 on operands cast back, its
// result cast again for the bf16 ops after it.

// CHECK-LABEL: func.func @fsdp
// CHECK: %[[W:.*]] = model.param "w.weight" : tensor<8x8xf32>
// CHECK-NEXT: %[[S:.*]] = tp.distribute %[[W]] : tensor<8x8xf32> -> !tp.dtensor<8x8xf32, @mesh2, [#tp.shard<0>, #tp.replicate]>
// CHECK-NEXT: %[[C:.*]] = model.cast %[[S]] : (!tp.dtensor<8x8xf32, @mesh2, [#tp.shard<0>, #tp.replicate]>) -> !tp.dtensor<8x8xbf16, @mesh2, [#tp.shard<0>, #tp.replicate]>
// CHECK-NEXT: %[[G:.*]] = tp.redistribute %[[C]] : !tp.dtensor<8x8xbf16, @mesh2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x8xbf16, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: %[[Y:.*]] = model.linear "w"(%{{.*}}, %[[G]]) {{.*}} -> !tp.dtensor<4x8xbf16, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: %[[YW:.*]] = model.cast %[[Y]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: %[[K:.*]] = model.constant dense<5.000000e-01> : tensor<8xf32>
// CHECK-NEXT: %[[KC:.*]] = model.cast %[[K]] : (tensor<8xf32>) -> tensor<8xbf16>
// CHECK-NEXT: %[[I:.*]] = model.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = model.generic %[[YW]], %[[I]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK: %[[EC:.*]] = model.cast %[[E]] : {{.*}} -> !tp.dtensor<4x8xbf16, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: %[[Z:.*]] = model.add %[[EC]], %[[KC]] : {{.*}} -> !tp.dtensor<4x8xbf16, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: %[[M:.*]] = model.mean %[[Z]] : {{.*}} -> !tp.dtensor<bf16, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: %[[MW:.*]] = model.cast %[[M]] : {{.*}} -> !tp.dtensor<f32, @mesh2, [#tp.replicate, #tp.replicate]>
// CHECK-NEXT: return %[[MW]]
tp.mesh @mesh2(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @fsdp(%x: !tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>) -> !tp.dtensor<f32, @mesh2, [#tp.replicate, #tp.replicate]> {
  %w = model.param "w.weight" : tensor<8x8xf32>
  %s = tp.distribute %w : tensor<8x8xf32> -> !tp.dtensor<8x8xf32, @mesh2, [#tp.shard<0>, #tp.replicate]>
  %g = tp.redistribute %s : !tp.dtensor<8x8xf32, @mesh2, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>
  %y = model.linear "w"(%x, %g) : (!tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>, !tp.dtensor<8x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>) -> !tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>
  %k = model.constant dense<0.5> : tensor<8xf32>
  %init = model.constant dense<0.0> : tensor<4x8xf32>
  %e = model.generic %y, %init {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (!tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>, tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]> {
  ^bb0(%a: f32, %b: f32):
    %v = math.exp %a : f32
    model.generic_yield %v : f32
  }
  %z = model.add %e, %k : (!tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>, tensor<8xf32>) -> !tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>
  %m = model.mean %z : (!tp.dtensor<4x8xf32, @mesh2, [#tp.replicate, #tp.replicate]>) -> !tp.dtensor<f32, @mesh2, [#tp.replicate, #tp.replicate]>
  return %m : !tp.dtensor<f32, @mesh2, [#tp.replicate, #tp.replicate]>
}

