// RUN: tp-opt %s -split-input-file -tp-propagate | FileCheck %s

// tp-propagate: every value downstream of a dtensor gets a placement from its
// op's sharding rule, and operands are redistributed to what the rule needs.

tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}

// Element-wise ops keep a shard; a broadcast operand follows the shard on
// the dim it is aligned with (bias dim 0 <-> result dim 1). The function
// signature follows what it returns.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16xf32>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK: %[[D:.*]] = tp.distribute %[[X]]
// CHECK-NEXT: %[[R:.*]] = model.relu %[[D]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[G:.*]] = model.gelu %[[R]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[DB:.*]] = tp.distribute %[[B]] : tensor<16xf32> -> !tp.dtensor<16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: %[[A:.*]] = model.add %[[G]], %[[DB]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: return %[[A]] : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
func.func @elementwise(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %g = model.gelu %r : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = model.add %g, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %a : tensor<4x16xf32>
}

// A rowwise linear gives Partial(sum). Linear ops keep it (Partial * Replicate,
// Partial + Partial); the ReLU is not linear, so the value is reduced first.
// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%{{.*}}: tensor<4x16xf32>, %{{.*}}: tensor<8x16xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[P:.*]] = model.linear "net2"
// CHECK-SAME: -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: %[[M:.*]] = model.mul %[[P]], %[[Y]] : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: %[[S:.*]] = model.add %[[M]], %[[P]] : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: %[[RS:.*]] = tp.redistribute %[[S]] : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[RELU:.*]] = model.relu %[[RS]] : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: return %[[RELU]]
func.func @partial(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %dw = tp.distribute %w : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %p = model.linear "net2"(%dx, %dw) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  %m = model.mul %p, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = model.add %m, %p : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = model.relu %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Dropout (eval or train) and its gradient scale each element by a factor
// >= 0 that depends only on its global index: shards and every Partial
// pass through (a sum or an average is linear, max and min commute with
// the factor), with no redistribution.
// CHECK-LABEL: func.func @dropout_keeps_placements
// CHECK: %[[S:.*]] = model.dropout "drop"(%{{.*}}) {p = 1.000000e-01 : f64, train} : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: model.dropout_grad "drop"(%[[S]]) {{.*}} -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK: %[[P:.*]] = model.linear "net2"
// CHECK-NEXT: %[[DP:.*]] = model.dropout "drop"(%[[P]]) {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: model.dropout_grad "drop"(%[[DP]]) {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: %[[MAX:.*]] = tp.distribute
// CHECK-NEXT: model.dropout "drop"(%[[MAX]]) {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>
// CHECK-NOT: tp.redistribute
// CHECK: return
func.func @dropout_keeps_placements(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %y: tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %s = model.dropout "drop"(%d) {p = 0.1 : f64, train} : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %gs = model.dropout_grad "drop"(%s) {p = 0.1 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %dw = tp.distribute %w : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %p = model.linear "net2"(%d, %dw) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  %dp = model.dropout "drop"(%p) {p = 0.1 : f64, train} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %gp = model.dropout_grad "drop"(%dp) {p = 0.1 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %max = tp.distribute %y : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>
  %dm = model.dropout "drop"(%max) {p = 0.1 : f64} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>) -> tensor<4x8xf32>
  return %gs, %gp, %dm : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Adding a replicated value to a Partial one would add it once per rank:
// the Partial operand is reduced first.
// CHECK-LABEL: func.func @partial_plus_replicate
// CHECK: %[[P:.*]] = model.linear "net2"
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[P]] : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.add %[[R]], %{{.*}} : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, tensor<8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
func.func @partial_plus_replicate(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %dx = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %dw = tp.distribute %w : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %p = model.linear "net2"(%dx, %dw) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  %a = model.add %p, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// Partial(avg|max|min) (a module input declared so, or a Rowwise output
// wanted so): the rules that keep a Partial keep Partial(sum) only, so every
// op that is not a pure rearrangement of elements gets the value reduced to
// Replicate first (linear, add of two, mul by a replicated value, reduce_sum,
// mean, relu, matmul, softmax, norms, even reduce_max of a Partial(max));
// transpose and reshape keep any Partial.
// CHECK-LABEL: func.func @partial_kinds
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[V:.*]]: tensor<8x4xf32>, %[[G:.*]]: tensor<8xf32>)
// CHECK: %[[AVG:.*]] = tp.distribute %[[X]] : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]>
// CHECK-NEXT: %[[MAX:.*]] = tp.distribute %[[X]] : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>
// CHECK-NEXT: %[[MIN:.*]] = tp.distribute %[[X]] : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<min>]>
// CHECK-NEXT: %[[R0:.*]] = tp.redistribute %[[AVG]] {module = "net1"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.linear "net1"(%[[R0]], %[[W]]) : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, tensor<16x8xf32>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R1:.*]] = tp.redistribute %[[MAX]] : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R2:.*]] = tp.redistribute %[[MAX]] : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.add %[[R1]], %[[R2]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R3:.*]] = tp.redistribute %[[MIN]] : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<min>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.mul %[[R3]], %[[Y]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R4:.*]] = tp.redistribute %[[MAX]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.reduce_sum %[[R4]] {{.*}} -> !tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R5:.*]] = tp.redistribute %[[AVG]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.mean %[[R5]] {{.*}} -> !tp.dtensor<f32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R6:.*]] = tp.redistribute %[[MIN]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.relu %[[R6]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R7:.*]] = tp.redistribute %[[MAX]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.matmul %[[R7]], %[[V]] {{.*}} -> !tp.dtensor<4x4xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R8:.*]] = tp.redistribute %[[AVG]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.softmax %[[R8]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R9:.*]] = tp.redistribute %[[MAX]] {module = "norm"} : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.rms_norm "norm"(%[[R9]], %[[G]]) {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[R10:.*]] = tp.redistribute %[[MAX]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.reduce_max %[[R10]] {{.*}} -> !tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.transpose %[[MAX]] {{.*}} -> !tp.dtensor<8x4xf32, @mesh, [#tp.partial<max>]>
// CHECK-NEXT: model.reshape %[[AVG]] {{.*}} -> !tp.dtensor<32xf32, @mesh, [#tp.partial<avg>]>
func.func @partial_kinds(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %y: tensor<4x8xf32>, %v: tensor<8x4xf32>, %g: tensor<8xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<f32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<8x4xf32>, tensor<32xf32>) {
  %avg = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]>
  %max = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>
  %min = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<min>]>
  %l = model.linear "net1"(%avg, %w) : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %a = model.add %max, %max : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>, !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>) -> tensor<4x8xf32>
  %m = model.mul %min, %y : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<min>]>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = model.reduce_sum %max {dim = 1 : i64} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>) -> tensor<4x1xf32>
  %e = model.mean %avg : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]>) -> tensor<f32>
  %r = model.relu %min : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<min>]>) -> tensor<4x8xf32>
  %mm = model.matmul %max, %v : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %sm = model.softmax %avg {dim = 1 : i64} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]>) -> tensor<4x8xf32>
  %n = model.rms_norm "norm"(%max, %g) {eps = 1.0e-05 : f64} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>, tensor<8xf32>) -> tensor<4x8xf32>
  %rm = model.reduce_max %max {dim = 1 : i64} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>) -> tensor<4x1xf32>
  %t = model.transpose %max {permutation = array<i64: 1, 0>} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>) -> tensor<8x4xf32>
  %h = model.reshape %avg : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]>) -> tensor<32xf32>
  return %l, %a, %m, %s, %e, %r, %mm, %sm, %n, %rm, %t, %h : tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<f32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<8x4xf32>, tensor<32xf32>
}

