// RUN: tp-opt %s --split-input-file --convert-model-to-linalg | FileCheck %s
// The output needs none of tp's dialects: upstream mlir-opt verifies it.
// RUN: tp-opt %s --split-input-file --convert-model-to-linalg | mlir-opt --split-input-file --verify-each > /dev/null
// Run again on its own output the export changes nothing: parameters stay
// parameters and inputs keep their names.
// RUN: tp-opt %s --split-input-file --convert-model-to-linalg --convert-model-to-linalg | FileCheck %s --check-prefix=TWICE

// Parameters become leading arguments in order of first use, the inputs
// keep their model.name as tp.input; y[..., o] = sum_i x[..., i] w[o, i], then
// the bias broadcast over the rows.
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[Y:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[WARG:.+]]: tensor<4x8xf32> {tp.param = "fc.weight"},
// CHECK-SAME: %[[BARG:.+]]: tensor<4xf32> {tp.frozen, tp.param = "fc.bias"},
// CHECK-SAME: %[[XARG:.+]]: tensor<2x3x8xf32> {tp.input = "x"})
// CHECK: %[[ZERO:.+]] = linalg.fill
// CHECK: %[[XW:.+]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[XARG]], %[[WARG]] : {{.*}}) outs(%[[ZERO]]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[XW]], %[[BARG]] :
// CHECK-NOT: model.
// TWICE-LABEL: func.func @linear(
// TWICE-SAME: %{{.+}}: tensor<4x8xf32> {tp.param = "fc.weight"},
// TWICE-SAME: %{{.+}}: tensor<4xf32> {tp.frozen, tp.param = "fc.bias"},
// TWICE-SAME: %{{.+}}: tensor<2x3x8xf32> {tp.input = "x"})
func.func @linear(%x: tensor<2x3x8xf32> {model.name = "x"}) -> tensor<2x3x4xf32> {
  %w = model.param "fc.weight" : tensor<4x8xf32>
  %b = model.param "fc.bias" {frozen} : tensor<4xf32>
  %y = model.linear "fc"(%x, %w, %b) : (tensor<2x3x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// The composite module is inlined; two model.param of one FQN are one
// argument; an input without model.name is named as tp-run names it.
// CHECK-LABEL: func.func @module(
// CHECK-SAME: %[[W:.+]]: tensor<8xf32> {tp.param = "block.norm.weight"}, %{{.+}}: tensor<4x8xf32> {tp.input = "arg0"})
// CHECK-NOT: model.
// rms_norm: the mean square in double, rsqrt in double rounded to float.
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.mulf %{{.*}} : f64
// CHECK: arith.constant 9.9999999747524271E-7 : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] :
func.func @module(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = model.module "block"(%x) {kind = "Block"} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %w = model.param "block.norm.weight" : tensor<8xf32>
    %n = model.rms_norm "block.norm"(%a, %w) {eps = 1.0e-6 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %w2 = model.param "block.norm.weight" : tensor<8xf32>
    %m = model.mul %n, %w2 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    model.yield %m : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}

// -----

// layer_norm: row mean and biased variance around it in double; the
// normalized value in float, times the weight, plus the bias.
// CHECK-LABEL: func.func @layer_norm(
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.extf
// CHECK: %[[SQ:.+]] = linalg.generic {{.*}} ins(%{{.*}}, %[[SUM]] :
// CHECK: arith.subf %{{.*}} : f64
// CHECK: arith.mulf %{{.*}} : f64
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[SUM]], %[[SQ]], %{{.*}}, %{{.*}} :
// CHECK: arith.constant 9.9999997473787516E-6 : f64
// CHECK: math.sqrt
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[MEAN:.+]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.subf %{{.*}}, %[[MEAN]] : f32
func.func @layer_norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = model.layer_norm "ln"(%x, %w, %b) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// relu keeps NaN (!(x <= 0) ? x : 0), gelu is the erf form, silu divides
// in double.
// CHECK-LABEL: func.func @activations(
// CHECK: %[[LE:.+]] = arith.cmpf ole
// CHECK: arith.select %[[LE]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.constant 0.707106769 : f32
// CHECK: math.erf
// CHECK: arith.negf %{{.*}} : f64
// CHECK: math.exp %{{.*}} : f64
// CHECK: arith.divf %{{.*}} : f64
// CHECK: arith.truncf
func.func @activations(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = model.gelu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = model.silu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r, %g, %s : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Broadcasting: size-1 dims read index 0, missing leading dims are dropped.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @broadcast(
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #{{.+}}]
// CHECK: arith.subf
func.func @broadcast(%a: tensor<2x1x8xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x8xf32> {
  %y = model.sub %a, %b : (tensor<2x1x8xf32>, tensor<3x1xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// softmax: NaN-keeping row max from -inf, exp of the float difference, the
// sum in double, its inverse rounded to float.
// CHECK-LABEL: func.func @softmax(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: arith.subf %{{.*}} : f32
// CHECK-NEXT: math.exp %{{.*}} : f32
// CHECK: arith.addf %{{.*}} : f64
// CHECK: arith.divf %{{.*}} : f64
// CHECK-NEXT: arith.truncf
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = model.softmax %x {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// matmul: the unbatched rhs is shared by every batch.
// CHECK-DAG: #[[L:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[R:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @matmul(
// CHECK: linalg.generic {indexing_maps = [#[[L]], #[[R]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<2x4x5xf32> {
  %y = model.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x5xf32>) -> tensor<2x4x5xf32>
  return %y : tensor<2x4x5xf32>
}

// -----

// reshape collapses and expands; transpose reads input dim perm[i] at
// output dim i.
// CHECK-DAG: #[[T:.+]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-LABEL: func.func @shapes(
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [6, 4]
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.+}}]
func.func @shapes(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>) {
  %r = model.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %t = model.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %r, %t : tensor<6x4xf32>, tensor<4x2x3xf32>
}

// -----

// embedding: a gather of rows, ids clamped into the table; arange from
// the loop index.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: %{{.+}}: tensor<2x3xi64> {tp.input = "arg0"}, %[[TABLE:.+]]: tensor<10x4xf32>
// CHECK: %[[ID:.+]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[LO:.+]] = arith.maxsi %[[ID]]
// CHECK: %[[ROW:.+]] = arith.minsi %[[LO]]
// CHECK: %[[COL:.+]] = linalg.index 2
// CHECK: tensor.extract %[[TABLE]][%[[ROW]], %[[COL]]]
// CHECK: linalg.index 0
// CHECK-NEXT: arith.index_cast %{{.*}} : index to i64
func.func @embedding(%ids: tensor<2x3xi64>, %w: tensor<10x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xi64>) {
  %y = model.embedding "tok"(%ids, %w) : (tensor<2x3xi64>, tensor<10x4xf32>) -> tensor<2x3x4xf32>
  %p = model.arange : tensor<3xi64>
  return %y, %p : tensor<2x3x4xf32>, tensor<3xi64>
}

// -----

// rotary: pair (2i, 2i+1) at position t turned by t / theta^(2i/d) in float.
// CHECK-LABEL: func.func @rotary(
// CHECK: arith.constant 5.000000e+05 : f32
// CHECK: math.powf
// CHECK: math.cos
// CHECK: math.sin
// CHECK: %[[X0:.+]] = tensor.extract
// CHECK: %[[X1:.+]] = tensor.extract
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: arith.select
func.func @rotary(%x: tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> {
  %y = model.rotary %x {theta = 500000.0 : f64} : (tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
  return %y : tensor<1x4x2x8xf32>
}

// -----

// attention: grouped-query heads split as [kv_heads, group], the dot
// product scaled by 1/sqrt(8), the causal mask j <= i, exp in double, the
// group folded back into the heads.
// CHECK-LABEL: func.func @attention(
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3], [4]] output_shape [1, 4, 2, 2, 8]
// CHECK: arith.constant 0.353553385 : f32
// CHECK: arith.cmpi ule
// CHECK: math.exp %{{.*}} : f64
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3], [4]] : tensor<1x4x2x2x8xf32> into tensor<1x4x4x8xf32>
func.func @attention(%q: tensor<1x4x4x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) -> tensor<1x4x4x8xf32> {
  %y = model.attention %q, %k, %v : (tensor<1x4x4x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

// cross_entropy: log-sum-exp and the mean over counted rows (target !=
// -100) in double, scaled by N / count; mean in double; target_logit 0 for
// targets outside the classes.
// CHECK-LABEL: func.func @losses(
// CHECK: math.exp %{{.*}} : f64
// CHECK: arith.constant -100 : i64
// CHECK: math.log %{{.*}} : f64
// CHECK: %[[LOSS:.+]] = arith.truncf
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.mulf %[[LOSS]]
// CHECK: arith.constant 4.000000e+01 : f64
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
func.func @losses(%logits: tensor<4x10xf32>, %t: tensor<4xi64>) -> (tensor<f32>, tensor<f32>, tensor<4x1xf32>) {
  %ce = model.cross_entropy %logits, %t {count = 8 : i64} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  %m = model.mean %logits : (tensor<4x10xf32>) -> tensor<f32>
  %tl = model.target_logit %logits, %t : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  return %ce, %m, %tl : tensor<f32>, tensor<f32>, tensor<4x1xf32>
}

// -----

// keepdim reductions expand back to a size-1 dim; dropout at inference is
// the identity.
// CHECK-LABEL: func.func @reductions(
// CHECK: arith.cmpf ogt
// CHECK: tensor.expand_shape %{{.*}} output_shape [4, 1]
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 10]
// CHECK: linalg.generic {{.*}} ins(%arg0 :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
func.func @reductions(%x: tensor<4x10xf32>) -> (tensor<4x1xf32>, tensor<1x10xf32>, tensor<4x10xf32>) {
  %mx = model.reduce_max %x {dim = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x1xf32>
  %s = model.reduce_sum %x {dim = 0 : i64} : (tensor<4x10xf32>) -> tensor<1x10xf32>
  %d = model.dropout "drop"(%x) {p = 0.1 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %e = model.exp %d : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %mx, %s, %e : tensor<4x1xf32>, tensor<1x10xf32>, tensor<4x10xf32>
}

// -----

// A dropout in training draws tp's runtime mask: the seed and the step are
// arguments (after the inputs), the FQN's FNV-1a hash a constant; element i
// is kept when 53 bits of splitmix64(key + i) are >= p, then scaled by
// 1 / (1 - p).
// CHECK-LABEL: func.func @dropout_train(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32> {tp.input = "arg0"}, %[[STEP:[^:]+]]: tensor<i64> {tp.step}, %[[SEED:[^:]+]]: tensor<i64> {tp.seed})
// CHECK-DAG: tensor.extract %[[SEED]][]
// CHECK-DAG: tensor.extract %[[STEP]][]
// CHECK-DAG: arith.constant -7046029254386353131 : i64
// CHECK: linalg.generic {{.*}} ins(%[[X]] :
// CHECK: arith.shrui
// CHECK: arith.uitofp %{{.*}} : i64 to f64
// CHECK: arith.cmpf oge
// CHECK: arith.constant 1.11111116 : f32
func.func @dropout_train(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = model.dropout "drop"(%x) {p = 1.000000e-01 : f64, train} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// 16-bit values as tp's executor computes them: operands widened to f32,
// the kernel in f32, the result rounded once.
// CHECK-LABEL: func.func @half(
// CHECK-SAME: %[[W:[^:]+]]: tensor<8x4xbf16> {tp.param = "fc.weight"}, %[[X:[^:]+]]: tensor<2x4xbf16>
// CHECK: %[[XW:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x4xbf16>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[WW:.+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<8x4xbf16>)
// CHECK: %[[Y:.+]] = linalg.generic {{.*}} ins(%[[XW]], %[[WW]] : tensor<2x4xf32>, tensor<8x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Y]] : tensor<2x8xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @half(%x: tensor<2x4xbf16>) -> tensor<2x8xbf16> {
  %w = model.param "fc.weight" : tensor<8x4xbf16>
  %y = model.linear "fc"(%x, %w) : (tensor<2x4xbf16>, tensor<8x4xbf16>) -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}
