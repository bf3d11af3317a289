// import-shard: upstream shard annotations become tp placements and the
// linalg computation model ops.
// RUN: tp-opt %s --import-shard --split-input-file | FileCheck %s

// The grid is a mesh; an annotated argument arrives as a dtensor
// (split_axes [[], [0]] on a 2-D tensor is Shard(1)); a contraction generic
// over a zero fill is model.matmul; the annotated result is a
// tp.distribute to its layout, and the signature follows.
// CHECK: tp.mesh @tp(shape = 4)
// CHECK-LABEL: func.func @colwise
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<8x16xf32, @tp, [#tp.replicate]>, %[[W:.*]]: !tp.dtensor<16x32xf32, @tp, [#tp.shard<1>]>) -> !tp.dtensor<8x32xf32, @tp, [#tp.shard<1>]>
// CHECK-NEXT: %[[Y:.*]] = model.matmul %[[X]], %[[W]] : (!tp.dtensor<8x16xf32, @tp, [#tp.replicate]>, !tp.dtensor<16x32xf32, @tp, [#tp.shard<1>]>) -> tensor<8x32xf32>
// CHECK-NEXT: %[[D:.*]] = tp.distribute %[[Y]] : tensor<8x32xf32> -> !tp.dtensor<8x32xf32, @tp, [#tp.shard<1>]>
// CHECK-NEXT: return %[[D]]
shard.grid @tp(shape = 4)
func.func @colwise(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %rep = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %col = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %rep : tensor<8x16xf32>
  %ws = shard.shard %w to %col : tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %b, %a : f32
    %s = arith.addf %m, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %ys = shard.shard %y to %col : tensor<8x32xf32>
  return %ys : tensor<8x32xf32>
}

// -----

// 2-D grid: a dim split over both axes is Shard(d) on each; the other
// tensor dim's axis is its own. A pinned reshard chain (annotation then
// annotate_for_users) becomes tp.redistribute. Named ops are imported
// through their generic form: batch_matmul is model.matmul, an init that is
// not a zero fill is added, linalg.exp and a max with zero are model ops,
// collapse_shape is model.reshape.
// CHECK: tp.mesh @g(shape = 2x2)
// CHECK-LABEL: func.func @named
// CHECK-SAME: %[[A:.*]]: !tp.dtensor<4x8x16xf32, @g, [#tp.shard<0>, #tp.shard<0>]>
// CHECK-SAME: %[[B:.*]]: tensor<4x16x8xf32>
// CHECK: %[[MM:.*]] = model.matmul %[[A]], %[[B]] : {{.*}} -> tensor<4x8x8xf32>
// CHECK: %[[ONE:.*]] = model.full 1.000000e+00 : tensor<4x8x8xf32>
// CHECK: %[[ACC:.*]] = model.add %[[MM]], %[[ONE]]
// CHECK: %[[EXP:.*]] = model.exp %[[ACC]]
// CHECK: %[[RELU:.*]] = model.relu %[[EXP]]
// CHECK: %[[R:.*]] = model.reshape %[[RELU]] : (tensor<4x8x8xf32>) -> tensor<32x8xf32>
// CHECK: %[[S:.*]] = tp.distribute %[[R]] : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @g, [#tp.shard<0>, #tp.shard<1>]>
// CHECK: %[[T:.*]] = tp.redistribute %[[S]] : !tp.dtensor<32x8xf32, @g, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<32x8xf32, @g, [#tp.replicate, #tp.replicate]>
// CHECK: return %[[T]]
shard.grid @g(shape = 2x2)
func.func @named(%a: tensor<4x8x16xf32>, %b: tensor<4x16x8xf32>) -> tensor<32x8xf32> {
  %both = shard.sharding @g split_axes = [[0, 1]] : !shard.sharding
  %as = shard.shard %a to %both : tensor<4x8x16xf32>
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %mm = linalg.batch_matmul ins(%as, %b : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%f : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %x = linalg.exp ins(%mm : tensor<4x8x8xf32>) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
       ins(%x : tensor<4x8x8xf32>) outs(%e : tensor<4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8x8xf32>
  %c = tensor.collapse_shape %r [[0, 1], [2]] : tensor<4x8x8xf32> into tensor<32x8xf32>
  %rows = shard.sharding @g split_axes = [[0], [1]] : !shard.sharding
  %rep = shard.sharding @g split_axes = [[]] : !shard.sharding
  %cs = shard.shard %c to %rows : tensor<32x8xf32>
  %cr = shard.shard %cs to %rep annotate_for_users : tensor<32x8xf32>
  return %cr : tensor<32x8xf32>
}

// -----

// An input read over the trailing loops only (a bias over rows) is
// broadcast the way model's binary ops broadcast (dims aligned at the end).
// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[B:.*]]: !tp.dtensor<32xf32, @tp, [#tp.shard<0>]>)
// CHECK: %[[Y:.*]] = model.add %[[X]], %[[B]] : (tensor<8x32xf32>, !tp.dtensor<32xf32, @tp, [#tp.shard<0>]>) -> tensor<8x32xf32>
// CHECK: return %[[Y]]
shard.grid @tp(shape = 4)
func.func @bias(%x: tensor<8x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %s = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %bs = shard.shard %b to %s : tensor<32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
       ins(%x, %bs : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// A weight stored [n, k] is read through model.transpose; a sum over a
// loop is model.reduce_sum (which keeps the dim: reshaped away when the
// result drops it), a max into -inf model.reduce_max (the kept dim is the
// result's constant-0 index).
// CHECK-LABEL: func.func @linear_reductions
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK: %[[WT:.*]] = model.transpose %[[W]] {permutation = array<i64: 1, 0>} : (tensor<32x16xf32>) -> tensor<16x32xf32>
// CHECK: %[[H:.*]] = model.matmul %[[X]], %[[WT]] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
// CHECK: %[[S:.*]] = model.reduce_sum %[[H]] {dim = 1 : i64} : (tensor<8x32xf32>) -> tensor<8x1xf32>
// CHECK: %[[SR:.*]] = model.reshape %[[S]] : (tensor<8x1xf32>) -> tensor<8xf32>
// CHECK: %[[M:.*]] = model.reduce_max %[[H]] {dim = 0 : i64} : (tensor<8x32xf32>) -> tensor<1x32xf32>
// CHECK: return %[[SR]], %[[M]]
shard.grid @tp(shape = 4)
func.func @linear_reductions(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>) -> (tensor<8xf32>, tensor<1x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%x, %w : tensor<8x16xf32>, tensor<32x16xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
       ins(%h : tensor<8x32xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<1x32xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x32xf32>) -> tensor<1x32xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>], iterator_types = ["reduction", "parallel"]}
       ins(%h : tensor<8x32xf32>) outs(%f2 : tensor<1x32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x32xf32>
  return %s, %m : tensor<8xf32>, tensor<1x32xf32>
}

// -----

// linalg.transpose and linalg.reduce through their generic forms:
// model.transpose (permutation[i] the input dim that becomes dim i, as in
// linalg.transpose) and model.reduce_sum.
// CHECK-LABEL: func.func @transpose_reduce
// CHECK: %[[T:.*]] = model.transpose %[[X:.*]] {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK: %[[R:.*]] = model.reduce_sum %[[T]] {dim = 2 : i64} : (tensor<4x2x3xf32>) -> tensor<4x2x1xf32>
// CHECK: %[[S:.*]] = model.reshape %[[R]] : (tensor<4x2x1xf32>) -> tensor<4x2xf32>
// CHECK: return %[[T]], %[[S]]
shard.grid @tp(shape = 4)
func.func @transpose_reduce(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<4x2xf32>) {
  %e = tensor.empty() : tensor<4x2x3xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x2xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = linalg.reduce ins(%t : tensor<4x2x3xf32>) outs(%f1 : tensor<4x2xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %t, %r : tensor<4x2x3xf32>, tensor<4x2xf32>
}

// -----

// Two grids, one per function: each function keeps its own mesh (one
// function on two grids is an error, import-shard-errors.mlir).
// CHECK: tp.mesh @ga(shape = 2)
// CHECK: tp.mesh @gb(shape = 4)
// CHECK-LABEL: func.func @on_ga
// CHECK-SAME: !tp.dtensor<8x16xf32, @ga, [#tp.shard<0>]>
// CHECK-LABEL: func.func @on_gb
// CHECK-SAME: !tp.dtensor<8x16xf32, @gb, [#tp.shard<0>]>
shard.grid @ga(shape = 2)
shard.grid @gb(shape = 4)
func.func @on_ga(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @ga split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}
func.func @on_gb(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @gb split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x16xf32>
  return %xs : tensor<8x16xf32>
}

// -----

// The math body ops are model's math ops: tanh, erf, sqrt, rsqrt, a
// division by a broadcast input, and a power by a constant exponent.
// CHECK-LABEL: func.func @math
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<8x32xf32, @tp, [#tp.shard<1>]>, %[[B:.*]]: tensor<32xf32>)
// CHECK: %[[T:.*]] = model.tanh %[[X]]
// CHECK: %[[E:.*]] = model.erf %[[T]]
// CHECK: %[[S:.*]] = model.sqrt %[[E]]
// CHECK: %[[R:.*]] = model.rsqrt %[[S]]
// CHECK: %[[D:.*]] = model.div %[[R]], %[[B]] : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
// CHECK: model.pow %[[D]] {exponent = 3.000000e+00 : f64}
shard.grid @tp(shape = 4)
func.func @math(%x: tensor<8x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %s = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x32xf32>
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
       ins(%xs, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = math.tanh %a : f32
    %r = math.erf %t : f32
    %q = math.sqrt %r : f32
    %rq = math.rsqrt %q : f32
    %d = arith.divf %rq, %c : f32
    %p = math.powf %d, %three : f32
    linalg.yield %p : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