// Attention heads: a colwise projection (Shard(-1)) reshaped to
// [batch, seq, heads, head_dim] keeps the heads sharded, through rotary,
// attention, a transpose (the shard follows its dim), a softmax over
// another dim, and back.
// CHECK-LABEL: func.func @heads
// CHECK: %[[Q:.*]] = model.linear "wq"
// CHECK-SAME: -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>
// CHECK-NEXT: %[[QH:.*]] = model.reshape %[[Q]] : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>) -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<2>]>
// CHECK-NEXT: %[[QR:.*]] = model.rotary %[[QH]] : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<2>]>) -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<2>]>
// CHECK-NEXT: %[[O:.*]] = model.attention %[[QR]], %[[QH]], %[[QH]]
// CHECK-SAME: -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<2>]>
// CHECK-NEXT: %[[T:.*]] = model.transpose %[[O]] {permutation = array<i64: 0, 2, 1, 3>} : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<2>]>) -> !tp.dtensor<2x2x4x4xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[SM:.*]] = model.softmax %[[T]] {dim = -1 : i64} : (!tp.dtensor<2x2x4x4xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<2x2x4x4xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[TT:.*]] = model.transpose %[[SM]] {{.*}} -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<2>]>
// CHECK-NEXT: %[[F:.*]] = model.reshape %[[TT]] : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<2>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>
// CHECK-NEXT: return %[[F]]
// CHECK-NOT: tp.redistribute
func.func @heads(%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x8xf32> {
  %dw = tp.distribute %w : tensor<8x8xf32> -> !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>
  %q = model.linear "wq"(%x, %dw) : (tensor<2x4x8xf32>, !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>) -> tensor<2x4x8xf32>
  %qh = model.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %qr = model.rotary %qh : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
  %o = model.attention %qr, %qh, %qh : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
  %t = model.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %sm = model.softmax %t {dim = -1 : i64} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %tt = model.transpose %sm {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
  %f = model.reshape %tt : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
  return %f : tensor<2x4x8xf32>
}

// A softmax over its sharded dim, and a rotary on sequence shards (whose
// angles depend on the global position), need the whole dim: replicated.
// CHECK-LABEL: func.func @needs_whole_dim
// CHECK: %[[D:.*]] = tp.distribute %{{.*}} -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<3>]>
// CHECK-NEXT: %[[DR:.*]] = tp.redistribute %[[D]] : !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<3>]> -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[S:.*]] = model.softmax %[[DR]] {dim = -1 : i64} : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[E:.*]] = tp.redistribute %[[S]] : {{.*}} -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[ER:.*]] = tp.redistribute %[[E]] : !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.rotary %[[ER]] : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.replicate]>
func.func @needs_whole_dim(%x: tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32> {
  %d = tp.distribute %x : tensor<2x4x2x4xf32> -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<3>]>
  %s = model.softmax %d {dim = -1 : i64} : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<3>]>) -> tensor<2x4x2x4xf32>
  %e = tp.distribute %s : tensor<2x4x2x4xf32> -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<1>]>
  %r = model.rotary %e : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<1>]>) -> tensor<2x4x2x4xf32>
  return %r : tensor<2x4x2x4xf32>
}

