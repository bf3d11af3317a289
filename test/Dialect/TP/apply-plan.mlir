// RUN: tp-opt %s -split-input-file -tp-apply-plan -verify-diagnostics | FileCheck %s
// RUN: tp-opt %S/Inputs/transformer.mlir -tp-apply-plan=plan=%S/Inputs/transformer_plan.json 2>/dev/null | FileCheck %s --check-prefix=FILE
// RUN: tp-opt %S/Inputs/transformer.mlir -tp-apply-plan=plan=%S/Inputs/transformer_plan.json 2>&1 >/dev/null | FileCheck %s --check-prefix=FILE-WARN
// RUN: tp-opt %S/Inputs/legacy.mlir -tp-apply-plan=plan=%S/Inputs/legacy_plan.json 2>/dev/null | FileCheck %s --check-prefix=LEGACY
// RUN: tp-opt %S/Inputs/legacy.mlir -tp-apply-plan=plan=%S/Inputs/legacy_plan.json 2>&1 >/dev/null | FileCheck %s --check-prefix=LEGACY-WARN

// tp-apply-plan: keys are fnmatch patterns matched token by token against
// module FQNs, entries apply in order (the last match wins), keys that match
// nothing warn, and styles on module types they do not support are errors.

// An inline plan: `[qkv]` sets, `?` and `[!0]` (one character each, so
// neither matches `10`). Two keys may match one module when they give it the
// same style (`layers.0.feed_forward.w1`).
// expected-warning @below {{plan key 'nothing.here' matches no module: token 'nothing' matches nothing}}
// expected-warning @below {{plan key 'layers.*.attention.wq.bias' matches no module: token 'bias' matches nothing}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*.attention.w[qkv]", "layers.*.attention.wo", "layers.?.feed_forward.w1", "layers.0.feed_forward.w[1]", "layers.[!0].feed_forward.w2", "nothing.here", "layers.*.attention.wq.bias"], styles = [#tp.colwise<>, #tp.rowwise<>, #tp.colwise<output_layouts = #tp.replicate>, #tp.colwise<output_layouts = #tp.replicate>, #tp.rowwise<output_layouts = #tp.shard<0>>, #tp.colwise<>, #tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  // CHECK-LABEL: func.func @fnmatch_and_order
  func.func @fnmatch_and_order(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    // CHECK: model.linear "layers.0.attention.wq"({{.*}}) {tp.style = #tp.colwise<>}
    // CHECK: model.linear "layers.0.attention.wk"({{.*}}) {tp.style = #tp.colwise<>}
    // CHECK: model.linear "layers.0.attention.wv"({{.*}}) {tp.style = #tp.colwise<>}
    // CHECK: model.linear "layers.0.attention.wo"({{.*}}) {tp.style = #tp.rowwise<>}
    // CHECK: model.linear "layers.0.attention.wx"({{.*}}) : (
    // CHECK: model.linear "layers.0.feed_forward.w1"({{.*}}) {tp.style = #tp.colwise<output_layouts = #tp.replicate>}
    // CHECK: model.linear "layers.0.feed_forward.w2"({{.*}}) : (
    // CHECK: model.linear "layers.1.feed_forward.w2"({{.*}}) {tp.style = #tp.rowwise<output_layouts = #tp.shard<0>>}
    // CHECK: model.linear "layers.10.feed_forward.w1"({{.*}}) : (
    // CHECK: model.linear "layers.10.feed_forward.w2"({{.*}}) : (
    %q = model.linear "layers.0.attention.wq"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %k = model.linear "layers.0.attention.wk"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %v = model.linear "layers.0.attention.wv"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %o = model.linear "layers.0.attention.wo"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %n = model.linear "layers.0.attention.wx"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %a = model.linear "layers.0.feed_forward.w1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %b = model.linear "layers.0.feed_forward.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %c = model.linear "layers.1.feed_forward.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %d = model.linear "layers.10.feed_forward.w1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %e = model.linear "layers.10.feed_forward.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

// `*` never crosses a dot: `layers.*` has two tokens and every module here
// has three, so the key only names a prefix (as `layers` names a ModuleList
// with no module op of its own).
// expected-warning @below {{plan key 'layers.*' matches no module: it is only the prefix of modules such as 'layers.0.w1', 'layers.0.w2' (a container without a module op of its own); a style applies to the module a key names, so use 'layers.*.*' to match its children}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*", "layers.0.w[1-2]"], styles = [#tp.colwise<>, #tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  // CHECK-LABEL: func.func @star_stays_in_token
  func.func @star_stays_in_token(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    // CHECK: model.linear "layers.0.w1"({{.*}}) {tp.style = #tp.colwise<>}
    // CHECK: model.linear "layers.0.w2"({{.*}}) {tp.style = #tp.colwise<>}
    // CHECK: model.linear "layers.0.w3"({{.*}}) : (
    %a = model.linear "layers.0.w1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %b = model.linear "layers.0.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %c = model.linear "layers.0.w3"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

// Composite modules, embeddings, norms and the root key "" (the model
// function) each take the styles they support.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["", "tok_embeddings", "layers.0", "layers.0.norm"], styles = [#tp.prepare_module_input<input_layouts = #tp.replicate, desired_input_layouts = #tp.replicate>, #tp.rowwise<input_layouts = #tp.replicate, output_layouts = #tp.shard<1>>, #tp.prepare_module_output<output_layouts = #tp.shard<1>, desired_output_layouts = #tp.replicate>, #tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  // CHECK-LABEL: func.func @supported_module_types
  // CHECK-SAME: attributes {tp.style = #tp.prepare_module_input<input_layouts = #tp.replicate, desired_input_layouts = #tp.replicate>}
  func.func @supported_module_types(%ids: tensor<4x8xi64>, %emb: tensor<16x8xf32>, %g: tensor<8xf32>) -> tensor<4x8x8xf32> {
    // CHECK: model.embedding "tok_embeddings"({{.*}}) {tp.style = #tp.rowwise<input_layouts = #tp.replicate, output_layouts = #tp.shard<1>>}
    %h = model.embedding "tok_embeddings"(%ids, %emb) : (tensor<4x8xi64>, tensor<16x8xf32>) -> tensor<4x8x8xf32>
    // CHECK: model.module "layers.0"({{.*}}) {kind = "TransformerBlock", tp.style = #tp.prepare_module_output<output_layouts = #tp.shard<1>, desired_output_layouts = #tp.replicate>}
    %y = model.module "layers.0"(%h, %g) {kind = "TransformerBlock"} : (tensor<4x8x8xf32>, tensor<8xf32>) -> tensor<4x8x8xf32> {
    ^bb0(%a: tensor<4x8x8xf32>, %ga: tensor<8xf32>):
      // CHECK: model.rms_norm "layers.0.norm"({{.*}}) {tp.style = #tp.sequence_parallel<>}
      %n = model.rms_norm "layers.0.norm"(%a, %ga) : (tensor<4x8x8xf32>, tensor<8xf32>) -> tensor<4x8x8xf32>
      model.yield %n : tensor<4x8x8xf32>
    }
    return %y : tensor<4x8x8xf32>
  }
}

// -----

// The seed's pairwise styles still apply to composite modules, with a
// deprecation warning.
// expected-warning @below {{plan entry 'mlp': PairwiseParallel is deprecated; use ColwiseParallel and RowwiseParallel instead}}
// expected-warning @below {{plan entry 'block': PyTorch 2.1's SequenceParallel (the PairwiseParallel variant) is deprecated; use ColwiseParallel and RowwiseParallel with SequenceParallel on the norms instead}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["mlp", "block"], styles = [#tp.pairwise_parallel<>, #tp.pairwise_sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  // CHECK-LABEL: func.func @deprecated_pairwise
  func.func @deprecated_pairwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // CHECK: model.module "mlp"({{.*}}) {tp.style = #tp.pairwise_parallel<>}
    %y = model.module "mlp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    // CHECK: model.module "block"({{.*}}) {tp.style = #tp.pairwise_sequence_parallel<>}
    %z = model.module "block"(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return %z : tensor<4x8xf32>
  }
}

