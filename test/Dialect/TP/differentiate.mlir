// RUN: tp-opt %s -split-input-file -tp-differentiate -verify-diagnostics | FileCheck %s

// tp-differentiate: a model ending in a scalar loss returns the loss and the
// gradient of every parameter, in the order the parameters are defined. The
// ops it adds, from the seed (model.full 1.0) on, are the backward's
// (tp.phase = #tp.phase<backward>).

// The MLP with a mean squared error, without a mesh: the backward ops
// follow the forward ops in reverse; the bias gradients sum the broadcast
// dims back (sum_to); targets (an input) get no gradient, the activations
// of the forward pass are read by the backward ops.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<32x8xf32> {tp.grad_of = "net1.weight"}, tensor<32xf32> {tp.grad_of = "net1.bias"}, tensor<8x32xf32> {tp.grad_of = "net2.weight"}, tensor<8xf32> {tp.grad_of = "net2.bias"})
// CHECK: %[[H:.*]] = model.linear "net1"(%[[X:[^,]*]], %[[W1:[^,]*]], %{{.*}})
// CHECK: %[[R:.*]] = model.relu %[[H]]
// CHECK: %[[W2:.*]] = model.param "net2.weight"
// CHECK: %[[D:.*]] = model.sub
// CHECK: %[[LOSS:.*]] = model.mean
// CHECK-NEXT: %[[ONE:.*]] = model.full 1.000000e+00 {tp.phase = #tp.phase<backward>} : tensor<f32>
// CHECK-NEXT: %[[GSQ:.*]] = model.mean_grad %[[ONE]] {tp.phase = #tp.phase<backward>} : (tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[M1:.*]] = model.mul %[[GSQ]], %[[D]]
// CHECK-NEXT: %[[M2:.*]] = model.mul %[[GSQ]], %[[D]]
// CHECK-NEXT: %[[GY:.*]] = model.add %[[M1]], %[[M2]]
// CHECK-NEXT: %[[GR:.*]] = model.linear_grad_input "net2"(%[[GY]], %[[W2]]) {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT: %[[GW2:.*]] = model.linear_grad_weight "net2"(%[[GY]], %[[R]]) {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: %[[GB2:.*]] = model.sum_to %[[GY]] {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[GH:.*]] = model.relu_grad %[[GR]], %[[H]]
// CHECK-NEXT: %[[GW1:.*]] = model.linear_grad_weight "net1"(%[[GH]], %[[X]])
// CHECK-NEXT: %[[GB1:.*]] = model.sum_to %[[GH]] {tp.phase = #tp.phase<backward>} : (tensor<4x32xf32>) -> tensor<32xf32>
// CHECK-NEXT: return %[[LOSS]], %[[GW1]], %[[GB1]], %[[GW2]], %[[GB2]]
func.func @forward(%x: tensor<4x8xf32> {model.name = "x"}, %t: tensor<4x8xf32> {model.name = "targets"}) -> tensor<f32> {
  %w1 = model.param "net1.weight" : tensor<32x8xf32>
  %b1 = model.param "net1.bias" : tensor<32xf32>
  %h = model.linear "net1"(%x, %w1, %b1) : (tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %w2 = model.param "net2.weight" : tensor<8x32xf32>
  %b2 = model.param "net2.bias" : tensor<8xf32>
  %y = model.linear "net2"(%r, %w2, %b2) : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %d = model.sub %y, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %sq = model.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = model.mean %sq : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A parameter used twice (tied weights) has one gradient, the sum; the
// second operand of a sub gets the negated gradient; composite modules are
// inlined first.
// CHECK-LABEL: func.func @tied
// CHECK-SAME: -> (tensor<f32>, tensor<4x4xf32> {tp.grad_of = "w"})
// CHECK-NOT: model.module
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK-NEXT: %[[N:.*]] = model.neg %[[G]]
// CHECK-NEXT: %[[B:.*]] = model.linear_grad_weight "b"(%[[N]]
// CHECK-NEXT: %[[A:.*]] = model.linear_grad_weight "a"(%[[G]]
// CHECK-NEXT: %[[SUM:.*]] = model.add %[[B]], %[[A]] {tp.phase = #tp.phase<backward>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[SUM]]
func.func @tied(%x: tensor<2x4xf32>) -> tensor<f32> {
  %o = model.module "m"(%x) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%in: tensor<2x4xf32>):
    %w = model.param "w" : tensor<4x4xf32>
    %a = model.linear "a"(%in, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %w2 = model.param "w" : tensor<4x4xf32>
    %b = model.linear "b"(%in, %w2) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %d = model.sub %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    model.yield %d : tensor<2x4xf32>
  }
  %l = model.mean %o : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @below {{tp-differentiate: @not_a_loss must return a scalar loss (first), but returns ('tensor<4x8xf32>')}}
func.func @not_a_loss(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = model.param "w" : tensor<8x8xf32>
  %y = model.linear "l"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// expected-error @below {{tp-differentiate: the loss of @no_params depends on no parameter: there is nothing to train}}
func.func @no_params(%x: tensor<4x8xf32>) -> tensor<f32> {
  %l = model.mean %x : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Dropout: a training step applies the masks. Every dropout with p > 0
// gets `train` (also one no parameter reaches), and its gradient is
// model.dropout_grad of the same FQN and p (the same mask, drawn again);
// at p = 0 the gradient passes through.
// CHECK-LABEL: func.func @dropout
// CHECK: %[[IN:.*]] = model.dropout "in_drop"(%{{.*}}) {p = 5.000000e-01 : f64, train}
// CHECK: %[[Y:.*]] = model.linear "l"(%[[IN]], %{{.*}})
// CHECK: %[[D:.*]] = model.dropout "drop"(%[[Y]]) {p = 1.000000e-01 : f64, train}
// CHECK: %[[D0:.*]] = model.dropout "drop0"(%[[D]]) :
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK-NEXT: %[[GY:.*]] = model.dropout_grad "drop"(%[[G]]) {p = 1.000000e-01 : f64, tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: model.linear_grad_weight "l"(%[[GY]], %[[IN]])
// CHECK-NOT: dropout_grad
// CHECK: return
func.func @dropout(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = model.param "w" : tensor<8x8xf32>
  %xd = model.dropout "in_drop"(%x) {p = 0.5 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = model.linear "l"(%xd, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %d = model.dropout "drop"(%y) {p = 0.1 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d0 = model.dropout "drop0"(%d) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = model.mean %d0 : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @below {{tp-differentiate: @twice is already a training step (tp.grad_of on result 1)}}
func.func @twice(%x: tensor<4x8xf32>) -> (tensor<f32>, tensor<8x8xf32> {tp.grad_of = "w"}) {
  %w = model.param "w" : tensor<8x8xf32>
  %l = model.mean %x : (tensor<4x8xf32>) -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<8x8xf32>
}

// -----

// Norms: one backward op per gradient, each reading the norm's input; the
// bias gradient is a sum_to.
// CHECK-LABEL: func.func @norms
// CHECK: %[[H:.*]] = model.linear "l"
// CHECK: %[[LW:.*]] = model.param "ln.weight"
// CHECK: %[[N:.*]] = model.layer_norm "ln"
// CHECK: %[[RW:.*]] = model.param "rn.weight"
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK-NEXT: %[[GN:.*]] = model.rms_norm_grad_input "rn"(%[[G]], %[[N]], %[[RW]]) {eps = 1.000000e-03 : f64, tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[GRW:.*]] = model.rms_norm_grad_weight "rn"(%[[G]], %[[N]]) {eps = 1.000000e-03 : f64, tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[GH:.*]] = model.layer_norm_grad_input "ln"(%[[GN]], %[[H]], %[[LW]])
// CHECK-NEXT: %[[GLW:.*]] = model.layer_norm_grad_weight "ln"(%[[GN]], %[[H]])
// CHECK-NEXT: %[[GLB:.*]] = model.sum_to %[[GN]] {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[GW:.*]] = model.linear_grad_weight "l"(%[[GH]]
// CHECK-NEXT: return %{{.*}}, %[[GW]], %[[GLW]], %[[GLB]], %[[GRW]]
func.func @norms(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = model.param "l.weight" : tensor<8x8xf32>
  %h = model.linear "l"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %lw = model.param "ln.weight" : tensor<8xf32>
  %lb = model.param "ln.bias" : tensor<8xf32>
  %n = model.layer_norm "ln"(%h, %lw, %lb) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %rw = model.param "rn.weight" : tensor<8xf32>
  %r = model.rms_norm "rn"(%n, %rw) {eps = 1.0e-3 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %l = model.mean %r : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An embedding tied to the output linear: cross entropy's gradient, the
// reshape back, the embedding's scatter-add (typed as the table) and one
// gradient for the tied FQN, the sum.
// CHECK-LABEL: func.func @tied_embedding
// CHECK-SAME: -> (tensor<f32>, tensor<16x8xf32> {tp.grad_of = "tok.weight"})
// CHECK: %[[WE:.*]] = model.param "tok.weight"
// CHECK: %[[E:.*]] = model.embedding "tok"(%[[IDS:[^,]*]], %[[WE]])
// CHECK: %[[WO:.*]] = model.param "tok.weight"
// CHECK: %[[FL:.*]] = model.reshape
// CHECK: %[[ONE:.*]] = model.full 1.000000e+00
// CHECK-NEXT: %[[GFL:.*]] = model.cross_entropy_grad %[[ONE]], %[[FL]], %[[T:.*]] {tp.phase = #tp.phase<backward>} : (tensor<f32>, tensor<8x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[GLG:.*]] = model.reshape %[[GFL]] {tp.phase = #tp.phase<backward>} : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[GE:.*]] = model.linear_grad_input "out"(%[[GLG]], %[[WO]])
// CHECK-NEXT: %[[GWO:.*]] = model.linear_grad_weight "out"(%[[GLG]], %[[E]])
// CHECK-NEXT: %[[GWE:.*]] = model.embedding_grad "tok"(%[[GE]], %[[IDS]], %[[WE]]) {tp.phase = #tp.phase<backward>} : (tensor<2x4x8xf32>, tensor<2x4xi64>, tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = model.add %[[GWO]], %[[GWE]]
// CHECK-NEXT: return %{{.*}}, %[[SUM]]
func.func @tied_embedding(%ids: tensor<2x4xi64>, %t: tensor<8xi64>) -> tensor<f32> {
  %we = model.param "tok.weight" : tensor<16x8xf32>
  %e = model.embedding "tok"(%ids, %we) : (tensor<2x4xi64>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %wo = model.param "tok.weight" : tensor<16x8xf32>
  %lg = model.linear "out"(%e, %wo) : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
  %fl = model.reshape %lg : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
  %l = model.cross_entropy %fl, %t : (tensor<8x16xf32>, tensor<8xi64>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Grouped-query attention with rotary on the queries: one gradient op per
// operand (each reads q, k and v), rotary turned back, reshapes undone.
// CHECK-LABEL: func.func @attention
// CHECK: %[[Q:.*]] = model.rotary %{{.*}} {theta = 5.000000e+05 : f64}
// CHECK: %[[K:.*]] = model.reshape %{{.*}} -> tensor<2x4x1x4xf32>
// CHECK: %[[V:.*]] = model.reshape %{{.*}} -> tensor<2x4x1x4xf32>
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK-NEXT: %[[GO:.*]] = model.reshape %[[G]] {tp.phase = #tp.phase<backward>} : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
// CHECK-NEXT: %[[GQ:.*]] = model.attention_grad_q %[[GO]], %[[Q]], %[[K]], %[[V]] {tp.phase = #tp.phase<backward>} : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>, tensor<2x4x1x4xf32>, tensor<2x4x1x4xf32>) -> tensor<2x4x2x4xf32>
// CHECK-NEXT: %[[GK:.*]] = model.attention_grad_k %[[GO]], %[[Q]], %[[K]], %[[V]] {tp.phase = #tp.phase<backward>} : {{.*}} -> tensor<2x4x1x4xf32>
// CHECK-NEXT: %[[GV:.*]] = model.attention_grad_v %[[GO]], %[[Q]], %[[K]], %[[V]] {tp.phase = #tp.phase<backward>} : {{.*}} -> tensor<2x4x1x4xf32>
// CHECK-NEXT: model.reshape %[[GV]] {tp.phase = #tp.phase<backward>} : (tensor<2x4x1x4xf32>) -> tensor<2x4x4xf32>
// CHECK: model.reshape %[[GK]] {tp.phase = #tp.phase<backward>} : (tensor<2x4x1x4xf32>) -> tensor<2x4x4xf32>
// CHECK: %[[GQ1:.*]] = model.rotary_grad %[[GQ]] {theta = 5.000000e+05 : f64, tp.phase = #tp.phase<backward>} : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
// CHECK-NEXT: model.reshape %[[GQ1]] {tp.phase = #tp.phase<backward>} : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
func.func @attention(%x: tensor<2x4x8xf32>) -> tensor<f32> {
  %wq = model.param "wq.weight" : tensor<8x8xf32>
  %q0 = model.linear "wq"(%x, %wq) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q1 = model.reshape %q0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %q = model.rotary %q1 {theta = 500000.0 : f64} : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
  %wk = model.param "wk.weight" : tensor<4x8xf32>
  %k0 = model.linear "wk"(%x, %wk) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %k = model.reshape %k0 : (tensor<2x4x4xf32>) -> tensor<2x4x1x4xf32>
  %wv = model.param "wv.weight" : tensor<4x8xf32>
  %v0 = model.linear "wv"(%x, %wv) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %v = model.reshape %v0 : (tensor<2x4x4xf32>) -> tensor<2x4x1x4xf32>
  %o = model.attention %q, %k, %v : (tensor<2x4x2x4xf32>, tensor<2x4x1x4xf32>, tensor<2x4x1x4xf32>) -> tensor<2x4x2x4xf32>
  %o2 = model.reshape %o : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
  %l = model.mean %o2 : (tensor<2x4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Softmax reads its result; matmul's gradients are matmuls with the other
// operand transposed (a broadcast 2-D operand's summed back over the
// batch); a transpose's gradient is the inverse permutation.
// CHECK-LABEL: func.func @softmax_matmul
// CHECK: %[[H:.*]] = model.matmul %[[X:.*]], %{{.*}} : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
// CHECK: %[[T:.*]] = model.transpose %[[H]] {permutation = array<i64: 2, 0, 1>} : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
// CHECK: %[[TT:.*]] = model.reshape %[[T]] : (tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
// CHECK: %[[P:.*]] = model.softmax
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK-NEXT: %[[GS:.*]] = model.softmax_grad %[[G]], %[[P]] {dim = -1 : i64, tp.phase = #tp.phase<backward>} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT: %[[TTT:.*]] = model.transpose %[[TT]] {permutation = array<i64: 0, 2, 1>, tp.phase = #tp.phase<backward>} : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[GH1:.*]] = model.matmul %[[GS]], %[[TTT]] {tp.phase = #tp.phase<backward>} : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[HT:.*]] = model.transpose %[[H]] {permutation = array<i64: 0, 2, 1>, tp.phase = #tp.phase<backward>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT: %[[GTT:.*]] = model.matmul %[[HT]], %[[GS]] {tp.phase = #tp.phase<backward>} : (tensor<2x8x4xf32>, tensor<2x4x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT: %[[GT:.*]] = model.reshape %[[GTT]] {tp.phase = #tp.phase<backward>} : (tensor<2x8x4xf32>) -> tensor<8x2x4xf32>
// CHECK-NEXT: %[[GH2:.*]] = model.transpose %[[GT]] {permutation = array<i64: 1, 2, 0>, tp.phase = #tp.phase<backward>} : (tensor<8x2x4xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[GH:.*]] = model.add %[[GH1]], %[[GH2]]
// CHECK-NEXT: %[[XT:.*]] = model.transpose %[[X]] {permutation = array<i64: 0, 2, 1>, tp.phase = #tp.phase<backward>}
// CHECK-NEXT: %[[GWB:.*]] = model.matmul %[[XT]], %[[GH]] {tp.phase = #tp.phase<backward>} : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[GW:.*]] = model.sum_to %[[GWB]] {tp.phase = #tp.phase<backward>} : (tensor<2x8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[GW]]
func.func @softmax_matmul(%x: tensor<2x4x8xf32>) -> tensor<f32> {
  %w = model.param "w" : tensor<8x8xf32>
  %h = model.matmul %x, %w : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %t = model.transpose %h {permutation = array<i64: 2, 0, 1>} : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
  %tt = model.reshape %t : (tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
  %s = model.matmul %h, %tt : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %p = model.softmax %s {dim = -1 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %l = model.mean %p : (tensor<2x4x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Cross entropy as loss_parallel decomposes it: the detached maximum gets
// no gradient; exp's is the gradient times its result, log's the gradient
// over its input, reduce_sum's the gradient repeated, target_logit's the
// gradient at the targets.
// CHECK-LABEL: func.func @loss_parallel_form
// CHECK: %[[SH:.*]] = model.sub
// CHECK: %[[EX:.*]] = model.exp %[[SH]]
// CHECK: %[[SU:.*]] = model.reduce_sum %[[EX]]
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK-NEXT: %[[GT:.*]] = model.neg %[[G]]
// CHECK-NEXT: %[[GTL:.*]] = model.target_logit_grad %[[GT]], %[[SH]], %[[T:.*]] {tp.phase = #tp.phase<backward>} : (tensor<4x1xf32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[GSU:.*]] = model.log_grad %[[G]], %[[SU]] {tp.phase = #tp.phase<backward>} : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[GEX:.*]] = model.reduce_sum_grad %[[GSU]], %[[EX]] {dim = 1 : i64, tp.phase = #tp.phase<backward>} : (tensor<4x1xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[GSH:.*]] = model.mul %[[GEX]], %[[EX]]
// CHECK-NEXT: %[[GSUM:.*]] = model.add %[[GTL]], %[[GSH]]
// CHECK-NOT: reduce_max_grad
// CHECK: model.linear_grad_weight "out"(%[[GSUM]]
func.func @loss_parallel_form(%x: tensor<4x5xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %w = model.param "out.weight" : tensor<6x5xf32>
  %lg = model.linear "out"(%x, %w) : (tensor<4x5xf32>, tensor<6x5xf32>) -> tensor<4x6xf32>
  %m = model.reduce_max %lg {dim = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %md = model.detach %m : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %sh = model.sub %lg, %md : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %ex = model.exp %sh : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %su = model.reduce_sum %ex {dim = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %ls = model.log %su : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %tl = model.target_logit %sh, %t : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  %r = model.sub %ls, %tl : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %l = model.mean %r : (tensor<4x1xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Without the detach, the maximum's gradient flows: reduce_max_grad, the
// negated, summed-back gradient of the shift.
// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[LG:.*]] = model.linear "out"
// CHECK: model.mean_grad
// CHECK: %[[GM:.*]] = model.neg
// CHECK-NEXT: model.reduce_max_grad %[[GM]], %[[LG]] {dim = 1 : i64, tp.phase = #tp.phase<backward>} : (tensor<4x1xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
func.func @reduce_max(%x: tensor<4x5xf32>) -> tensor<f32> {
  %w = model.param "out.weight" : tensor<6x5xf32>
  %lg = model.linear "out"(%x, %w) : (tensor<4x5xf32>, tensor<6x5xf32>) -> tensor<4x6xf32>
  %m = model.reduce_max %lg {dim = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %sh = model.sub %lg, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %sq = model.mul %sh, %sh : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %l = model.mean %sq : (tensor<4x6xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A frozen parameter (requires_grad=False) gets no gradient; what only it
// reaches is not differentiated.
// CHECK-LABEL: func.func @frozen
// CHECK-SAME: -> (tensor<f32>, tensor<4x4xf32> {tp.grad_of = "w2"})
// CHECK-NOT: model.linear_grad_weight "first"
// CHECK: model.linear_grad_weight "second"
// CHECK-NOT: model.linear_grad_weight "first"
func.func @frozen(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = model.param "w" {frozen} : tensor<4x4xf32>
  %h = model.linear "first"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %w2 = model.param "w2" : tensor<4x4xf32>
  %y = model.linear "second"(%h, %w2) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %l = model.mean %y : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A tied parameter is frozen everywhere or nowhere.
func.func @half_frozen(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = model.param "w" {frozen} : tensor<4x4xf32>
  %h = model.linear "first"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  // expected-error @below {{tp-differentiate: parameter 'w' is frozen in one use and trained in another}}
  %w2 = model.param "w" : tensor<4x4xf32>
  %y = model.linear "second"(%h, %w2) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %l = model.mean %y : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The math ops' gradients are compositions of model ops on the forward's
// values: d tanh = 1 - y^2 (from the result), d(x / t) by t = -(g * y) / t
// summed back to t's broadcast shape.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<8xf32> {tp.grad_of = "w"})
// CHECK: %[[T:.*]] = model.tanh %[[W:.*]] : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[Y:.*]] = model.div %{{.*}}, %[[T]]
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK-NEXT: %[[GY:.*]] = model.mul %[[G]], %[[Y]]
// CHECK-NEXT: %[[Q:.*]] = model.div %[[GY]], %[[T]]
// CHECK-NEXT: %[[N:.*]] = model.neg %[[Q]]
// CHECK-NEXT: %[[GT:.*]] = model.sum_to %[[N]] {{.*}} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[T2:.*]] = model.mul %[[T]], %[[T]]
// CHECK-NEXT: %[[ONE:.*]] = model.full 1.000000e+00
// CHECK-NEXT: %[[D:.*]] = model.sub %[[ONE]], %[[T2]] {{.*}} : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[GW:.*]] = model.mul %[[GT]], %[[D]]
// CHECK-NEXT: return %{{.*}}, %[[GW]]
func.func @forward(%x: tensor<4x8xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "w" : tensor<8xf32>
  %t = model.tanh %w : (tensor<8xf32>) -> tensor<8xf32>
  %d = model.div %x, %t : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %l = model.mean %d : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A forward returning (loss, logits), as Hugging Face's with labels: the
// step differentiates the first result and returns the loss and the
// gradients, not the logits.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<8x4xf32> {tp.grad_of = "w"})
// CHECK: %[[L:.*]] = model.mean
// CHECK: return %[[L]], %{{.*}} : tensor<f32>, tensor<8x4xf32>
func.func @forward(%x: tensor<2x4xf32> {model.name = "x"}) -> (tensor<f32>, tensor<2x8xf32>) {
  %w = model.param "w" : tensor<8x4xf32>
  %y = model.linear "fc"(%x, %w) : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<2x8xf32>
  %l = model.mean %y : (tensor<2x8xf32>) -> tensor<f32>
  return %l, %y : tensor<f32>, tensor<2x8xf32>
}

// -----

// Integers carry no gradient: topk's indices and the one-hot mask made
// from them are constants of the backward; the router's gradient comes
// through the gathered values alone.
// CHECK-LABEL: func.func @routing
// CHECK: %[[I:.*]] = model.topk
// CHECK: %[[M:.*]] = model.reshape
// CHECK: %[[G:.*]] = model.mul %{{.*}}, %[[M]] {tp.phase = #tp.phase<backward>}
// CHECK-NEXT: %[[GG:.*]] = model.gather_grad %[[G]], %[[I]] {dim = 1 : i64, tp.phase = #tp.phase<backward>} : (tensor<6x2xf32>, tensor<6x2xi64>) -> tensor<6x3xf32>
// CHECK-NEXT: model.linear_grad_weight "gate"(%[[GG]], %{{.*}})
// CHECK-NEXT: return
func.func @routing(%x: tensor<6x4xf32>) -> tensor<f32> {
  %wg = model.param "gate.weight" : tensor<3x4xf32>
  %r = model.linear "gate"(%x, %wg) : (tensor<6x4xf32>, tensor<3x4xf32>) -> tensor<6x3xf32>
  %i = model.topk %r {dim = 1 : i64} : (tensor<6x3xf32>) -> tensor<6x2xi64>
  %v = model.gather %r, %i {dim = 1 : i64} : (tensor<6x3xf32>, tensor<6x2xi64>) -> tensor<6x2xf32>
  %oh = model.one_hot %i : (tensor<6x2xi64>) -> tensor<6x2x3xi64>
  %m = model.cast %oh : (tensor<6x2x3xi64>) -> tensor<6x2x3xf32>
  %s = model.reduce_sum %m {dim = 2 : i64} : (tensor<6x2x3xf32>) -> tensor<6x2x1xf32>
  %sr = model.reshape %s : (tensor<6x2x1xf32>) -> tensor<6x2xf32>
  %o = model.mul %v, %sr : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %l = model.mean %o : (tensor<6x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// model.generic: each float operand's gradient is a generic over the same
// loops (the forward body, its derivative, times the result's gradient),
// summed over the loops the operand does not index: the broadcast row's
// gradient sums the rows (i a reduction), its size-1 dim back by reshape.
// CHECK-LABEL: func.func @generic
// CHECK: %[[G:.*]] = model.mean_grad
// CHECK: model.generic %{{.*}}, %{{.*}}, %{{.*}}, %[[G]], %{{.*}} {indexing_maps = {{.*}}, iterator_types = ["parallel", "parallel"], tp.phase = #tp.phase<backward>} : {{.*}} -> tensor<2x4xf32>
// CHECK: math.tanh
// CHECK: arith.negf
// CHECK: model.generic_yield
// CHECK: model.generic %{{.*}}, %{{.*}}, %{{.*}}, %[[G]], %{{.*}} {indexing_maps = {{.*}}, iterator_types = ["reduction", "parallel"], tp.phase = #tp.phase<backward>} : {{.*}} -> tensor<4xf32>
// CHECK: model.reshape %{{.*}} : (tensor<4xf32>) -> tensor<1x4xf32>
func.func @generic(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<4x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %s = model.param "scale" : tensor<1x4xf32>
  %e0 = model.full 0.0 : tensor<2x4xf32>
  %e = model.generic %h, %s, %e0 {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<2x4xf32>, tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = math.tanh %a : f32
    %m = arith.mulf %t, %b : f32
    model.generic_yield %m : f32
  }
  %l = model.mean %e : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A reduction combined other than by a sum (a max) has no gradient rule.
func.func @generic_max(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<4x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %i = model.full 0.0 : tensor<2xf32>
  // expected-error @below {{'model.generic' op has no backward rule: its reduction loops combine the result other than by one arith.addf (a sum)}}
  %m = model.generic %h, %i {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    model.generic_yield %r : f32
  }
  %l = model.mean %m : (tensor<2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A body op without a derivative is an error naming it.
func.func @generic_floor_div(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<4x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %e0 = model.full 0.0 : tensor<2x4xf32>
  %e = model.generic %h, %e0 {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: f32, %out: f32):
    // expected-error @below {{'math.sinh' op in a model.generic body has no derivative (tp-differentiate differentiates arith and math float ops)}}
    %r = math.sinh %a : f32
    model.generic_yield %r : f32
  }
  %l = model.mean %e : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
