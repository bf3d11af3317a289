//===- ModelGradOps.td - backward ops of the model dialect -*- tablegen -*-===//
//
// What reverse-mode differentiation (tp-differentiate) emits: for a model
// op, the ops that turn the gradient of its result into the gradients of
// its operands. They are ordinary model ops with sharding rules, so the
// backward program is placed, redistributed, partitioned and executed like
// the forward one. Every backward op is linear in `grad`: a Partial(sum)
// gradient passes through them where the other operands allow, and is
// reduced once, where a consumer needs the sum.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_MODEL_IR_MODELGRADOPS_TD
#define TP_DIALECT_MODEL_IR_MODELGRADOPS_TD

// Backward ops of a leaf module carry its FQN, like the module, so that
// their collectives are reported under it.
class Model_LeafGradOp<string mnemonic> : Model_Op<mnemonic, [Pure]> {
  let assemblyFormat = [{
    $fqn `(` operands `)` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Model_LinearGradInputOp : Model_LeafGradOp<"linear_grad_input"> {
  let summary = "Gradient of nn.Linear's input: `grad @ weight`";
  let description = [{
    `grad` is the gradient of the linear's result `[..., out_features]`,
    `weight` its `[out_features, in_features]` weight; the result is the
    gradient of its input, `[..., in_features]`.

    ```mlir
    %gx = model.linear_grad_input "net1"(%g, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$grad,
                       Model_TensorLike:$weight);
  let results = (outs Model_TensorLike:$result);
}

def Model_LinearGradWeightOp : Model_LeafGradOp<"linear_grad_weight"> {
  let summary = "Gradient of nn.Linear's weight: `grad^T @ input`";
  let description = [{
    `grad` `[..., out_features]` and the linear's `input` `[...,
    in_features]`; the result `[out_features, in_features]` sums over every
    leading dim (batch, sequence).

    ```mlir
    %gw = model.linear_grad_weight "net1"(%g, %x) : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$grad,
                       Model_TensorLike:$input);
  let results = (outs Model_TensorLike:$result);
}

def Model_SumToOp : Model_FnOp<"sum_to"> {
  let summary = "Sums a broadcast gradient back to an operand's shape";
  let description = [{
    The adjoint of broadcasting (NumPy rules, dims aligned at the end): the
    result's shape is the shape the operand had, and every dim that was
    added or broadcast from 1 is summed (kept with size 1 where the operand
    had it). A bias gradient is `sum_to` of the output gradient to
    `[out_features]`.
  }];
  let arguments = (ins Model_TensorLike:$grad);
  let results = (outs Model_TensorLike:$result);
}

class Model_ActivationGradOp<string mnemonic, string desc>
    : Model_FnOp<mnemonic> {
  let summary = desc;
  let description = [{
    `grad` is the gradient of the activation's result, `input` the
    activation's input (same shape); the result is the gradient of the
    input.
  }];
  let arguments = (ins Model_TensorLike:$grad, Model_TensorLike:$input);
  let results = (outs Model_TensorLike:$result);
}

def Model_ReluGradOp : Model_ActivationGradOp<"relu_grad",
    "Gradient of ReLU: `grad` where `input > 0`, else 0">;
def Model_GeluGradOp : Model_ActivationGradOp<"gelu_grad",
    "Gradient of the erf GELU">;
def Model_SiluGradOp : Model_ActivationGradOp<"silu_grad",
    "Gradient of SiLU: `grad * s * (1 + input * (1 - s))`, `s = sigmoid(input)`">;

def Model_MeanGradOp : Model_FnOp<"mean_grad"> {
  let summary = "Gradient of `mean`: `grad / numel` in every element";
  let description = [{
    `grad` is the rank-0 gradient of a `model.mean`; the result has the
    shape of the mean's input.
  }];
  let arguments = (ins Model_TensorLike:$grad);
  let results = (outs Model_TensorLike:$result);
}

def Model_NegOp : Model_UnaryOp<"neg", "Element-wise negation">;

def Model_FullOp : Model_Op<"full", [Pure]> {
  let summary = "A tensor with every element equal to `value`";
  let description = [{
    The seed of reverse-mode differentiation is the loss's gradient, a
    rank-0 `1.0`:

    ```mlir
    %one = model.full 1.0 : tensor<f32>
    ```
  }];
  let arguments = (ins F64Attr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer updates (tp-optimizer-step)
//===----------------------------------------------------------------------===//

// An update reads the parameter and its gradient (both with the parameter's
// placement: the update is element-wise, so each rank updates its shard
// with no communication) and the optimizer state the executor keeps for the
// parameter between steps (sharded as the parameter); the result is the
// updated parameter, which the next step reads. Not Pure: the state changes.
class Model_UpdateOp<string mnemonic> : Model_Op<mnemonic,
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let assemblyFormat = [{
    $fqn `(` $param `,` $grad `)` attr-dict `:` functional-type(operands, results)
  }];
  let results = (outs Model_TensorLike:$result);
  let hasVerifier = 1;
}

def Model_SGDUpdateOp : Model_UpdateOp<"sgd_update"> {
  let summary = "torch.optim.SGD's step on one parameter";
  let description = [{
    `param - lr * d` where `d` is the gradient plus `weight_decay * param`,
    through the momentum buffer when `momentum > 0` (PyTorch's algorithm,
    the buffer starting as the first step's `d`; `nesterov` as PyTorch).
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$param,
                       Model_TensorLike:$grad, F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       DefaultValuedAttr<BoolAttr, "false">:$nesterov);
}

def Model_AdamWUpdateOp : Model_UpdateOp<"adamw_update"> {
  let summary = "torch.optim.AdamW's step on one parameter";
  let description = [{
    Decoupled weight decay (`param *= 1 - lr * weight_decay`), then Adam's
    update with bias-corrected moments `exp_avg` and `exp_avg_sq` (kept by
    the executor, zero before the first step), PyTorch's algorithm.
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$param,
                       Model_TensorLike:$grad, F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "0.01">:$weight_decay);
}

#endif // TP_DIALECT_MODEL_IR_MODELGRADOPS_TD