// -----

// Two different styles on one module: an error naming both keys.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*.attention.w[qkvo]", "*.*.attention.wo"], styles = [#tp.colwise<>, #tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @conflicting_styles(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    %q = model.linear "layers.0.attention.wq"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // expected-error @below {{conflicting styles on module 'layers.0.attention.wo': plan key 'layers.*.attention.w[qkvo]' gives ColwiseParallel and plan key '*.*.attention.wo' gives RowwiseParallel}}
    %o = model.linear "layers.0.attention.wo"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["norm"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @colwise_on_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
    // expected-error @below {{ColwiseParallel does not support module 'norm' of type RMSNorm (plan key 'norm')}}
    %n = model.rms_norm "norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*"], styles = [#tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @rowwise_on_composite(%x: tensor<4x8xf32>) {
    // expected-error @below {{RowwiseParallel does not support module 'layers.0' of type TransformerBlock (plan key 'layers.*')}}
    %y = model.module "layers.0"(%x) {kind = "TransformerBlock"} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return
  }
}

// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @sequence_parallel_on_linear(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    // expected-error @below {{SequenceParallel does not support module 'net1' of type Linear (plan key 'net1')}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

// expected-warning @below {{plan entry 'net1': PairwiseParallel is deprecated}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.pairwise_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @pairwise_on_linear(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    // expected-error @below {{PairwiseParallel does not support module 'net1' of type Linear (plan key 'net1')}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

