// RUN: tp-opt %s | tp-opt | FileCheck %s
// RUN: tp-opt %s --mlir-print-op-generic | tp-opt | FileCheck %s

// Round trip of every model op, on global tensors and on dtensors.

tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}

// CHECK-LABEL: func.func @leaf_modules
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x16xf32>, %[[IDS:.*]]: tensor<2x8xi64>)
func.func @leaf_modules(%x: tensor<2x8x16xf32>, %ids: tensor<2x8xi64>) -> tensor<2x8x32xf32> {
  // CHECK: %[[EMB_W:.*]] = model.param "tok_embeddings.weight" : tensor<64x16xf32>
  %emb_w = model.param "tok_embeddings.weight" : tensor<64x16xf32>
  // CHECK: %[[EMB:.*]] = model.embedding "tok_embeddings"(%[[IDS]], %[[EMB_W]]) : (tensor<2x8xi64>, tensor<64x16xf32>) -> tensor<2x8x16xf32>
  %emb = model.embedding "tok_embeddings"(%ids, %emb_w) : (tensor<2x8xi64>, tensor<64x16xf32>) -> tensor<2x8x16xf32>
  // CHECK: %[[W:.*]] = model.param "net1.weight" : tensor<32x16xf32>
  // CHECK: %[[B:.*]] = model.param "net1.bias" : tensor<32xf32>
  %w = model.param "net1.weight" : tensor<32x16xf32>
  %b = model.param "net1.bias" : tensor<32xf32>
  // CHECK: %[[LIN:.*]] = model.linear "net1"(%[[EMB]], %[[W]], %[[B]]) : (tensor<2x8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %lin = model.linear "net1"(%emb, %w, %b) : (tensor<2x8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  // CHECK: model.linear "net1_nobias"(%[[X]], %[[W]]) : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<2x8x32xf32>
  %nobias = model.linear "net1_nobias"(%x, %w) : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<2x8x32xf32>
  // model.param and model.linear print their attribute dictionary by hand
  // (without building it): inherent and discardable attributes, by name.
  // CHECK: model.param "frozen.weight" {a.b = "x", frozen, tp.zz = 1 : i64} : tensor<32x16xf32>
  %wf = model.param "frozen.weight" {tp.zz = 1 : i64, frozen, a.b = "x"} : tensor<32x16xf32>
  // CHECK: model.linear "net1_attrs"(%[[X]], %[[W]]) {a.b, tp.zz = 2 : i64} : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<2x8x32xf32>
  %lin_attrs = model.linear "net1_attrs"(%x, %w) {tp.zz = 2 : i64, a.b} : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<2x8x32xf32>
  // CHECK: %[[LN:.*]] = model.layer_norm "norm"(%[[LIN]], %[[B]], %[[B]]) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %ln = model.layer_norm "norm"(%lin, %b, %b) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  // CHECK: model.layer_norm "norm_eps"(%[[LIN]], %[[B]], %[[B]]) {eps = 1.000000e-03 : f64}
  %ln_eps = model.layer_norm "norm_eps"(%lin, %b, %b) {eps = 1.0e-3 : f64} : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  // CHECK: %[[RMS:.*]] = model.rms_norm "rms"(%[[LN]], %[[B]]) : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %rms = model.rms_norm "rms"(%ln, %b) : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  // CHECK: model.rms_norm "rms_eps"(%[[LN]], %[[B]]) {eps = 1.000000e-04 : f64}
  %rms_eps = model.rms_norm "rms_eps"(%ln, %b) {eps = 1.0e-4 : f64} : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  // CHECK: %[[DROP:.*]] = model.dropout "drop"(%[[RMS]]) {p = 1.000000e-01 : f64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %drop = model.dropout "drop"(%rms) {p = 0.1 : f64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  // The default p = 0.0 is elided.
  // CHECK: model.dropout "drop0"(%[[RMS]]) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %drop0 = model.dropout "drop0"(%rms) {p = 0.0 : f64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  // The training form (tp-differentiate).
  // CHECK: model.dropout "drop"(%[[RMS]]) {p = 1.000000e-01 : f64, train} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %drop_train = model.dropout "drop"(%rms) {p = 0.1 : f64, train} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  // CHECK: return %[[DROP]] : tensor<2x8x32xf32>
  return %drop : tensor<2x8x32xf32>
}

