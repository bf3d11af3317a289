// tp's passes nest in another compiler's pipeline: the passes that work on
// one function at a time (tp-propagate, tp-optimize, tp-lower-redistribute,
// tp-partition, tp-cse, tp-regather, tp-merge-collectives) are anchored on
// func.func, and those that need the whole module (tp-apply-plan creates the
// mesh, tp-differentiate and tp-optimizer-step add results and functions,
// tp-comm-report counts every function) on builtin.module, which may be
// nested in the compiler's own module.
//
// The pipeline spelled pass by pass, with the function passes nested under
// func.func as a compiler writes them, gives what tp-pipeline gives.
// RUN: tp-opt %s --tp-pipeline="plan=%examples/mlp_plan.json" -o %t.pipeline.mlir
// RUN: tp-opt %s --pass-pipeline="builtin.module(tp-apply-plan{plan=%examples/mlp_plan.json},tp-lower-styles,func.func(tp-optimize,tp-lower-redistribute,tp-partition,tp-cse,tp-merge-collectives))" -o %t.spelled.mlir
// RUN: diff %t.pipeline.mlir %t.spelled.mlir
// RUN: FileCheck %s --input-file=%t.spelled.mlir
//
// The same on a module nested in a compiler's outer module: tp's module
// passes run on the nested module, which gets the mesh.
// RUN: echo 'module @outer { module @model {' > %t.nested.mlir
// RUN: cat %s >> %t.nested.mlir
// RUN: echo '} }' >> %t.nested.mlir
// RUN: tp-opt %t.nested.mlir --pass-pipeline="builtin.module(builtin.module(tp-pipeline{plan=%examples/mlp_plan.json}))" | FileCheck %s --check-prefix=NESTED
//
// Each function pass runs alone on one function of a module; the other
// function is left as it was.
// RUN: tp-opt %t.spelled.mlir --pass-pipeline="builtin.module(func.func(tp-cse))" | FileCheck %s --check-prefix=CSE
//
// A function pass run on a module is an upstream pass-manager error, not a
// crash.
// RUN: not tp-opt %s --pass-pipeline="builtin.module(tp-partition)" 2>&1 | FileCheck %s --check-prefix=ANCHOR

// CHECK: tp.mesh @mesh(shape = 4)
// CHECK-LABEL: func.func @forward
// CHECK-SAME: tp.spmd
// CHECK: tp.chunk
// CHECK: model.linear "net1"
// CHECK: tp.all_reduce %{{.*}} on @mesh mesh_axes = [0] reduction = sum {module = "net2"}
// CHECK-LABEL: func.func @other
// CHECK-SAME: tp.spmd

// NESTED: module @outer {
// NESTED-NEXT: module @model attributes {tp.plan
// NESTED-NEXT: tp.mesh @mesh(shape = 4)
// NESTED: func.func @forward
// NESTED: tp.all_reduce

// CSE-LABEL: func.func @forward
// CSE-LABEL: func.func @other
// CSE: %[[A:.*]] = model.relu %arg0
// CSE-NOT: model.relu
// CSE: model.add %[[A]], %[[A]]

// ANCHOR: error: Can't add pass 'TPPartitionPass' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

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

// A second function without parallel modules: replicated, two equal ops.
func.func @other(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = model.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