// expected-error @below {{no plan: pass plan=FILE or give the module a tp.plan attribute}}
module {
  func.func @no_plan() {
    return
  }
}

// -----

// expected-error @below {{'builtin.module' op references mesh @mesh, which is not a tp.mesh in scope}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  func.func @no_mesh() {
    return
  }
}

// -----

// The seed's PairwiseParallel on the root plus a style of its own on one of
// the linears it pairs: an error naming both keys, not a half-colwise,
// half-rowwise weight.
// expected-warning @below {{plan entry '': PairwiseParallel is deprecated}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["", "net2"], styles = [#tp.pairwise_parallel<>, #tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @pairwise_overlap(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    %h = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // expected-error @below {{module 'net2' is parallelized twice: plan key '' gives '' PairwiseParallel, which makes 'net2' rowwise, and plan key 'net2' gives RowwiseParallel}}
    %y = model.linear "net2"(%h, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

// Nested PairwiseParallel: the outer one recurses into `mlp` (the root has
// fewer than two direct linears), which has its own entry too.
// expected-warning @below {{plan entry '': PairwiseParallel is deprecated}}
// expected-warning @below {{plan entry 'mlp': PairwiseParallel is deprecated}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["", "mlp"], styles = [#tp.pairwise_parallel<>, #tp.pairwise_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @pairwise_nested(%x: tensor<4x8xf32>) {
    %y = model.module "mlp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %w = model.param "mlp.w" : tensor<8x8xf32>
      // expected-error @below {{module 'mlp.net1' is parallelized twice: plan key 'mlp' gives 'mlp' PairwiseParallel, which makes 'mlp.net1' colwise, and plan key '' gives '' PairwiseParallel}}
      %h = model.linear "mlp.net1"(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      // expected-error @below {{module 'mlp.net2' is parallelized twice}}
      %o = model.linear "mlp.net2"(%h, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      model.yield %o : tensor<4x8xf32>
    }
    return
  }
}

// -----

// Two entries giving one module the same style with other arguments: the
// error says which arguments differ.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net*", "net1"], styles = [#tp.colwise<>, #tp.colwise<output_layouts = #tp.replicate, use_local_output = false>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @same_style_other_arguments(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    // expected-error @below {{conflicting styles on module 'net1': plan key 'net*' gives ColwiseParallel and plan key 'net1' gives ColwiseParallel with other arguments (output_layouts: the default vs #tp.replicate; use_local_output: the default vs false)}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

// The modern SequenceParallel on a composite module: the error says how the
// seed's variant is chosen instead.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["block"], styles = [#tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @sequence_parallel_on_composite(%x: tensor<4x8xf32>) {
    // expected-error @below {{SequenceParallel does not support module 'block' of type Module (plan key 'block'); the modern SequenceParallel applies to LayerNorm, RMSNorm and Dropout, while PyTorch 2.1's SequenceParallel (the PairwiseParallel variant for a module of linears) is chosen by giving one of its arguments: input_layouts, output_layouts, _prepare_input or _prepare_output}}
    %y = model.module "block"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return
  }
}

// -----

// Keys are matched in time linear in the name: 24 stars that cannot match
// (the old backtracking matcher took minutes here), and an invalid pattern
// is an error naming the token.
// expected-warning @below {{plan key '************************x' matches no module: token '************************x' matches nothing}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["************************x"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @many_stars(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    %y = model.linear "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}

// -----

// expected-error @below {{plan key 'net[1': token 'net[1' is not a valid pattern: invalid glob pattern, unmatched '['}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net[1"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @bad_pattern() {
    return
  }
}

//===----------------------------------------------------------------------===//
// The plan from a JSON file (Inputs/transformer_plan.json).
//===----------------------------------------------------------------------===//