// Matmul over a sharded contracting dim gives Partial(sum); a norm over the
// last dim keeps a batch shard.
// CHECK-LABEL: func.func @matmul_and_norm
// CHECK: model.matmul %{{.*}}, %{{.*}} : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x4xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.rms_norm "norm"(%{{.*}}, %{{.*}}) : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>, tensor<8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
func.func @matmul_and_norm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %g: tensor<8xf32>) -> (tensor<4x4xf32>, tensor<4x8xf32>) {
  %da = tp.distribute %a : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  %db = tp.distribute %b : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>]>
  %c = model.matmul %da, %db : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>]>) -> tensor<4x4xf32>
  %rows = tp.distribute %a : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  %n = model.rms_norm "norm"(%rows, %g) : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>, tensor<8xf32>) -> tensor<4x8xf32>
  return %c, %n : tensor<4x4xf32>, tensor<4x8xf32>
}

// A declared layout (tp.distribute) on a value whose placement is now known
// becomes a redistribution; the module name is kept.
// CHECK-LABEL: func.func @declared_layout_mismatch
// CHECK: %[[R:.*]] = model.relu
// CHECK-SAME: -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[E:.*]] = tp.redistribute %[[R]] {module = "next"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: model.gelu %[[E]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-NOT: tp.distribute
func.func @declared_layout_mismatch(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %e = tp.distribute %r {module = "next"} : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  %g = model.gelu %e : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

// A matching declared layout needs no redistribution.
// CHECK-LABEL: func.func @declared_layout_match
// CHECK: %[[R:.*]] = model.relu
// CHECK-NOT: tp.redistribute
// CHECK-NOT: tp.distribute
// CHECK: model.gelu %[[R]]
func.func @declared_layout_match(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %e = tp.distribute %r : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %g = model.gelu %e : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

// Ops without a rule see replicated, local operands.
func.func private @external(tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-LABEL: func.func @no_rule
// CHECK: %[[R:.*]] = model.relu
// CHECK-NEXT: %[[REP:.*]] = tp.redistribute %[[R]] : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: %[[L:.*]] = tp.to_local %[[REP]] : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> -> tensor<4x16xf32>
// CHECK-NEXT: %[[C:.*]] = call @external(%[[L]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[C]] : tensor<4x16xf32>
func.func @no_rule(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %c = func.call @external(%r) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// Composite modules: block arguments and results take the placements.
// CHECK-LABEL: func.func @composite
// CHECK: model.module "block"(%{{.*}}) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>):
// CHECK-NEXT: %[[S:.*]] = model.silu %[[A]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: model.yield %[[S]] : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
func.func @composite(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %y = model.module "block"(%d) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32> {
  ^bb0(%a: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>):
    %s = model.silu %a : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
    model.yield %s : tensor<4x16xf32>
  }
  return %y : tensor<4x16xf32>
}

// -----

// Four ranks cannot split two heads: the reshape to heads replicates.
tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @heads_do_not_divide
// CHECK: %[[Q:.*]] = model.linear "wq"
// CHECK-SAME: -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>
// CHECK-NEXT: %[[QR:.*]] = tp.redistribute %[[Q]] : !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.reshape %[[QR]] : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.replicate]>
func.func @heads_do_not_divide(%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x2x4xf32> {
  %dw = tp.distribute %w : tensor<8x8xf32> -> !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>
  %q = model.linear "wq"(%x, %dw) : (tensor<2x4x8xf32>, !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>) -> tensor<2x4x8xf32>
  %qh = model.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  return %qh : tensor<2x4x2x4xf32>
}

// -----

// A size-1 mesh axis never keeps a shard: nothing to split.
tp.mesh @mesh(shape = 1x2) {axis_names = ["dp", "tp"]}
// CHECK-LABEL: func.func @size_one_axis
// CHECK: %[[D:.*]] = tp.distribute %{{.*}} -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]>
// CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[D]] : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
// CHECK-NEXT: model.relu %[[R]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
func.func @size_one_axis(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Without a mesh nothing is distributed and nothing changes.
// CHECK-LABEL: func.func @no_mesh
// CHECK-NEXT: model.relu %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
func.func @no_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = model.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

// An uneven shard (10 classes over 4 ranks: 3, 3, 3, 1) survives a reshape
// that keeps its dim whole: the dims around it regroup among themselves.
// A split of an uneven dim into heads cannot keep it (a chunk is not whole
// heads), and is gathered.
// CHECK-LABEL: func.func @reshape_uneven
// CHECK: model.reshape %{{.*}} : (!tp.dtensor<2x16x10xf32, @mesh, [#tp.shard<2>]>) -> !tp.dtensor<32x10xf32, @mesh, [#tp.shard<1>]>
// CHECK: %[[G:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<2x16x10xf32, @mesh, [#tp.shard<2>]> -> !tp.dtensor<2x16x10xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.reshape %[[G]] : (!tp.dtensor<2x16x10xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<2x16x2x5xf32, @mesh, [#tp.replicate]>
func.func @reshape_uneven(%x: tensor<2x16x10xf32>) -> (tensor<32x10xf32>, tensor<2x16x2x5xf32>) {
  %d = tp.distribute %x : tensor<2x16x10xf32> -> !tp.dtensor<2x16x10xf32, @mesh, [#tp.shard<2>]>
  %flat = model.reshape %d : (!tp.dtensor<2x16x10xf32, @mesh, [#tp.shard<2>]>) -> tensor<32x10xf32>
  %heads = model.reshape %d : (!tp.dtensor<2x16x10xf32, @mesh, [#tp.shard<2>]>) -> tensor<2x16x2x5xf32>
  return %flat, %heads : tensor<32x10xf32>, tensor<2x16x2x5xf32>
}

// -----

// Backward rules (tp-differentiate's ops). A norm's input gradient under
// SequenceParallel: the Partial gradient of the colwise blocks' inputs is
// reduce-scattered onto the sequence shard of the norm's input (once per
// use here; tp-optimize merges them), and the weight gradient is a partial
// sum over the sequence shards.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @norm_grad_sequence_parallel
// CHECK: %[[GS:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: model.layer_norm_grad_input "ln"(%[[GS]], %{{.*}}, %{{.*}}) : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[GS2:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: model.layer_norm_grad_weight "ln"(%[[GS2]], %{{.*}}) : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<8xf32, @mesh, [#tp.partial<sum>]>
func.func @norm_grad_sequence_parallel(%g: tensor<2x4x8xf32>, %x: tensor<2x4x8xf32>, %w: tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<8xf32>) {
  %dg = tp.distribute %g : tensor<2x4x8xf32> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
  %dx = tp.distribute %x : tensor<2x4x8xf32> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
  %dw = tp.distribute %w : tensor<8xf32> -> !tp.dtensor<8xf32, @mesh, [#tp.replicate]>
  %gx = model.layer_norm_grad_input "ln"(%dg, %dx, %dw) : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>, !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8xf32, @mesh, [#tp.replicate]>) -> tensor<2x4x8xf32>
  %gw = model.layer_norm_grad_weight "ln"(%dg, %dx) : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>, !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>) -> tensor<8xf32>
  return %gx, %gw : tensor<2x4x8xf32>, tensor<8xf32>
}

// -----

// A Partial(sum) gradient passes through the backward ops whose other
// operands are replicated: they are linear in it.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @partial_gradient_passes
// CHECK-NOT: tp.redistribute
// CHECK: model.rms_norm_grad_input {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.softmax_grad {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.reduce_sum_grad {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.reduce_max_grad {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.log_grad {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.rotary_grad {{.*}} -> !tp.dtensor<1x4x2x4xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.attention_grad_k {{.*}} -> !tp.dtensor<1x4x1x4xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.cross_entropy_grad {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.target_logit_grad {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.embedding_grad {{.*}} -> !tp.dtensor<16x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: model.matmul {{.*}} -> !tp.dtensor<4x4xf32, @mesh, [#tp.partial<sum>]>
func.func @partial_gradient_passes(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>, %w: tensor<8xf32>, %c: tensor<4x1xf32>, %gh: tensor<1x4x2x4xf32>, %q: tensor<1x4x2x4xf32>, %kv: tensor<1x4x1x4xf32>, %l: tensor<f32>, %t: tensor<4xi64>, %tab: tensor<16x8xf32>, %m: tensor<8x4xf32>) {
  %dg = tp.distribute %g : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  %dc = tp.distribute %c : tensor<4x1xf32> -> !tp.dtensor<4x1xf32, @mesh, [#tp.partial<sum>]>
  %dh = tp.distribute %gh : tensor<1x4x2x4xf32> -> !tp.dtensor<1x4x2x4xf32, @mesh, [#tp.partial<sum>]>
  %dl = tp.distribute %l : tensor<f32> -> !tp.dtensor<f32, @mesh, [#tp.partial<sum>]>
  %0 = model.rms_norm_grad_input "rn"(%dg, %x, %w) : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = model.softmax_grad %dg, %x {dim = 1 : i64} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = model.reduce_sum_grad %dc, %x {dim = 1 : i64} : (!tp.dtensor<4x1xf32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = model.reduce_max_grad %dc, %x {dim = 1 : i64} : (!tp.dtensor<4x1xf32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = model.log_grad %dg, %x : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = model.rotary_grad %dh : (!tp.dtensor<1x4x2x4xf32, @mesh, [#tp.partial<sum>]>) -> tensor<1x4x2x4xf32>
  %6 = model.attention_grad_k %dh, %q, %kv, %kv : (!tp.dtensor<1x4x2x4xf32, @mesh, [#tp.partial<sum>]>, tensor<1x4x2x4xf32>, tensor<1x4x1x4xf32>, tensor<1x4x1x4xf32>) -> tensor<1x4x1x4xf32>
  %7 = model.cross_entropy_grad %dl, %x, %t : (!tp.dtensor<f32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  %8 = model.target_logit_grad %dc, %x, %t : (!tp.dtensor<4x1xf32, @mesh, [#tp.partial<sum>]>, tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  %9 = model.embedding_grad "tok"(%dg, %t, %tab) : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<4xi64>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %10 = model.matmul %dg, %m : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

// The lookups' gradients are laid out as the table: a vocabulary-sharded
// table gets its rows (the gradient made whole first), class-sharded logits
// their classes (no communication).
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @lookup_grads
// CHECK: %[[GR:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.embedding_grad "tok"(%[[GR]], %{{.*}}, %{{.*}}) : {{.*}} -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
// CHECK-NEXT: model.target_logit_grad {{.*}} : (!tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, {{.*}}) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: model.reduce_sum_grad {{.*}} : (!tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// A maximum needs the whole rows.
// CHECK-NEXT: %[[WHOLE:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.reduce_max_grad %{{.*}}, %[[WHOLE]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
func.func @lookup_grads(%g: tensor<4x8xf32>, %ids: tensor<4xi64>, %tab: tensor<16x8xf32>, %c: tensor<4x1xf32>, %l: tensor<4x8xf32>) {
  %dg = tp.distribute %g : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  %dt = tp.distribute %tab : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
  %dc = tp.distribute %c : tensor<4x1xf32> -> !tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>
  %dl = tp.distribute %l : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  %0 = model.embedding_grad "tok"(%dg, %ids, %dt) : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<4xi64>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> tensor<16x8xf32>
  %1 = model.target_logit_grad %dc, %dl, %ids : (!tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<4xi64>) -> tensor<4x8xf32>
  %2 = model.reduce_sum_grad %dc, %dl {dim = 1 : i64} : (!tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  %3 = model.reduce_max_grad %dc, %dl {dim = 1 : i64} : (!tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  return
}

// -----

// Attention's gradients follow a head shard (8 query and 4 kv heads over 2
// ranks) in all four operands.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @attention_grad_heads
// CHECK-NOT: tp.redistribute
// CHECK: model.attention_grad_q {{.*}} -> !tp.dtensor<1x4x8x2xf32, @mesh, [#tp.shard<2>]>
// CHECK: model.attention_grad_v {{.*}} -> !tp.dtensor<1x4x4x2xf32, @mesh, [#tp.shard<2>]>
func.func @attention_grad_heads(%g: tensor<1x4x8x2xf32>, %q: tensor<1x4x8x2xf32>, %kv: tensor<1x4x4x2xf32>) {
  %dg = tp.distribute %g : tensor<1x4x8x2xf32> -> !tp.dtensor<1x4x8x2xf32, @mesh, [#tp.shard<2>]>
  %dq = tp.distribute %q : tensor<1x4x8x2xf32> -> !tp.dtensor<1x4x8x2xf32, @mesh, [#tp.shard<2>]>
  %dkv = tp.distribute %kv : tensor<1x4x4x2xf32> -> !tp.dtensor<1x4x4x2xf32, @mesh, [#tp.shard<2>]>
  %0 = model.attention_grad_q %dg, %dq, %dkv, %dkv : (!tp.dtensor<1x4x8x2xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<1x4x8x2xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<1x4x4x2xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<1x4x4x2xf32, @mesh, [#tp.shard<2>]>) -> tensor<1x4x8x2xf32>
  %1 = model.attention_grad_v %dg, %dq, %dkv, %dkv : (!tp.dtensor<1x4x8x2xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<1x4x8x2xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<1x4x4x2xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<1x4x4x2xf32, @mesh, [#tp.shard<2>]>) -> tensor<1x4x4x2xf32>
  return
}

// -----

// The pointwise math ops keep a shard and need a whole value under a
// Partial (tanh of a sum is not the sum of tanh). model.div is linear in its
// numerator only: a Partial<sum> numerator over a replicated denominator
// stays Partial, a Partial denominator is reduced first.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @math
// CHECK: %[[T:.*]] = model.tanh %{{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[S:.*]] = model.sigmoid %[[T]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[Q:.*]] = model.sqrt %[[S]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[RQ:.*]] = model.rsqrt %[[Q]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[E:.*]] = model.erf %[[RQ]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: %[[RC:.*]] = model.reciprocal %[[E]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK-NEXT: model.pow %[[RC]] {exponent = 3.000000e+00 : f64} {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK: %[[WHOLE:.*]] = tp.redistribute %[[P:.*]] : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.tanh %[[WHOLE]] {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.div %[[P]], %{{.*}} : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK-NEXT: %[[DEN:.*]] = tp.redistribute %[[P]] : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.div %{{.*}}, %[[DEN]] : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
func.func @math(%x: tensor<4x8xf32>, %y: tensor<8xf32>) {
  %dx = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  %a = model.tanh %dx : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  %b = model.sigmoid %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = model.sqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = model.rsqrt %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = model.erf %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %f = model.reciprocal %e : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = model.pow %f {exponent = 3.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  %t = model.tanh %p : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>) -> tensor<4x8xf32>
  %q = model.div %p, %y : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<8xf32>) -> tensor<4x8xf32>
  %r = model.div %x, %p : (tensor<4x8xf32>, !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>) -> tensor<4x8xf32>
  return
}

// -----

// A slice or a concat keeps a shard of another dim; the dim it cuts or
// joins is made whole first. Every Partial passes a slice (it only picks
// elements); a concat of the same Partial(sum) is that Partial, a concat
// mixing Partial and Replicate reduces first.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
// CHECK-LABEL: func.func @slices
// CHECK: model.slice %[[R:.*]] {dim = 2 : i64, start = 0 : i64} : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<2x4x4xf32, @mesh, [#tp.shard<1>]>
// CHECK: %[[W:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.slice %[[W]] {{.*}} -> !tp.dtensor<2x4x4xf32, @mesh, [#tp.replicate]>
// CHECK: model.concat {{.*}} : (!tp.dtensor<2x4x4xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<2x4x4xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK: model.slice %[[P:.*]] {{.*}} : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<max>]>) -> !tp.dtensor<2x2x8xf32, @mesh, [#tp.partial<max>]>
// CHECK: model.concat %[[S:.*]], %[[S]] {{.*}} -> !tp.dtensor<2x4x16xf32, @mesh, [#tp.partial<sum>]>
// CHECK: tp.redistribute %[[S]] : !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.concat {{.*}} -> !tp.dtensor<2x4x16xf32, @mesh, [#tp.replicate]>
func.func @slices(%x: tensor<2x4x8xf32>) {
  %r = tp.distribute %x : tensor<2x4x8xf32> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
  %a = model.slice %r {dim = 2 : i64, start = 0 : i64} : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>) -> tensor<2x4x4xf32>
  %c = tp.distribute %x : tensor<2x4x8xf32> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>
  %b = model.slice %c {dim = 2 : i64, start = 4 : i64} : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>) -> tensor<2x4x4xf32>
  %j = model.concat %a, %a {dim = 2 : i64} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x8xf32>
  %p = tp.distribute %x : tensor<2x4x8xf32> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<max>]>
  %q = model.slice %p {dim = 1 : i64, start = 0 : i64, step = 2 : i64} : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<max>]>) -> tensor<2x2x8xf32>
  %s = tp.distribute %x : tensor<2x4x8xf32> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
  %ss = model.concat %s, %s {dim = 2 : i64} : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>, !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>) -> tensor<2x4x16xf32>
  %sx = model.concat %s, %x {dim = 2 : i64} : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<2x4x8xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

// Routing ops: topk ranks along its dim whole (a shard there is gathered,
// a Partial reduced first) and passes the other dims' shards to its
// indices; gather and one_hot follow them; gather_grad passes a
// Partial(sum) (it only adds).
// CHECK-LABEL: func.func @routing
// CHECK: model.topk %{{.*}} : (!tp.dtensor<16x4xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<16x2xi64, @mesh, [#tp.shard<0>]>
// CHECK: model.gather {{.*}} -> !tp.dtensor<16x2xf32, @mesh, [#tp.shard<0>]>
// CHECK: model.one_hot {{.*}} -> !tp.dtensor<16x2x4xi64, @mesh, [#tp.shard<0>]>
// CHECK: tp.redistribute %{{.*}} : !tp.dtensor<16x4xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<16x4xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.topk {{.*}} -> !tp.dtensor<16x2xi64, @mesh, [#tp.replicate]>
// CHECK: model.gather_grad {{.*}} -> !tp.dtensor<16x4xf32, @mesh, [#tp.partial<sum>]>
// CHECK: tp.redistribute %{{.*}} : !tp.dtensor<16x4xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<16x4xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.topk {{.*}} -> !tp.dtensor<16x2xi64, @mesh, [#tp.replicate]>
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @routing(%x: tensor<16x4xf32>, %g: tensor<16x2xf32>) {
  %r = tp.distribute %x : tensor<16x4xf32> -> !tp.dtensor<16x4xf32, @mesh, [#tp.shard<0>]>
  %i = model.topk %r {dim = 1 : i64} : (!tp.dtensor<16x4xf32, @mesh, [#tp.shard<0>]>) -> tensor<16x2xi64>
  %v = model.gather %r, %i {dim = 1 : i64} : (!tp.dtensor<16x4xf32, @mesh, [#tp.shard<0>]>, tensor<16x2xi64>) -> tensor<16x2xf32>
  %m = model.one_hot %i : (tensor<16x2xi64>) -> tensor<16x2x4xi64>
  %c = tp.distribute %x : tensor<16x4xf32> -> !tp.dtensor<16x4xf32, @mesh, [#tp.shard<1>]>
  %j = model.topk %c {dim = 1 : i64} : (!tp.dtensor<16x4xf32, @mesh, [#tp.shard<1>]>) -> tensor<16x2xi64>
  %p = tp.distribute %g : tensor<16x2xf32> -> !tp.dtensor<16x2xf32, @mesh, [#tp.partial<sum>]>
  %b = model.gather_grad %p, %j {dim = 1 : i64} : (!tp.dtensor<16x2xf32, @mesh, [#tp.partial<sum>]>, tensor<16x2xi64>) -> tensor<16x4xf32>
  %q = tp.distribute %x : tensor<16x4xf32> -> !tp.dtensor<16x4xf32, @mesh, [#tp.partial<sum>]>
  %k = model.topk %q {dim = 1 : i64} : (!tp.dtensor<16x4xf32, @mesh, [#tp.partial<sum>]>) -> tensor<16x2xi64>
  return
}

// -----

// Masks: a comparison of a shard is a shard of the mask; logic and where
// pass shards of aligned dims (a whole mask operand is chunked); a Partial
// selected by where is reduced first.
// CHECK-LABEL: func.func @masks
// CHECK: model.compare {{.*}} -> !tp.dtensor<4x8xi1, @mesh, [#tp.shard<1>]>
// CHECK: tp.distribute %{{.*}} : tensor<4x8xi1> -> !tp.dtensor<4x8xi1, @mesh, [#tp.shard<1>]>
// CHECK: model.logical_and {{.*}} -> !tp.dtensor<4x8xi1, @mesh, [#tp.shard<1>]>
// CHECK: model.where {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
// CHECK: tp.redistribute %{{.*}} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.where {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @masks(%x: tensor<4x8xf32>, %c: tensor<4x8xi1>, %t: tensor<f32>) {
  %s = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  %m = model.compare %s, %t {predicate = "gt"} : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<f32>) -> tensor<4x8xi1>
  %n = model.logical_and %m, %c : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %w = model.where %n, %s, %t : (tensor<4x8xi1>, !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<f32>) -> tensor<4x8xf32>
  %p = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  %q = model.where %c, %p, %t : (tensor<4x8xi1>, !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>, tensor<f32>) -> tensor<4x8xf32>
  return
}

// -----

// expand: a shard of a dim that is not stretched passes, and so does a
// Partial (copies of a partial sum are partial sums).
// CHECK-LABEL: func.func @expand
// CHECK: model.expand {{.*}} -> !tp.dtensor<4x6x8xf32, @mesh, [#tp.shard<2>]>
// CHECK: model.expand {{.*}} -> !tp.dtensor<2x4x6x8xf32, @mesh, [#tp.partial<sum>]>
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @expand(%x: tensor<4x1x8xf32>) {
  %s = tp.distribute %x : tensor<4x1x8xf32> -> !tp.dtensor<4x1x8xf32, @mesh, [#tp.shard<2>]>
  %e = model.expand %s : (!tp.dtensor<4x1x8xf32, @mesh, [#tp.shard<2>]>) -> tensor<4x6x8xf32>
  %p = tp.distribute %x : tensor<4x1x8xf32> -> !tp.dtensor<4x1x8xf32, @mesh, [#tp.partial<sum>]>
  %f = model.expand %p : (!tp.dtensor<4x1x8xf32, @mesh, [#tp.partial<sum>]>) -> tensor<2x4x6x8xf32>
  return
}

// -----

// cast: a Partial(sum) passes a widening cast (bf16 to f32: each rank's
// part converts exactly, the sum is formed in f32, as a mixed-precision
// gradient is reduced); before a narrowing cast it is reduced first
// (rounding the parts is not rounding the sum). A shard passes both.
// CHECK-LABEL: func.func @cast
// CHECK: %[[W:.*]] = model.cast %{{.*}} : (!tp.dtensor<4x8xbf16, @mesh, [#tp.partial<sum>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
// CHECK: %[[R:.*]] = tp.redistribute %{{.*}} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
// CHECK-NEXT: model.cast %[[R]] : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x8xbf16, @mesh, [#tp.replicate]>
// CHECK: model.cast %{{.*}} : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x8xbf16, @mesh, [#tp.shard<1>]>
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @cast(%x: tensor<4x8xbf16>, %y: tensor<4x8xf32>) {
  %p = tp.distribute %x : tensor<4x8xbf16> -> !tp.dtensor<4x8xbf16, @mesh, [#tp.partial<sum>]>
  %w = model.cast %p : (!tp.dtensor<4x8xbf16, @mesh, [#tp.partial<sum>]>) -> tensor<4x8xf32>
  %q = tp.distribute %y : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  %n = model.cast %q : (!tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>) -> tensor<4x8xbf16>
  %s = tp.distribute %y : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  %m = model.cast %s : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xbf16>
  return
}

// -----

// A reshape on a 2-D mesh whose dim is split by both axes (the tokens of a
// flattened batch x sequence, dp outer, tp inner, as sequence parallel
// under data parallelism leaves them): each axis splits what the earlier
// ones leave. Back to batch x sequence, dp takes the batch (2 over 2) and
// tp the sequence (8 over 2), not both the batch, which does not divide
// over 4 ranks; where it does (batch 4), both stay on it (rank (d, t)
// holds batch row 2d + t either way).
// CHECK-LABEL: func.func @reshape_two_axes
// CHECK: model.reshape %{{.*}} : (!tp.dtensor<16x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<2x8x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>
// CHECK: model.reshape %{{.*}} : (!tp.dtensor<32x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> !tp.dtensor<4x8x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @reshape_two_axes(%x: tensor<16x32xf32>, %y: tensor<32x32xf32>) {
  %s = tp.distribute %x : tensor<16x32xf32> -> !tp.dtensor<16x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
  %r = model.reshape %s : (!tp.dtensor<16x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> tensor<2x8x32xf32>
  %t = tp.distribute %y : tensor<32x32xf32> -> !tp.dtensor<32x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
  %q = model.reshape %t : (!tp.dtensor<32x32xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>) -> tensor<4x8x32xf32>
  return
}