// CHECK-LABEL: func.func @functional
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x16xf32>, %[[V:.*]]: tensor<16xf32>, %[[M:.*]]: tensor<16x32xf32>, %[[TARGETS:.*]]: tensor<16xi32>)
func.func @functional(%x: tensor<2x8x16xf32>, %v: tensor<16xf32>, %m: tensor<16x32xf32>, %targets: tensor<16xi32>) -> tensor<f32> {
  // CHECK: %[[RELU:.*]] = model.relu %[[X]] : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %relu = model.relu %x : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // CHECK: %[[GELU:.*]] = model.gelu %[[RELU]] : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %gelu = model.gelu %relu : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // CHECK: %[[SILU:.*]] = model.silu %[[GELU]] : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %silu = model.silu %gelu : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // Broadcasting aligns dims at the end.
  // CHECK: %[[ADD:.*]] = model.add %[[SILU]], %[[V]] : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %add = model.add %silu, %v : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  // CHECK: %[[MUL:.*]] = model.mul %[[ADD]], %[[X]] : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %mul = model.mul %add, %x : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // CHECK: %[[MM:.*]] = model.matmul %[[MUL]], %[[M]] : (tensor<2x8x16xf32>, tensor<16x32xf32>) -> tensor<2x8x32xf32>
  %mm = model.matmul %mul, %m : (tensor<2x8x16xf32>, tensor<16x32xf32>) -> tensor<2x8x32xf32>
  // CHECK: %[[SM:.*]] = model.softmax %[[MM]] {dim = -1 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %sm = model.softmax %mm {dim = -1 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  // CHECK: model.softmax %[[MM]] {dim = 1 : i64}
  %sm1 = model.softmax %mm {dim = 1 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  // CHECK: %[[Q:.*]] = model.reshape %[[SM]] : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
  %q = model.reshape %sm : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
  // CHECK: %[[KV:.*]] = model.reshape %[[ADD]] : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %kv = model.reshape %add : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  // CHECK: %[[ROT:.*]] = model.rotary %[[Q]] : (tensor<2x8x4x8xf32>) -> tensor<2x8x4x8xf32>
  %rot = model.rotary %q : (tensor<2x8x4x8xf32>) -> tensor<2x8x4x8xf32>
  // CHECK: model.rotary %[[Q]] {theta = 5.000000e+05 : f64}
  %rot_theta = model.rotary %q {theta = 500000.0 : f64} : (tensor<2x8x4x8xf32>) -> tensor<2x8x4x8xf32>
  // Grouped-query attention: 4 query heads read 2 kv heads.
  // CHECK: %[[ATT:.*]] = model.attention %[[ROT]], %[[KV]], %[[KV]] : (tensor<2x8x4x8xf32>, tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  %att = model.attention %rot, %kv, %kv : (tensor<2x8x4x8xf32>, tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  // CHECK: model.attention %[[ROT]], %[[KV]], %[[KV]] {causal = false}
  %att_full = model.attention %rot, %kv, %kv {causal = false} : (tensor<2x8x4x8xf32>, tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  // CHECK: model.transpose %[[ATT]] {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
  %tr = model.transpose %att {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
  // CHECK: model.arange : tensor<8xi64>
  %pos = model.arange : tensor<8xi64>
  // CHECK: %[[LOGITS:.*]] = model.reshape %[[MM]] : (tensor<2x8x32xf32>) -> tensor<16x32xf32>
  %logits = model.reshape %mm : (tensor<2x8x32xf32>) -> tensor<16x32xf32>
  // CHECK: %[[LOSS:.*]] = model.cross_entropy %[[LOGITS]], %[[TARGETS]] : (tensor<16x32xf32>, tensor<16xi32>) -> tensor<f32>
  %loss = model.cross_entropy %logits, %targets : (tensor<16x32xf32>, tensor<16xi32>) -> tensor<f32>
  // The divisor of a shard of the rows: the rows not ignored, counted.
  // CHECK: %[[N:.*]] = model.valid_rows %[[TARGETS]] : (tensor<16xi32>) -> tensor<f32>
  %n = model.valid_rows %targets : (tensor<16xi32>) -> tensor<f32>
  // CHECK: model.cross_entropy %[[LOGITS]], %[[TARGETS]], %[[N]] : (tensor<16x32xf32>, tensor<16xi32>, tensor<f32>) -> tensor<f32>
  %part = model.cross_entropy %logits, %targets, %n : (tensor<16x32xf32>, tensor<16xi32>, tensor<f32>) -> tensor<f32>
  // CHECK: return %[[LOSS]] : tensor<f32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: func.func @composite_modules
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[MASK:.*]]: tensor<4x8xf32>)
func.func @composite_modules(%x: tensor<4x8xf32>, %mask: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[OUT:.*]]:2 = model.module "layers.0"(%[[X]], %[[MASK]]) {arg_names = ["x", "mask"], kind = "TransformerBlock"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>):
  // CHECK-NEXT: %[[INNER:.*]] = model.module "layers.0.mlp"(%[[A]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: ^bb0(%[[C:.*]]: tensor<4x8xf32>):
  // CHECK-NEXT: %[[R:.*]] = model.relu %[[C]]
  // CHECK-NEXT: model.yield %[[R]] : tensor<4x8xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: %[[S:.*]] = model.add %[[INNER]], %[[B]]
  // CHECK-NEXT: model.yield %[[S]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK-NEXT: }
  %out:2 = model.module "layers.0"(%x, %mask) {kind = "TransformerBlock", arg_names = ["x", "mask"]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %inner = model.module "layers.0.mlp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%c: tensor<4x8xf32>):
      %r = model.relu %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %r : tensor<4x8xf32>
    }
    %s = model.add %inner, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    model.yield %s, %b : tensor<4x8xf32>, tensor<4x8xf32>
  }
  // A module without outputs: its empty yield is implicit in the custom form.
  // CHECK: model.module "side_effect_free"(%[[X]]) : (tensor<4x8xf32>) -> () {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x8xf32>):
  // CHECK-NEXT: }
  model.module "side_effect_free"(%x) : (tensor<4x8xf32>) -> () {
  ^bb0(%d: tensor<4x8xf32>):
    model.yield
  }
  // CHECK: return %[[OUT]]#0 : tensor<4x8xf32>
  return %out#0 : tensor<4x8xf32>
}