// The mesh is created, and the plan is recorded with its keys in file order
// (not sorted, which would put `*.*.attention.wo` first).
// FILE: module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = ["tok_embeddings", "layers.*.attention.w[qkv]", "*.*.attention.wo", "layers.?.feed_forward.w[13]", "layers.?.feed_forward.w2", "layers.*.feed_forward.w4", "output"], styles = [#tp.rowwise<input_layouts = #tp.replicate, output_layouts = #tp.shard<1>>, #tp.colwise<>, #tp.rowwise<>, #tp.colwise<>, #tp.rowwise<>, #tp.colwise<>, #tp.colwise<output_layouts = #tp.replicate>]>}
// FILE-NEXT: tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
// FILE-LABEL: func.func @forward
// FILE: model.embedding "tok_embeddings"({{.*}}) {tp.style = #tp.rowwise<input_layouts = #tp.replicate, output_layouts = #tp.shard<1>>}
// FILE: model.module "layers.0"
// FILE: model.linear "layers.0.attention.wq"({{.*}}) {tp.style = #tp.colwise<>}
// FILE: model.linear "layers.0.attention.wk"({{.*}}) {tp.style = #tp.colwise<>}
// FILE: model.linear "layers.0.attention.wv"({{.*}}) {tp.style = #tp.colwise<>}
// FILE: model.linear "layers.0.attention.wo"({{.*}}) {tp.style = #tp.rowwise<>}
// FILE: model.linear "layers.0.feed_forward.w1"({{.*}}) {tp.style = #tp.colwise<>}
// FILE: model.linear "layers.0.feed_forward.w3"({{.*}}) {tp.style = #tp.colwise<>}
// FILE: model.linear "layers.0.feed_forward.w2"({{.*}}) {tp.style = #tp.rowwise<>}
// FILE: model.module "layers.1"
// FILE: model.linear "layers.1.attention.wo"({{.*}}) {tp.style = #tp.rowwise<>}
// FILE: model.linear "layers.1.feed_forward.w2"({{.*}}) {tp.style = #tp.rowwise<>}
// FILE: model.rms_norm "norm"
// FILE-NOT: tp.style
// FILE: model.linear "output"({{.*}}) {tp.style = #tp.colwise<output_layouts = #tp.replicate>}

// FILE-WARN: warning: plan key 'layers.*.feed_forward.w4' matches no module: token 'w4' matches nothing
// FILE-WARN-NOT: warning

//===----------------------------------------------------------------------===//
// The seed's legacy plan entries (Inputs/legacy_plan.json): prepare
// functions, PairwiseParallel and the seed's SequenceParallel, each with a
// deprecation warning naming what to use instead.
//===----------------------------------------------------------------------===//

// LEGACY-LABEL: func.func @forward
// LEGACY: model.linear "net1"({{.*}}) {tp.style = #tp.colwise<input_layouts = #tp.shard<0>>}
// LEGACY: model.linear "net2"({{.*}}) {tp.style = #tp.rowwise<output_layouts = #tp.shard<0>, use_local_output = false>}
// LEGACY: model.module "mlp"({{.*}}) {tp.style = #tp.pairwise_parallel<>}
// LEGACY: model.module "block"({{.*}}) {tp.style = #tp.pairwise_sequence_parallel<input_layouts = #tp.shard<0>, output_layouts = #tp.shard<0>>}
// LEGACY: model.layer_norm "norm"({{.*}}) {tp.style = #tp.sequence_parallel<sequence_dim = 0>}

// LEGACY-WARN-DAG: warning: plan entry 'net1': make_input_reshard_replicate is deprecated; specify input_layouts instead
// LEGACY-WARN-DAG: warning: plan entry 'net2': make_output_shard_1d is deprecated; specify output_layouts instead
// LEGACY-WARN-DAG: warning: plan entry 'mlp': PairwiseParallel is deprecated; use ColwiseParallel and RowwiseParallel instead
// LEGACY-WARN-DAG: warning: plan entry 'block': PyTorch 2.1's SequenceParallel (the PairwiseParallel variant) is deprecated; use ColwiseParallel and RowwiseParallel with SequenceParallel on the norms instead
// LEGACY-WARN-NOT: plan entry 'norm'

// -----

// The plan's frozen patterns mark parameters: a parameter FQN, or a module
// FQN and every parameter under it.
// CHECK-LABEL: func.func @frozen
// CHECK: model.param "emb.weight" {frozen}
// CHECK: model.param "blocks.0.w1.weight" {frozen}
// CHECK: model.param "blocks.0.w2.weight" :
// CHECK: model.param "blocks.1.w1.weight" {frozen}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = [], frozen = ["emb", "blocks.*.w1.weight"]>} {
  tp.mesh @mesh(shape = 2)
  func.func @frozen(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %e = model.param "emb.weight" : tensor<4x4xf32>
    %a = model.param "blocks.0.w1.weight" : tensor<4x4xf32>
    %b = model.param "blocks.0.w2.weight" : tensor<4x4xf32>
    %c = model.param "blocks.1.w1.weight" : tensor<4x4xf32>
    %0 = model.linear "emb"(%x, %e) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %1 = model.linear "blocks.0.w1"(%0, %a) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %2 = model.linear "blocks.0.w2"(%1, %b) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %3 = model.linear "blocks.1.w1"(%2, %c) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    return %3 : tensor<2x4xf32>
  }
}
