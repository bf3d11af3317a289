// RUN: tp-opt %s -split-input-file -tp-differentiate -verify-diagnostics | FileCheck %s

// tp-differentiate: a model ending in a scalar loss returns the loss and the
// gradient of every parameter, in the order the parameters are defined.

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
// CHECK-NEXT: %[[ONE:.*]] = model.full 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[GSQ:.*]] = model.mean_grad %[[ONE]] : (tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[M1:.*]] = model.mul %[[GSQ]], %[[D]]
// CHECK-NEXT: %[[M2:.*]] = model.mul %[[GSQ]], %[[D]]
// CHECK-NEXT: %[[GY:.*]] = model.add %[[M1]], %[[M2]]
// CHECK-NEXT: %[[GR:.*]] = model.linear_grad_input "net2"(%[[GY]], %[[W2]]) : (tensor<4x8xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT: %[[GW2:.*]] = model.linear_grad_weight "net2"(%[[GY]], %[[R]]) : (tensor<4x8xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: %[[GB2:.*]] = model.sum_to %[[GY]] : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[GH:.*]] = model.relu_grad %[[GR]], %[[H]]
// CHECK-NEXT: %[[GW1:.*]] = model.linear_grad_weight "net1"(%[[GH]], %[[X]])
// CHECK-NEXT: %[[GB1:.*]] = model.sum_to %[[GH]] : (tensor<4x32xf32>) -> tensor<32xf32>
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
// CHECK-NEXT: %[[SUM:.*]] = model.add %[[B]], %[[A]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
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

// expected-error @below {{tp-differentiate: @not_a_loss must return one scalar loss, but returns ('tensor<4x8xf32>')}}
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

func.func @no_rule(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = model.param "w" : tensor<8x8xf32>
  %y = model.linear "l"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-error @below {{tp-differentiate: 'model.softmax' has no backward rule yet}}
  %s = model.softmax %y {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = model.mean %s : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @below {{tp-differentiate: @twice is already a training step (tp.grad_of on result 1)}}
func.func @twice(%x: tensor<4x8xf32>) -> (tensor<f32>, tensor<8x8xf32> {tp.grad_of = "w"}) {
  %w = model.param "w" : tensor<8x8xf32>
  %l = model.mean %x : (tensor<4x8xf32>) -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<8x8xf32>
}
