// RUN: tp-opt %s --import-shard --split-input-file | FileCheck %s

// Generics that no model op expresses are kept as model.generic: the same
// inputs, maps, iterators and body; an init the body does not read is a
// zero model.full, a fill of a constant its model.full.

// CHECK-LABEL: func.func @sin
// CHECK: %[[Z:.*]] = model.full 0.000000e+00 : tensor<8xf32>
// CHECK: model.generic %{{.*}}, %[[Z]] {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel"]} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK: math.sin
// CHECK: model.generic_yield
shard.grid @g(shape = 4)
func.func @sin(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
       ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @transposed_lhs
// CHECK: model.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} : (tensor<16x8xf32>, tensor<16x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
shard.grid @g(shape = 4)
func.func @transposed_lhs(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%a, %b : tensor<16x8xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) {
  ^bb0(%x: f32, %w: f32, %c: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_only
// CHECK: model.generic {{.*}} : (tensor<32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK: math.exp
shard.grid @g(shape = 4)
func.func @broadcast_only(%b: tensor<32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
       ins(%b : tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @product
// CHECK: %[[ONE:.*]] = model.full 1.000000e+00 : tensor<8xf32>
// CHECK: model.generic %{{.*}}, %[[ONE]] {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK: arith.mulf
shard.grid @g(shape = 4)
func.func @product(%x: tensor<8x32xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
       ins(%x : tensor<8x32xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.mulf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %p : tensor<8xf32>
}
