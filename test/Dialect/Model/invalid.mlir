// RUN: tp-opt %s -split-input-file -verify-diagnostics

// Shape and structure verifiers of the model dialect.

func.func @linear_in_features(%x: tensor<4x8xf32>, %w: tensor<16x12xf32>) {
  // expected-error @below {{'model.linear' op input of 'net1' has shape 4x8 but weight expects 12 input features}}
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x12xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<16x8x1xf32>) {
  // expected-error @below {{'model.linear' op weight of 'net1' must be [out_features, in_features], got 16x8x1}}
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8x1xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) {
  // expected-error @below {{'model.linear' op bias has shape 8, expected 16}}
  %y = model.linear "net1"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_result(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'model.linear' op result has shape 4x8, expected 4x16}}
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @embedding_float_ids(%ids: tensor<2x8xf32>, %w: tensor<64x16xf32>) {
  // expected-error @below {{'model.embedding' op ids of 'tok_embeddings' must be integers}}
  %e = model.embedding "tok_embeddings"(%ids, %w) : (tensor<2x8xf32>, tensor<64x16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @embedding_result(%ids: tensor<2x8xi64>, %w: tensor<64x16xf32>) {
  // expected-error @below {{'model.embedding' op result has shape 2x8x64, expected 2x8x16}}
  %e = model.embedding "tok_embeddings"(%ids, %w) : (tensor<2x8xi64>, tensor<64x16xf32>) -> tensor<2x8x64xf32>
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<4x8xf32>, %w: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @below {{'model.layer_norm' op weight has shape 4, expected 8}}
  %y = model.layer_norm "norm"(%x, %w, %b) : (tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_bias(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8x1xf32>) {
  // expected-error @below {{'model.layer_norm' op bias has shape 8x1, expected 8}}
  %y = model.layer_norm "norm"(%x, %w, %b) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @rms_norm_weight(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) {
  // expected-error @below {{'model.rms_norm' op weight has shape 4x8, expected 8}}
  %y = model.rms_norm "norm"(%x, %w) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dropout_p(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.dropout' op dropout probability must be in [0, 1)}}
  %y = model.dropout "drop"(%x) {p = 1.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// NaN compares false with both bounds; it is refused too.
func.func @dropout_p_nan(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.dropout' op dropout probability must be in [0, 1), got nan}}
  %y = model.dropout "drop"(%x) {p = 0x7FF8000000000000 : f64, train} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @unary_shape(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.gelu' op result has shape 8x4, expected 4x8}}
  %y = model.gelu %x : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @add_broadcast(%x: tensor<4x8xf32>, %y: tensor<4xf32>) {
  // expected-error @below {{'model.add' op shapes 4x8 and 4 do not broadcast}}
  %z = model.add %x, %y : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @mul_result(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>) {
  // expected-error @below {{'model.mul' op result has shape 1x8, expected 4x8}}
  %z = model.mul %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @below {{'model.matmul' op contracting dims differ: 4x8 x 4x8}}
  %c = model.matmul %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{'model.matmul' op matmul operands must have rank >= 2}}
  %c = model.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.softmax' op softmax dim 2 is out of range for rank 2}}
  %y = model.softmax %x {dim = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @softmax_negative_dim(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.softmax' op softmax dim -3 is out of range for rank 2}}
  %y = model.softmax %x {dim = -3 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.reshape' op cannot reshape 4x8 to 4x2x3}}
  %y = model.reshape %x : (tensor<4x8xf32>) -> tensor<4x2x3xf32>
  return
}

// -----

func.func @transpose_repeated(%x: tensor<2x4x8xf32>) {
  // expected-error @below {{'model.transpose' op permutation must name every dim once}}
  %y = model.transpose %x {permutation = array<i64: 0, 0, 2>} : (tensor<2x4x8xf32>) -> tensor<2x2x8xf32>
  return
}

// -----

func.func @transpose_length(%x: tensor<2x4x8xf32>) {
  // expected-error @below {{'model.transpose' op permutation must name every dim once}}
  %y = model.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x4x8xf32>) -> tensor<4x2x8xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x4x8xf32>) {
  // expected-error @below {{'model.transpose' op result has shape 2x4x8, expected 4x2x8}}
  %y = model.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @rotary_odd_head_dim(%x: tensor<2x8x4x5xf32>) {
  // expected-error @below {{'model.rotary' op rotary head_dim must be even}}
  %y = model.rotary %x : (tensor<2x8x4x5xf32>) -> tensor<2x8x4x5xf32>
  return
}

// -----

func.func @rotary_rank(%x: tensor<8x4x8xf32>) {
  // expected-error @below {{'model.rotary' op rotary input must be [batch, seq, heads, head_dim]}}
  %y = model.rotary %x : (tensor<8x4x8xf32>) -> tensor<8x4x8xf32>
  return
}

// -----

func.func @attention_heads(%q: tensor<2x8x4x8xf32>, %kv: tensor<2x8x3x8xf32>) {
  // expected-error @below {{'model.attention' op query heads (4) must be a multiple of kv heads (3)}}
  %y = model.attention %q, %kv, %kv : (tensor<2x8x4x8xf32>, tensor<2x8x3x8xf32>, tensor<2x8x3x8xf32>) -> tensor<2x8x4x8xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<2x8x4x8xf32>, %kv: tensor<2x8x4x16xf32>) {
  // expected-error @below {{'model.attention' op query 2x8x4x8 and key 2x8x4x16 disagree on batch, seq or head_dim}}
  %y = model.attention %q, %kv, %kv : (tensor<2x8x4x8xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>) -> tensor<2x8x4x8xf32>
  return
}

// -----

func.func @attention_value(%q: tensor<2x8x4x8xf32>, %k: tensor<2x8x4x8xf32>, %v: tensor<2x8x2x8xf32>) {
  // expected-error @below {{'model.attention' op value has shape 2x8x2x8, expected 2x8x4x8}}
  %y = model.attention %q, %k, %v : (tensor<2x8x4x8xf32>, tensor<2x8x4x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  return
}

// -----

func.func @arange_float() {
  // expected-error @below {{'model.arange' op arange produces a 1-D integer tensor}}
  %p = model.arange : tensor<8xf32>
  return
}

// -----

func.func @cross_entropy_targets(%l: tensor<16x32xf32>, %t: tensor<8xi64>) {
  // expected-error @below {{'model.cross_entropy' op cross_entropy takes logits [N, C] and targets [N]}}
  %loss = model.cross_entropy %l, %t : (tensor<16x32xf32>, tensor<8xi64>) -> tensor<f32>
  return
}

// -----

func.func @param_name() {
  // expected-error @below {{'model.param' op parameter name must not be empty}}
  %w = model.param "" : tensor<8xf32>
  return
}

// -----

func.func @module_input_count(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  // expected-error @below {{'model.module' op module 'layers.0' has 2 inputs but its body takes 1 arguments}}
  %r = model.module "layers.0"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    model.yield %a : tensor<4x8xf32>
  }
  return
}

// -----

func.func @module_input_type(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.module' op input 0 of module 'layers.0' has type 'tensor<4x8xf32>' but the body argument has 'tensor<8x4xf32>'}}
  %r = model.module "layers.0"(%x) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    model.yield %a : tensor<8x4xf32>
  }
  return
}

// -----

func.func @module_yield_types(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.module' op module 'layers.0' yields types that differ from its results}}
  %r = model.module "layers.0"(%x) : (tensor<4x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    model.yield %a : tensor<4x8xf32>
  }
  return
}

// -----

func.func @module_arg_names(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.module' op module 'layers.0' has 1 inputs but 2 arg_names}}
  %r = model.module "layers.0"(%x) {arg_names = ["x", "mask"]} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    model.yield %a : tensor<4x8xf32>
  }
  return
}

// -----

func.func @yield_outside_module(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.yield' op expects parent op 'model.module'}}
  model.yield %x : tensor<4x8xf32>
}

// -----

func.func @module_children_not_a_child(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.module' op module 'ffn' lists child 'w3', which is not a direct child module}}
  %r = model.module "ffn"(%x) {children = ["w1", "w3"]} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %w = model.param "ffn.w1.weight" : tensor<8x8xf32>
    %h = model.linear "ffn.w1"(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    model.yield %h : tensor<4x8xf32>
  }
  return
}

// -----

func.func @module_children_twice(%x: tensor<4x8xf32>) {
  // expected-error @below {{'model.module' op module 'ffn' lists child 'w1' twice}}
  %r = model.module "ffn"(%x) {children = ["w1", "w1"]} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %w = model.param "ffn.w1.weight" : tensor<8x8xf32>
    %h = model.linear "ffn.w1"(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    model.yield %h : tensor<4x8xf32>
  }
  return
}

// -----

func.func @integer_param() {
  // expected-error @below {{'model.param' op parameter 'w' must have a float element type, got 'i32'}}
  %w = model.param "w" : tensor<4xi32>
  return
}

// -----

func.func @dropout_grad_p(%g: tensor<4x8xf32>) {
  // expected-error @below {{'model.dropout_grad' op dropout probability must be in [0, 1)}}
  %0 = model.dropout_grad "drop"(%g) {p = 1.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dropout_grad_p_nan(%g: tensor<4x8xf32>) {
  // expected-error @below {{'model.dropout_grad' op dropout probability must be in [0, 1), got nan}}
  %0 = model.dropout_grad "drop"(%g) {p = 0x7FF8000000000000 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dropout_grad_result(%g: tensor<4x8xf32>) {
  // expected-error @below {{'model.dropout_grad' op result has shape 4x4, expected 4x8}}
  %0 = model.dropout_grad "drop"(%g) {p = 0.1 : f64} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @linear_grad_input_features(%g: tensor<4x12xf32>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'model.linear_grad_input' op gradient of 'fc' has shape 4x12 but the weight has 16 output features}}
  %0 = model.linear_grad_input "fc"(%g, %w) : (tensor<4x12xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @linear_grad_input_result(%g: tensor<4x16xf32>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'model.linear_grad_input' op result has shape 4x16, expected 4x8}}
  %0 = model.linear_grad_input "fc"(%g, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_grad_weight_rows(%g: tensor<4x16xf32>, %x: tensor<3x8xf32>) {
  // expected-error @below {{'model.linear_grad_weight' op gradient 4x16 and input 3x8 of 'fc' differ in their leading dims}}
  %0 = model.linear_grad_weight "fc"(%g, %x) : (tensor<4x16xf32>, tensor<3x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @linear_grad_weight_rank(%g: tensor<2x4x16xf32>, %x: tensor<8x8xf32>) {
  // expected-error @below {{'model.linear_grad_weight' op gradient 2x4x16 and input 8x8 of 'fc' must have the same rank (at least 1)}}
  %0 = model.linear_grad_weight "fc"(%g, %x) : (tensor<2x4x16xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @linear_grad_weight_result(%g: tensor<4x16xf32>, %x: tensor<4x8xf32>) {
  // expected-error @below {{'model.linear_grad_weight' op result has shape 8x16, expected 16x8}}
  %0 = model.linear_grad_weight "fc"(%g, %x) : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @sum_to_larger(%g: tensor<16xf32>) {
  // expected-error @below {{'model.sum_to' op cannot sum 16 to the larger 4x16}}
  %0 = model.sum_to %g : (tensor<16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @sum_to_mismatch(%g: tensor<4x16xf32>) {
  // expected-error @below {{'model.sum_to' op cannot sum 4x16 to 8: dim 0 is neither 1 nor 16}}
  %0 = model.sum_to %g : (tensor<4x16xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @relu_grad_shapes(%g: tensor<4x16xf32>, %x: tensor<4x8xf32>) {
  // expected-error @below {{'model.relu_grad' op gradient has shape 4x16, expected 4x8}}
  %0 = model.relu_grad %g, %x : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @mean_grad_not_scalar(%g: tensor<4xf32>) {
  // expected-error @below {{'model.mean_grad' op gradient has shape 4, expected }}
  %0 = model.mean_grad %g : (tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @full_integer() {
  // expected-error @below {{'model.full' op fills floats, not 'i64'}}
  %0 = model.full 1.0 : tensor<4xi64>
  return
}

// -----

func.func @norm_grad_gradient(%g: tensor<2x8xf32>, %x: tensor<2x4x8xf32>, %w: tensor<8xf32>) {
  // expected-error @below {{'model.layer_norm_grad_input' op gradient has shape 2x8, expected 2x4x8}}
  %0 = model.layer_norm_grad_input "ln"(%g, %x, %w) : (tensor<2x8xf32>, tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @norm_grad_weight_operand(%g: tensor<2x4x8xf32>, %w: tensor<4xf32>) {
  // expected-error @below {{'model.rms_norm_grad_input' op weight has shape 4, expected 8}}
  %0 = model.rms_norm_grad_input "rn"(%g, %g, %w) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @norm_grad_input_rank(%g: tensor<f32>, %w: tensor<4xf32>) {
  // expected-error @below {{'model.rms_norm_grad_input' op input of 'rn' must have rank at least 1}}
  %0 = model.rms_norm_grad_input "rn"(%g, %g, %w) : (tensor<f32>, tensor<f32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @norm_grad_input_result(%g: tensor<2x4x8xf32>, %w: tensor<8xf32>) {
  // expected-error @below {{'model.layer_norm_grad_input' op result has shape 2x8, expected 2x4x8}}
  %0 = model.layer_norm_grad_input "ln"(%g, %g, %w) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @norm_grad_weight_result(%g: tensor<2x4x8xf32>) {
  // expected-error @below {{'model.layer_norm_grad_weight' op result has shape 4, expected 8}}
  %0 = model.layer_norm_grad_weight "ln"(%g, %g) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @rms_norm_grad_weight_gradient(%g: tensor<2x4x4xf32>, %x: tensor<2x4x8xf32>) {
  // expected-error @below {{'model.rms_norm_grad_weight' op gradient has shape 2x4x4, expected 2x4x8}}
  %0 = model.rms_norm_grad_weight "rn"(%g, %x) : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @embedding_grad_weight_rank(%g: tensor<2x8xf32>, %ids: tensor<2xi64>, %w: tensor<16xf32>) {
  // expected-error @below {{'model.embedding_grad' op weight of 'tok' must be [num_embeddings, embedding_dim], got 16}}
  %0 = model.embedding_grad "tok"(%g, %ids, %w) : (tensor<2x8xf32>, tensor<2xi64>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @embedding_grad_float_ids(%g: tensor<2x8xf32>, %ids: tensor<2xf32>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'model.embedding_grad' op ids of 'tok' must be integers}}
  %0 = model.embedding_grad "tok"(%g, %ids, %w) : (tensor<2x8xf32>, tensor<2xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @embedding_grad_gradient(%g: tensor<2x4xf32>, %ids: tensor<2xi64>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'model.embedding_grad' op gradient has shape 2x4, expected 2x8}}
  %0 = model.embedding_grad "tok"(%g, %ids, %w) : (tensor<2x4xf32>, tensor<2xi64>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @embedding_grad_result(%g: tensor<2x8xf32>, %ids: tensor<2xi64>, %w: tensor<16x8xf32>) {
  // expected-error @below {{'model.embedding_grad' op result has shape 8x8, expected 16x8}}
  %0 = model.embedding_grad "tok"(%g, %ids, %w) : (tensor<2x8xf32>, tensor<2xi64>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @softmax_grad_dim(%g: tensor<4x8xf32>) {
  // expected-error @below {{'model.softmax_grad' op dim 2 is out of range for rank 2}}
  %0 = model.softmax_grad %g, %g {dim = 2 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @softmax_grad_gradient(%g: tensor<4x4xf32>, %y: tensor<4x8xf32>) {
  // expected-error @below {{'model.softmax_grad' op gradient has shape 4x4, expected 4x8}}
  %0 = model.softmax_grad %g, %y {dim = 1 : i64} : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @softmax_grad_result(%g: tensor<4x8xf32>) {
  // expected-error @below {{'model.softmax_grad' op result has shape 8x4, expected 4x8}}
  %0 = model.softmax_grad %g, %g {dim = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @rotary_grad_rank(%g: tensor<4x8xf32>) {
  // expected-error @below {{'model.rotary_grad' op gradient must be [batch, seq, heads, head_dim]}}
  %0 = model.rotary_grad %g : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @rotary_grad_odd(%g: tensor<1x2x2x3xf32>) {
  // expected-error @below {{'model.rotary_grad' op rotary head_dim must be even}}
  %0 = model.rotary_grad %g : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  return
}

// -----

func.func @rotary_grad_result(%g: tensor<1x2x2x4xf32>) {
  // expected-error @below {{'model.rotary_grad' op result has shape 1x2x4x2, expected 1x2x2x4}}
  %0 = model.rotary_grad %g : (tensor<1x2x2x4xf32>) -> tensor<1x2x4x2xf32>
  return
}

// -----

func.func @attention_grad_heads(%q: tensor<2x4x3x2xf32>, %kv: tensor<2x4x2x2xf32>) {
  // expected-error @below {{'model.attention_grad_q' op query heads (3) must be a multiple of kv heads (2)}}
  %0 = model.attention_grad_q %q, %q, %kv, %kv : (tensor<2x4x3x2xf32>, tensor<2x4x3x2xf32>, tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<2x4x3x2xf32>
  return
}

// -----

func.func @attention_grad_gradient(%g: tensor<2x4x2x2xf32>, %q: tensor<2x4x4x2xf32>, %kv: tensor<2x4x2x2xf32>) {
  // expected-error @below {{'model.attention_grad_v' op gradient has shape 2x4x2x2, expected 2x4x4x2}}
  %0 = model.attention_grad_v %g, %q, %kv, %kv : (tensor<2x4x2x2xf32>, tensor<2x4x4x2xf32>, tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<2x4x2x2xf32>
  return
}

// -----

func.func @attention_grad_result(%q: tensor<2x4x4x2xf32>, %kv: tensor<2x4x2x2xf32>) {
  // expected-error @below {{'model.attention_grad_k' op result has shape 2x4x4x2, expected 2x4x2x2}}
  %0 = model.attention_grad_k %q, %q, %kv, %kv : (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>, tensor<2x4x2x2xf32>, tensor<2x4x2x2xf32>) -> tensor<2x4x4x2xf32>
  return
}

// -----

func.func @reduce_grad_dim(%g: tensor<4x1xf32>, %x: tensor<4x6xf32>) {
  // expected-error @below {{'model.reduce_sum_grad' op dim 2 is out of range for rank 2}}
  %0 = model.reduce_sum_grad %g, %x {dim = 2 : i64} : (tensor<4x1xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @reduce_grad_gradient(%g: tensor<1x6xf32>, %x: tensor<4x6xf32>) {
  // expected-error @below {{'model.reduce_max_grad' op gradient has shape 1x6, expected 4x1}}
  %0 = model.reduce_max_grad %g, %x {dim = 1 : i64} : (tensor<1x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @reduce_grad_result(%g: tensor<4x1xf32>, %x: tensor<4x6xf32>) {
  // expected-error @below {{'model.reduce_sum_grad' op result has shape 4x1, expected 4x6}}
  %0 = model.reduce_sum_grad %g, %x {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x6xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @cross_entropy_grad_gradient(%g: tensor<4xf32>, %l: tensor<4x6xf32>, %t: tensor<4xi64>) {
  // expected-error @below {{'model.cross_entropy_grad' op gradient has shape 4, expected }}
  %0 = model.cross_entropy_grad %g, %l, %t : (tensor<4xf32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  return
}

// -----

func.func @cross_entropy_grad_targets(%g: tensor<f32>, %l: tensor<4x6xf32>, %t: tensor<3xi64>) {
  // expected-error @below {{'model.cross_entropy_grad' op takes logits [N, C] and targets [N]}}
  %0 = model.cross_entropy_grad %g, %l, %t : (tensor<f32>, tensor<4x6xf32>, tensor<3xi64>) -> tensor<4x6xf32>
  return
}

// -----

func.func @cross_entropy_valid_shape(%l: tensor<4x6xf32>, %t: tensor<4xi64>, %v: tensor<1xf32>) {
  // expected-error @below {{'model.cross_entropy' op valid (the rows not ignored) must be a rank-0 f32 tensor}}
  %0 = model.cross_entropy %l, %t, %v : (tensor<4x6xf32>, tensor<4xi64>, tensor<1xf32>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_two_divisors(%l: tensor<4x6xf32>, %t: tensor<4xi64>, %v: tensor<f32>) {
  // expected-error @below {{'model.cross_entropy' op takes one divisor: `count` or `valid`, not both}}
  %0 = model.cross_entropy %l, %t, %v {count = 8 : i64} : (tensor<4x6xf32>, tensor<4xi64>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_grad_valid_dtype(%g: tensor<f32>, %l: tensor<4x6xf32>, %t: tensor<4xi64>, %v: tensor<i64>) {
  // expected-error @below {{'model.cross_entropy_grad' op valid (the rows not ignored) must be a rank-0 f32 tensor}}
  %0 = model.cross_entropy_grad %g, %l, %t, %v : (tensor<f32>, tensor<4x6xf32>, tensor<4xi64>, tensor<i64>) -> tensor<4x6xf32>
  return
}

// -----

func.func @valid_rows_float_targets(%t: tensor<4xf32>) {
  // expected-error @below {{'model.valid_rows' op takes integer targets [N]}}
  %0 = model.valid_rows %t : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @valid_rows_result(%t: tensor<4xi64>) {
  // expected-error @below {{'model.valid_rows' op result has shape 1, expected }}
  %0 = model.valid_rows %t : (tensor<4xi64>) -> tensor<1xf32>
  return
}

// -----

func.func @cross_entropy_grad_float_targets(%g: tensor<f32>, %l: tensor<4x6xf32>, %t: tensor<4xf32>) {
  // expected-error @below {{'model.cross_entropy_grad' op targets must be integers}}
  %0 = model.cross_entropy_grad %g, %l, %t : (tensor<f32>, tensor<4x6xf32>, tensor<4xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @cross_entropy_grad_result(%g: tensor<f32>, %l: tensor<4x6xf32>, %t: tensor<4xi64>) {
  // expected-error @below {{'model.cross_entropy_grad' op result has shape 4x1, expected 4x6}}
  %0 = model.cross_entropy_grad %g, %l, %t : (tensor<f32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  return
}

// -----

func.func @target_logit_grad_gradient(%g: tensor<4x6xf32>, %l: tensor<4x6xf32>, %t: tensor<4xi64>) {
  // expected-error @below {{'model.target_logit_grad' op gradient has shape 4x6, expected 4x1}}
  %0 = model.target_logit_grad %g, %l, %t : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  return
}

// -----

func.func @log_grad_shapes(%g: tensor<4x2xf32>, %x: tensor<4x1xf32>) {
  // expected-error @below {{'model.log_grad' op gradient has shape 4x2, expected 4x1}}
  %0 = model.log_grad %g, %x : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @detach_result(%x: tensor<4x1xf32>) {
  // expected-error @below {{'model.detach' op result has shape 4, expected 4x1}}
  %0 = model.detach %x : (tensor<4x1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sum_squares_result(%x: tensor<4x1xf32>) {
  // expected-error @below {{'model.sum_squares' op result must be f32}}
  %0 = model.sum_squares %x : tensor<4x1xf32> -> tensor<f16>
  return
}

// -----

func.func @sum_squares_ints(%x: tensor<4xi64>) {
  // expected-error @below {{'model.sum_squares' op operand 0 is not a float tensor}}
  %0 = model.sum_squares %x : tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @clip_max_norm(%x: tensor<f32>) {
  // expected-error @below {{'model.clip_coefficient' op max_norm must be positive and finite, got 0}}
  %0 = model.clip_coefficient %x {max_norm = 0.0 : f64} : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @mean_count(%x: tensor<4xf32>) {
  // expected-error @below {{'model.mean' op count must be positive, not 0}}
  %0 = model.mean %x {count = 0 : i64} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @math_on_integers(%x: tensor<4xi64>) {
  // expected-error @below {{'model.tanh' op computes on float tensors, not 'i64'}}
  %y = model.tanh %x : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @math_changes_dtype(%x: tensor<4xbf16>) {
  // expected-error @below {{'model.sqrt' op operand of element type 'bf16' does not match the result's 'f32'}}
  %y = model.sqrt %x : (tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @div_shapes(%x: tensor<4x8xf32>, %y: tensor<3xf32>) {
  // expected-error @below {{'model.div' op shapes 4x8 and 3 do not broadcast}}
  %z = model.div %x, %y : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @pow_exponent(%x: tensor<4xf32>) {
  // expected-error @below {{'model.pow' op requires attribute 'exponent'}}
  %y = model.pow %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @slice_past_the_end(%x: tensor<2x8xf32>) {
  // expected-error @below {{'model.slice' op 3 elements from 2 by 3 do not fit in dim 1 of size 8}}
  %a = model.slice %x {dim = 1 : i64, start = 2 : i64, step = 3 : i64} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_other_dims(%x: tensor<2x8xf32>) {
  // expected-error @below {{'model.slice' op result has shape 1x2, expected 2x2}}
  %a = model.slice %x {dim = 1 : i64, start = 0 : i64} : (tensor<2x8xf32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<2x8xf32>) {
  // expected-error @below {{'model.slice' op needs start >= 0 and step >= 1, got start 0 and step 0}}
  %a = model.slice %x {dim = 1 : i64, start = 0 : i64, step = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_dim(%x: tensor<2x8xf32>) {
  // expected-error @below {{'model.slice' op dim 2 is out of range for rank 2}}
  %a = model.slice %x {dim = 2 : i64, start = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @concat_shapes(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @below {{'model.concat' op operand #1 has shape 3x3, expected 2x3}}
  %c = model.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_total(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @below {{'model.concat' op result has 7 elements in dim 1, the operands 6}}
  %c = model.concat %a, %b {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
  return
}

// -----

func.func @constant_bool() {
  // expected-error @below {{'model.constant' op holds f32, bf16, f16, i64, i32 or i1 elements, not 'i8'}}
  %a = model.constant dense<[1, 0]> : tensor<2xi8>
  return
}

// -----

func.func @cast_to_int(%x: tensor<4xf32>) {
  // expected-error @below {{'model.cast' op casts to f32, bf16, f16 or i1, not 'i64'}}
  %a = model.cast %x : (tensor<4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xi64>) {
  // expected-error @below {{'model.cast' op result has shape 2, expected 4}}
  %a = model.cast %x : (tensor<4xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @topk_too_many(%x: tensor<4x3xf32>) {
  // expected-error @below {{'model.topk' op cannot pick 4 of 3 elements along dim 1}}
  %i = model.topk %x {dim = 1 : i64} : (tensor<4x3xf32>) -> tensor<4x4xi64>
  return
}

// -----

func.func @topk_float_result(%x: tensor<4x3xf32>) {
  // expected-error @below {{'model.topk' op result must be an i64 or i32 tensor, not 'f32'}}
  %i = model.topk %x {dim = -1 : i64} : (tensor<4x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @topk_other_dims(%x: tensor<4x3xf32>) {
  // expected-error @below {{'model.topk' op result has shape 2x2, expected 4x2}}
  %i = model.topk %x {dim = 1 : i64} : (tensor<4x3xf32>) -> tensor<2x2xi64>
  return
}

// -----

func.func @gather_index_shape(%x: tensor<4x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error @below {{'model.gather' op index has shape 2x2, expected 4x2}}
  %v = model.gather %x, %i {dim = 1 : i64} : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

// -----

func.func @gather_float_index(%x: tensor<4x3xf32>, %i: tensor<4x2xf32>) {
  // expected-error @below {{'model.gather' op index must be an i64 or i32 tensor, not 'f32'}}
  %v = model.gather %x, %i {dim = 1 : i64} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_dim(%x: tensor<4x3xf32>, %i: tensor<4x2xi64>) {
  // expected-error @below {{'model.gather' op dim 2 is out of range for rank 2}}
  %v = model.gather %x, %i {dim = 2 : i64} : (tensor<4x3xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_grad_type(%g: tensor<4x2xf32>, %i: tensor<4x2xi64>) {
  // expected-error @below {{'model.gather_grad' op grad and result must be float tensors of one type}}
  %v = model.gather_grad %g, %i {dim = 1 : i64} : (tensor<4x2xf32>, tensor<4x2xi64>) -> tensor<4x3xbf16>
  return
}

// -----

func.func @one_hot_rank(%i: tensor<4x2xi64>) {
  // expected-error @below {{'model.one_hot' op result must have one more dim than the ids (3), got 2}}
  %m = model.one_hot %i : (tensor<4x2xi64>) -> tensor<4x2xi64>
  return
}

// -----

func.func @one_hot_float_ids(%i: tensor<4xf32>) {
  // expected-error @below {{'model.one_hot' op ids must be an i64 or i32 tensor, not 'f32'}}
  %m = model.one_hot %i : (tensor<4xf32>) -> tensor<4x3xi64>
  return
}

// -----

func.func @compare_predicate(%x: tensor<4xf32>) {
  // expected-error @below {{'model.compare' op predicate must be eq, ne, lt, le, gt or ge, not 'lte'}}
  %m = model.compare %x, %x {predicate = "lte"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result(%x: tensor<4xf32>) {
  // expected-error @below {{'model.compare' op result must be an i1 tensor, not 'f32'}}
  %m = model.compare %x, %x {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_broadcast(%x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error @below {{'model.compare' op operand shapes do not broadcast: 4 and 3}}
  %m = model.compare %x, %y {predicate = "lt"} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @logical_float(%x: tensor<4xf32>) {
  // expected-error @below {{'model.logical_not' op operand must be an i1 tensor, not 'f32'}}
  %m = model.logical_not %x : (tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @where_condition(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @below {{'model.where' op condition must be an i1 tensor, not 'f32'}}
  %r = model.where %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xbf16>) {
  // expected-error @below {{'model.where' op operand of element type 'bf16' does not match the result's 'f32'}}
  %r = model.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @where_shape(%c: tensor<4xi1>, %x: tensor<4xf32>) {
  // expected-error @below {{'model.where' op result has shape 2x4, expected 4}}
  %r = model.where %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @expand_shape(%x: tensor<2x3xf32>) {
  // expected-error @below {{'model.expand' op cannot broadcast 2x3 to 2x4}}
  %e = model.expand %x : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Hand-written formats check the inherent attributes of their attr-dict
// as ODS's do.
func.func @param_frozen_attr() -> tensor<2xf32> {
  // expected-error @below {{'model.param' op attribute 'frozen' failed to satisfy constraint: unit attribute}}
  %p = model.param "w" {frozen = 1 : i64} : tensor<2xf32>
  return %p : tensor<2xf32>
}

// -----

func.func @linear_operand_count(%x: tensor<2x4xf32>) {
  // expected-error @below {{number of operands and types do not match: got 2 operands and 1 types}}
  %y = model.linear "l"(%x, %x) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}