// Model ops accept distributed tensors (global shapes) too.
// CHECK-LABEL: func.func @on_dtensors
// CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, %[[W:.*]]: !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>)
func.func @on_dtensors(%x: !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, %w: !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {
  // CHECK: %[[Y:.*]] = model.linear "net1"(%[[X]], %[[W]]) : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %y = model.linear "net1"(%x, %w) : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: %[[R:.*]] = model.relu %[[Y]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %y : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: return %[[R]]
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
}

// Local (partitioned) programs may carry dynamic, uneven sizes.
// CHECK-LABEL: func.func @dynamic_local
// CHECK: model.linear "net1"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<?x8xf32>) -> tensor<4x?xf32>
func.func @dynamic_local(%x: tensor<4x8xf32>, %w: tensor<?x8xf32>) -> tensor<4x?xf32> {
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<?x8xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

// The pieces of the class-parallel cross entropy (loss_parallel).
// CHECK-LABEL: func.func @loss_pieces
func.func @loss_pieces(%l: tensor<4x8xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  // CHECK: model.reduce_max %{{.*}} {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %m = model.reduce_max %l {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: model.sub
  %s = model.sub %l, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  // CHECK: model.exp
  %e = model.exp %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.reduce_sum %{{.*}} {dim = -1 : i64}
  %z = model.reduce_sum %e {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: model.log
  %lz = model.log %z : (tensor<4x1xf32>) -> tensor<4x1xf32>
  // CHECK: model.target_logit
  %tl = model.target_logit %s, %t : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  %d = model.sub %lz, %tl : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  // CHECK: model.mean %{{.*}} : (tensor<4x1xf32>) -> tensor<f32>
  %loss = model.mean %d : (tensor<4x1xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// The backward ops (tp-differentiate), on global tensors and on dtensors.
// CHECK-LABEL: func.func @backward_ops
func.func @backward_ops(%g: tensor<2x4x16xf32>, %x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %gs: !tp.dtensor<2x4x16xf32, @mesh, [#tp.shard<2>]>, %ws: !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> tensor<f32> {
  // CHECK: model.full 1.000000e+00 : tensor<f32>
  %one = model.full 1.0 : tensor<f32>
  // CHECK: model.mean_grad %{{.*}} : (tensor<f32>) -> tensor<2x4x16xf32>
  %gm = model.mean_grad %one : (tensor<f32>) -> tensor<2x4x16xf32>
  // CHECK: model.linear_grad_input "fc"(%{{.*}}, %{{.*}}) : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %gx = model.linear_grad_input "fc"(%g, %w) : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: model.linear_grad_weight "fc"(%{{.*}}, %{{.*}}) : (tensor<2x4x16xf32>, tensor<2x4x8xf32>) -> tensor<16x8xf32>
  %gw = model.linear_grad_weight "fc"(%g, %x) : (tensor<2x4x16xf32>, tensor<2x4x8xf32>) -> tensor<16x8xf32>
  // CHECK: model.linear_grad_input "fc"(%{{.*}}, %{{.*}}) : (!tp.dtensor<2x4x16xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
  %gxs = model.linear_grad_input "fc"(%gs, %ws) : (!tp.dtensor<2x4x16xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
  // CHECK: model.sum_to %{{.*}} : (tensor<2x4x16xf32>) -> tensor<16xf32>
  %gb = model.sum_to %g : (tensor<2x4x16xf32>) -> tensor<16xf32>
  // CHECK: model.sum_to %{{.*}} : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32>
  %gk = model.sum_to %g : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32>
  // CHECK: model.relu_grad
  %r = model.relu_grad %g, %g : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: model.dropout_grad "drop"(%{{.*}}) {p = 1.000000e-01 : f64} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %gd = model.dropout_grad "drop"(%g) {p = 0.1 : f64} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: model.gelu_grad
  %ge = model.gelu_grad %r, %g : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: model.silu_grad
  %si = model.silu_grad %ge, %g : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: model.neg
  %n = model.neg %si : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %l = model.mean %n : (tensor<2x4x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// The backward ops of the transformer and Llama ops, and model.detach.
// CHECK-LABEL: func.func @transformer_backward_ops
func.func @transformer_backward_ops(%g: tensor<2x4x8xf32>, %x: tensor<2x4x8xf32>, %w: tensor<8xf32>, %ids: tensor<2x4xi64>, %table: tensor<16x8xf32>, %gq: tensor<2x4x4x2xf32>, %q: tensor<2x4x4x2xf32>, %kv: tensor<2x4x2x2xf32>, %gr: tensor<4x1xf32>, %lg: tensor<4x6xf32>, %t: tensor<4xi64>, %gl: tensor<f32>, %gts: !tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, %lgs: !tp.dtensor<4x6xf32, @mesh, [#tp.shard<1>]>, %ts: !tp.dtensor<4xi64, @mesh, [#tp.replicate]>) {
  // CHECK: model.layer_norm_grad_input "ln"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 1.000000e-03 : f64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %0 = model.layer_norm_grad_input "ln"(%g, %x, %w) {eps = 1.0e-3 : f64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK: model.layer_norm_grad_weight "ln"(%{{.*}}, %{{.*}}) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<8xf32>
  %1 = model.layer_norm_grad_weight "ln"(%g, %x) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<8xf32>
  // CHECK: model.rms_norm_grad_input "rn"
  %2 = model.rms_norm_grad_input "rn"(%g, %x, %w) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK: model.rms_norm_grad_weight "rn"
  %3 = model.rms_norm_grad_weight "rn"(%g, %x) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<8xf32>
  // CHECK: model.embedding_grad "tok"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x4x8xf32>, tensor<2x4xi64>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %4 = model.embedding_grad "tok"(%g, %ids, %table) : (tensor<2x4x8xf32>, tensor<2x4xi64>, tensor<16x8xf32>) -> tensor<16x8xf32>
  // CHECK: model.softmax_grad %{{.*}}, %{{.*}} {dim = -1 : i64}
  %5 = model.softmax_grad %g, %x {dim = -1 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: model.rotary_grad %{{.*}} {theta = 5.000000e+05 : f64}
  %6 = model.rotary_grad %gq {theta = 500000.0 : f64} : (tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32>
  // CHECK: model.attention_grad_q %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>, tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<2x4x4x2xf32>
  %7 = model.attention_grad_q %gq, %q, %kv, %kv : (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>, tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<2x4x4x2xf32>
  // CHECK: model.attention_grad_k %{{.*}} {causal = false}
  %8 = model.attention_grad_k %gq, %q, %kv, %kv {causal = false} : (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>, tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<2x4x2x2xf32>
  // CHECK: model.attention_grad_v
  %9 = model.attention_grad_v %gq, %q, %kv, %kv : (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>, tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<2x4x2x2xf32>
  // CHECK: model.reduce_sum_grad %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %10 = model.reduce_sum_grad %gr, %lg {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  // CHECK: model.reduce_max_grad
  %11 = model.reduce_max_grad %gr, %lg {dim = -1 : i64} : (tensor<4x1xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  // CHECK: model.log_grad
  %12 = model.log_grad %gr, %gr : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  // CHECK: model.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  %13 = model.cross_entropy_grad %gl, %lg, %t : (tensor<f32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  // CHECK: model.target_logit_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  %14 = model.target_logit_grad %gr, %lg, %t : (tensor<4x1xf32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  // CHECK: model.target_logit_grad %{{.*}} : (!tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x6xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<4xi64, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x6xf32, @mesh, [#tp.shard<1>]>
  %15 = model.target_logit_grad %gts, %lgs, %ts : (!tp.dtensor<4x1xf32, @mesh, [#tp.replicate]>, !tp.dtensor<4x6xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<4xi64, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x6xf32, @mesh, [#tp.shard<1>]>
  // CHECK: model.detach %{{.*}} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %16 = model.detach %gr : (tensor<4x1xf32>) -> tensor<4x1xf32>
  // CHECK: %[[SQ:.*]] = model.sum_squares %{{.*}}, %{{.*}} : tensor<4x6xf32>, tensor<4x1xf32> -> tensor<f32>
  %17 = model.sum_squares %lg, %gr : tensor<4x6xf32>, tensor<4x1xf32> -> tensor<f32>
  // CHECK: model.clip_coefficient %[[SQ]] {max_norm = 1.000000e+00 : f64} : tensor<f32> -> tensor<f32>
  %18 = model.clip_coefficient %17 {max_norm = 1.0 : f64} : tensor<f32> -> tensor<f32>
  // CHECK: model.mean %{{.*}} {count = 48 : i64}
  %19 = model.mean %lg {count = 48 : i64} : (tensor<4x6xf32>) -> tensor<f32>
  return
}

// The pointwise math ops.
// CHECK-LABEL: func.func @math
func.func @math(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: model.tanh %{{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = model.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.sigmoid
  %b = model.sigmoid %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.sqrt
  %c = model.sqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.rsqrt
  %d = model.rsqrt %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.erf
  %e = model.erf %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.reciprocal
  %f = model.reciprocal %e : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.pow %{{.*}} {exponent = 3.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = model.pow %f {exponent = 3.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: model.div %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %h = model.div %g, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %h : tensor<4x8xf32>
}

// Slicing and concatenation.
// CHECK-LABEL: func.func @slices
func.func @slices(%x: tensor<2x8xf32>, %g: tensor<2x3xf32>) -> tensor<2x7xf32> {
  // CHECK: model.slice %{{.*}} {dim = 1 : i64, start = 1 : i64, step = 3 : i64} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  %a = model.slice %x {dim = 1 : i64, start = 1 : i64, step = 3 : i64} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  // CHECK: model.slice_grad %{{.*}} {dim = 1 : i64, start = 1 : i64, step = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x8xf32>
  %b = model.slice_grad %g {dim = 1 : i64, start = 1 : i64, step = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x8xf32>
  // CHECK: model.concat %{{.*}}, %{{.*}}, %{{.*}} {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x7xf32>
  %c = model.slice %x {dim = 1 : i64, start = 7 : i64} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = model.concat %a, %g, %c {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x7xf32>
  return %d : tensor<2x7xf32>
}

// Routing: top-k positions, the values at them, one-hot masks.
// CHECK-LABEL: func.func @routing
func.func @routing(%p: tensor<16x4xf32>, %g: tensor<16x2xf32>) -> (tensor<16x2xf32>, tensor<16x2x4xi64>, tensor<16x4xf32>) {
  // CHECK: model.topk %{{.*}} {dim = 1 : i64} : (tensor<16x4xf32>) -> tensor<16x2xi64>
  %i = model.topk %p {dim = 1 : i64} : (tensor<16x4xf32>) -> tensor<16x2xi64>
  // CHECK: model.gather %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<16x4xf32>, tensor<16x2xi64>) -> tensor<16x2xf32>
  %v = model.gather %p, %i {dim = 1 : i64} : (tensor<16x4xf32>, tensor<16x2xi64>) -> tensor<16x2xf32>
  // CHECK: model.one_hot %{{.*}} : (tensor<16x2xi64>) -> tensor<16x2x4xi64>
  %m = model.one_hot %i : (tensor<16x2xi64>) -> tensor<16x2x4xi64>
  // CHECK: model.gather_grad %{{.*}}, %{{.*}} {dim = -1 : i64} : (tensor<16x2xf32>, tensor<16x2xi64>) -> tensor<16x4xf32>
  %b = model.gather_grad %g, %i {dim = -1 : i64} : (tensor<16x2xf32>, tensor<16x2xi64>) -> tensor<16x4xf32>
  return %v, %m, %b : tensor<16x2xf32>, tensor<16x2x4xi64>, tensor<16x4xf32>
}

// Masks: comparisons of floats and ids, logic, where, abs.
// CHECK-LABEL: func.func @masks
func.func @masks(%x: tensor<2x8xf32>, %ids: tensor<2x8xi64>, %pad: tensor<i64>, %f: tensor<f32>) -> tensor<2x8xf32> {
  // CHECK: model.compare %{{.*}}, %{{.*}} {predicate = "ne"} : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
  %k = model.compare %ids, %pad {predicate = "ne"} : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
  // CHECK: model.compare %{{.*}}, %{{.*}} {predicate = "lt"} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xi1>
  %n = model.compare %x, %f {predicate = "lt"} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xi1>
  // CHECK: model.logical_not %{{.*}} : (tensor<2x8xi1>) -> tensor<2x8xi1>
  %nn = model.logical_not %n : (tensor<2x8xi1>) -> tensor<2x8xi1>
  // CHECK: model.logical_and
  %a = model.logical_and %k, %nn : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  // CHECK: model.logical_or
  %o = model.logical_or %a, %n : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  // CHECK: model.abs %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %b = model.abs %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: model.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8xi1>, tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %w = model.where %o, %f, %b : (tensor<2x8xi1>, tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  // CHECK: model.cast %{{.*}} : (tensor<2x8xf32>) -> tensor<2x8xi1>
  %c = model.cast %w : (tensor<2x8xf32>) -> tensor<2x8xi1>
  // CHECK: model.expand %{{.*}} : (tensor<2x8xi1>) -> tensor<3x2x8xi1>
  %e = model.expand %c : (tensor<2x8xi1>) -> tensor<3x2x8xi1>
  // CHECK: model.constant dense<[true, false]> : tensor<2xi1>
  %m = model.constant dense<[true, false]> : tensor<2xi1>
  return %w : tensor<2x8xf32>
}

// Constants of any values, in the dense or the hex form.
// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2x2xf32>, tensor<3xi64>, tensor<2xbf16>) {
  // CHECK: model.constant dense<{{\[\[}}1.000000e+00, 5.000000e-01], [2.500000e-01, 0.000000e+00]]> : tensor<2x2xf32>
  %a = model.constant dense<[[1.0, 0.5], [0.25, 0.0]]> : tensor<2x2xf32>
  // CHECK: model.constant dense<[0, 2, 4]> : tensor<3xi64>
  %b = model.constant dense<[0, 2, 4]> : tensor<3xi64>
  // CHECK: model.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xbf16>
  %c = model.constant dense<"0x803F0040"> : tensor<2xbf16>
  return %a, %b, %c : tensor<2x2xf32>, tensor<3xi64>, tensor<2xbf16>
}

// Casts to a float type.
// CHECK-LABEL: func.func @casts
func.func @casts(%m: tensor<2x8xi64>, %x: tensor<2x8xbf16>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  // CHECK: model.cast %{{.*}} : (tensor<2x8xi64>) -> tensor<2x8xf32>
  %a = model.cast %m : (tensor<2x8xi64>) -> tensor<2x8xf32>
  // CHECK: model.cast %{{.*}} : (tensor<2x8xbf16>) -> tensor<2x8xf32>
  %b = model.cast %x : (tensor<2x8xbf16>) -> tensor<2x8xf32>
  return %a, %b : tensor<2x8xf32>, tensor<2x8xf32>
}
