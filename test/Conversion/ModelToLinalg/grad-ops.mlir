// The training step's ops (tp-differentiate, tp-optimizer-step).
// RUN: tp-opt %s --split-input-file --convert-model-to-linalg | FileCheck %s
// RUN: tp-opt %s --split-input-file --convert-model-to-linalg | mlir-opt --split-input-file --verify-each > /dev/null

// The linear's input gradient g @ w, its weight gradient summed over every
// leading dim, the bias gradient (sum_to) summed in double.
// CHECK-DAG: #[[GX_G:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[GX_W:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[GW_G:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d0)>
// CHECK-DAG: #[[GW_X:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-LABEL: func.func @linear_grads(
// CHECK: linalg.generic {indexing_maps = [#[[GX_G]], #[[GX_W]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [#[[GW_G]], #[[GW_X]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK: iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4xf64>)
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @linear_grads(%g: tensor<2x3x4xf32>, %x: tensor<2x3x8xf32>, %w: tensor<4x8xf32>) -> (tensor<2x3x8xf32>, tensor<4x8xf32>, tensor<4xf32>) {
  %gx = model.linear_grad_input "fc"(%g, %w) : (tensor<2x3x4xf32>, tensor<4x8xf32>) -> tensor<2x3x8xf32>
  %gw = model.linear_grad_weight "fc"(%g, %x) : (tensor<2x3x4xf32>, tensor<2x3x8xf32>) -> tensor<4x8xf32>
  %gb = model.sum_to %g : (tensor<2x3x4xf32>) -> tensor<4xf32>
  return %gx, %gw, %gb : tensor<2x3x8xf32>, tensor<4x8xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @activation_grads(
// CHECK: arith.cmpf ole
// CHECK: math.erf
// CHECK: arith.constant -5.000000e-01 : f32
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.exp %{{.*}} : f64
// CHECK: arith.divf %{{.*}} : f32
func.func @activation_grads(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = model.relu_grad %g, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %ge = model.gelu_grad %g, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = model.silu_grad %g, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = model.log_grad %g, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r, %ge, %s, %l : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Norm gradients recompute the row statistics in double.
// CHECK-LABEL: func.func @norm_grads(
// CHECK-COUNT-4: math.sqrt %{{.*}} : f64
// CHECK-NOT: model.
func.func @norm_grads(%g: tensor<4x8xf32>, %x: tensor<4x8xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %a = model.layer_norm_grad_input "ln"(%g, %x, %w) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %b = model.layer_norm_grad_weight "ln"(%g, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8xf32>
  %c = model.rms_norm_grad_input "rms"(%g, %x, %w) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %d = model.rms_norm_grad_weight "rms"(%g, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8xf32>
  return %a, %b, %c, %d : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32>
}

// -----

// A scatter-add as a reduction over the ids: row v sums the gradient rows
// whose id is v, in the ids' order.
// CHECK-LABEL: func.func @embedding_grad(
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg1, %arg0 :
// CHECK: %[[ROW:.+]] = linalg.index 0
// CHECK: %[[ID:.+]] = arith.index_cast
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[ID]], %[[ROW]]
// CHECK: %[[SUM:.+]] = arith.addf
// CHECK: arith.select %[[HIT]], %[[SUM]]
func.func @embedding_grad(%g: tensor<2x3x4xf32>, %ids: tensor<2x3xi64>, %w: tensor<10x4xf32>) -> tensor<10x4xf32> {
  %gw = model.embedding_grad "tok"(%g, %ids, %w) : (tensor<2x3x4xf32>, tensor<2x3xi64>, tensor<10x4xf32>) -> tensor<10x4xf32>
  return %gw : tensor<10x4xf32>
}

// -----

// Each of the three gradients recomputes the probabilities; k's and v's sum
// over the query heads of their group.
// CHECK-LABEL: func.func @attention_grads(
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x4x2x2x8xf32> into tensor<1x4x4x8xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<1x4x2x2x8xf32>) outs(%{{.*}} : tensor<1x4x2x8xf32>)
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<1x4x2x2x8xf32>) outs(%{{.*}} : tensor<1x4x2x8xf32>)
// The rotary gradient turns back: the sine negated.
// CHECK: math.sin
// CHECK-NEXT: arith.negf
func.func @attention_grads(%g: tensor<1x4x4x8xf32>, %q: tensor<1x4x4x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x4x8xf32>) {
  %gq = model.attention_grad_q %g, %q, %k, %v : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x4x4x8xf32>
  %gk = model.attention_grad_k %g, %q, %k, %v : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
  %gv = model.attention_grad_v %g, %q, %k, %v : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
  %gr = model.rotary_grad %g : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %gq, %gk, %gv, %gr : tensor<1x4x4x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @loss_grads(
// cross_entropy_grad: (softmax - onehot) * g / counted rows, in double.
// CHECK: arith.constant -100 : i64
// CHECK: arith.divf %{{.*}} : f64
// CHECK: arith.cmpi eq
// CHECK: arith.subf %{{.*}} : f64
// CHECK: arith.truncf
// mean_grad: g / 40 everywhere.
// CHECK: arith.constant 4.000000e+01 : f64
// CHECK: linalg.fill
// reduce_max_grad: the gradient shared among ties.
// CHECK: arith.cmpf oeq
func.func @loss_grads(%l: tensor<f32>, %logits: tensor<4x10xf32>, %t: tensor<4xi64>, %g1: tensor<4x1xf32>, %y: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>) {
  %ce = model.cross_entropy_grad %l, %logits, %t : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>) -> tensor<4x10xf32>
  %tl = model.target_logit_grad %g1, %logits, %t : (tensor<4x1xf32>, tensor<4x10xf32>, tensor<4xi64>) -> tensor<4x10xf32>
  %m = model.mean_grad %l : (tensor<f32>) -> tensor<4x10xf32>
  %sm = model.softmax_grad %y, %logits {dim = 1 : i64} : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  %rs = model.reduce_sum_grad %g1, %logits {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  %rm = model.reduce_max_grad %g1, %logits {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return %ce, %tl, %m, %sm, %rs, %rm : tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>, tensor<4x10xf32>
}

// -----

// sgd_update without momentum (no state): p + (-lr) * (g + wd * p);
// sum_squares and clip_coefficient in double.
// CHECK-LABEL: func.func @optimizer(
// CHECK: arith.constant -1.000000e-01 : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.constant 9.9999999999999995E-7 : f64
// CHECK: arith.cmpf ogt
// CHECK: arith.constant 1.000000e+00 : f32
func.func @optimizer(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %u = model.sgd_update "fc.weight"(%p, %g) {lr = 0.1 : f64, weight_decay = 0.01 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %sq = model.sum_squares %g, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<f32>
  %c = model.clip_coefficient %sq {max_norm = 1.0 : f64} : tensor<f32> -> tensor<f32>
  %one = model.full 1.0 : tensor<f32>
  return %u, %sq, %c, %one : tensor<4x8xf32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Optimizer state: after the inputs, each stateful update's state
// arguments in program order, then the step number; the updated state is
// returned after the function's results, under the same names.
// CHECK-LABEL: func.func @stateful(
// CHECK-SAME: %[[W:[^:]+]]: tensor<4xf32> {tp.param = "w"}, %[[B:[^:]+]]: tensor<4xf32> {tp.param = "b"}, %{{[^:]+}}: tensor<4xf32> {tp.input = "x"},
// CHECK-SAME: %[[M:[^:]+]]: tensor<4xf32> {tp.state = "w.exp_avg"}, %[[V:[^:]+]]: tensor<4xf32> {tp.state = "w.exp_avg_sq"},
// CHECK-SAME: %[[BUF:[^:]+]]: tensor<4xf32> {tp.state = "b.momentum_buffer"}, %[[STEP:[^:]+]]: tensor<i64> {tp.step})
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32> {tp.state = "w.exp_avg"}, tensor<4xf32> {tp.state = "w.exp_avg_sq"}, tensor<4xf32> {tp.state = "b.momentum_buffer"})
// AdamW's bias corrections 1 - beta^step in double, from the step argument.
// CHECK: %[[N:.+]] = tensor.extract %[[STEP]][]
// CHECK: %[[STEPS:.+]] = arith.sitofp %[[N]] : i64 to f64
// CHECK: math.powf %{{.*}}, %[[STEPS]] : f64
// CHECK: %[[ADAM:.+]]:3 = linalg.generic {{.*}} ins(%[[W]], %{{.*}}, %[[M]], %[[V]] :
// SGD's buffer starts as the first step's gradient.
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %{{.*}}, %c1_i64
// CHECK: %[[SGD:.+]]:2 = linalg.generic {{.*}} ins(%[[B]], %{{.*}}, %[[BUF]] :
// CHECK: arith.select %[[FIRST]]
// CHECK: return %[[ADAM]]#0, %[[SGD]]#0, %[[ADAM]]#1, %[[ADAM]]#2, %[[SGD]]#1
func.func @stateful(%x: tensor<4xf32> {model.name = "x"}) -> (tensor<4xf32>, tensor<4xf32>) {
  %w = model.param "w" : tensor<4xf32>
  %b = model.param "b" : tensor<4xf32>
  %gw = model.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %u = model.adamw_update "w"(%w, %gw) {lr = 1.000000e-03 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %v = model.sgd_update "b"(%b, %gw) {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %u, %v : tensor<4xf32>, tensor<4xf32>
}
