// RUN: tp-opt %S/Inputs/tensor_ops.mlir --import-shard | FileCheck %s

// Tensor ops become model ops: tensor.pad a concat of constant blocks and
// the value, extract_slice a model.slice per cut dim, tensor.concat a
// model.concat, insert_slice the destination's pieces around the source.
// CHECK-LABEL: func.func @tensor_ops
// CHECK: %[[L:.*]] = model.full 5.000000e-01 : tensor<8x1xf32>
// CHECK: %[[H:.*]] = model.full 5.000000e-01 : tensor<8x1xf32>
// CHECK: %[[P:.*]] = model.concat %[[L]], %{{.*}}, %[[H]] {dim = 1 : i64}
// CHECK-SAME: -> tensor<8x18xf32>
// CHECK: %[[S:.*]] = model.slice %[[P]] {dim = 1 : i64, start = 0 : i64, step = 2 : i64} : (tensor<8x18xf32>) -> tensor<8x9xf32>
// CHECK: %[[C:.*]] = model.concat %[[S]], %[[S]] {dim = 1 : i64} : (tensor<8x9xf32>, tensor<8x9xf32>) -> tensor<8x18xf32>
// CHECK: %[[B:.*]] = model.slice %{{.*}} {dim = 1 : i64, start = 0 : i64} : (!tp.dtensor<8x16xf32, @g, [#tp.shard<0>]>) -> tensor<8x4xf32>
// CHECK: %[[BEFORE:.*]] = model.slice %[[C]] {dim = 1 : i64, start = 0 : i64} : (tensor<8x18xf32>) -> tensor<8x5xf32>
// CHECK: %[[AFTER:.*]] = model.slice %[[C]] {dim = 1 : i64, start = 9 : i64} : (tensor<8x18xf32>) -> tensor<8x9xf32>
// CHECK: model.concat %[[BEFORE]], %[[B]], %[[AFTER]] {dim = 1 : i64} : (tensor<8x5xf32>, tensor<8x4xf32>, tensor<8x9xf32>) -> tensor<8x18xf32>
// CHECK-NOT: tensor.
