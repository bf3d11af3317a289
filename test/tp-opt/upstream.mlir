// tp-opt registers upstream MLIR's dialects (func, arith, math, tensor,
// linalg, scf, memref, bufferization, shard, mpi) and their passes, so one
// --pass-pipeline mixes tp's pipeline with upstream passes, on a module
// that holds model functions and upstream IR alike.
// RUN: tp-opt %s --pass-pipeline="builtin.module(tp-pipeline{plan=%examples/mlp_plan.json},func.func(linalg-generalize-named-ops),canonicalize)" | FileCheck %s
// Every tool says which tp it is.
// RUN: tp-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: tp-run --version | FileCheck %s --check-prefix=VERSION
// RUN: tp-model --version | FileCheck %s --check-prefix=VERSION
// VERSION: tp version {{[0-9]+\.[0-9]+\.[0-9]+}}

// CHECK-LABEL: func.func @forward
// CHECK: tp.all_reduce %{{.*}} on @mesh mesh_axes = [0] reduction = sum {module = "net2"}
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w1 = model.param "net1.weight" : tensor<32x8xf32>
  %b1 = model.param "net1.bias" : tensor<32xf32>
  %h = model.linear "net1"(%x, %w1, %b1) : (tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %a = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %w2 = model.param "net2.weight" : tensor<8x32xf32>
  %b2 = model.param "net2.bias" : tensor<8xf32>
  %y = model.linear "net2"(%a, %w2, %b2) : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// An upstream function next to the model: linalg's pass generalizes it,
// math and scf parse, the shard grid and an mpi op pass through.
// CHECK-LABEL: func.func @upstream
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: math.exp
// CHECK: mpi.comm_world
// CHECK: shard.grid @grid(shape = 2)
func.func @upstream(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>, %f: f32, %n: index) -> (tensor<4x2xf32>, f32, !mpi.comm) {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %f) -> f32 {
    %e = math.exp %acc : f32
    scf.yield %e : f32
  }
  %w = mpi.comm_world : !mpi.comm
  return %r, %s, %w : tensor<4x2xf32>, f32, !mpi.comm
}
shard.grid @grid(shape = 2)
