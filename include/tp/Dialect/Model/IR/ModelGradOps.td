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
class Model_LeafGradOp<string mnemonic>
    : Model_Op<mnemonic, [Pure, Model_HasShardingRule, Model_Kernel]> {
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

def Model_LogGradOp : Model_ActivationGradOp<"log_grad",
    "Gradient of the natural logarithm: `grad / input`">;

//===----------------------------------------------------------------------===//
// Norms: one op per gradient (tp-propagate places single-result ops), each
// recomputing the row statistics from the input. A bias gradient is
// `model.sum_to`.
//===----------------------------------------------------------------------===//

class Model_NormGradInputOp<string mnemonic, string desc>
    : Model_LeafGradOp<mnemonic> {
  let summary = desc;
  let description = [{
    `grad` and `input` have the norm's input shape `[..., D]`, `weight` is
    the norm's `[D]` weight; the result is the gradient of the input. The
    statistics of every row (over the last dim) are recomputed from `input`.
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$grad,
                       Model_TensorLike:$input, Model_TensorLike:$weight,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Model_TensorLike:$result);
}

class Model_NormGradWeightOp<string mnemonic, string desc>
    : Model_LeafGradOp<mnemonic> {
  let summary = desc;
  let description = [{
    `grad` and `input` have the norm's input shape `[..., D]`; the result
    `[D]` sums `grad * normalized input` over every row (batch, sequence),
    so rows split over ranks give a partial sum.
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$grad,
                       Model_TensorLike:$input,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Model_TensorLike:$result);
}

def Model_LayerNormGradInputOp : Model_NormGradInputOp<"layer_norm_grad_input",
    "Gradient of nn.LayerNorm's input">;
def Model_LayerNormGradWeightOp
    : Model_NormGradWeightOp<"layer_norm_grad_weight",
    "Gradient of nn.LayerNorm's weight: rows of `grad * xhat` summed">;
def Model_RMSNormGradInputOp : Model_NormGradInputOp<"rms_norm_grad_input",
    "Gradient of RMSNorm's input">;
def Model_RMSNormGradWeightOp : Model_NormGradWeightOp<"rms_norm_grad_weight",
    "Gradient of RMSNorm's weight: rows of `grad * x * rsqrt(mean(x^2) + eps)` summed">;

def Model_EmbeddingGradOp : Model_LeafGradOp<"embedding_grad"> {
  let summary = "Gradient of nn.Embedding's table: a scatter-add of `grad` rows";
  let description = [{
    `grad` is `[..., D]` (the lookup's result), `ids` the looked-up ids
    `[...]`; row `v` of the result sums the rows of `grad` whose id is `v`.
    `weight` is the table itself: only its shape and placement are read, so
    that the gradient is laid out as the table (a vocabulary-sharded table
    gets each rank's rows, `tp.sharded_embedding_grad` after
    tp-partition).

    ```mlir
    %gw = model.embedding_grad "tok"(%g, %ids, %w) : (tensor<2x8x16xf32>, tensor<2x8xi64>, tensor<32x16xf32>) -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$grad,
                       Model_TensorLike:$ids, Model_TensorLike:$weight);
  let results = (outs Model_TensorLike:$result);
}

def Model_DropoutGradOp : Model_LeafGradOp<"dropout_grad"> {
  let summary = "Gradient of a dropout in training: `grad` times its mask";
  let description = [{
    `grad` is the gradient of a `model.dropout` with `train` of the same
    FQN and `p`; the result is `grad * keep / (1 - p)` with the forward's
    mask, drawn again from its key (seed, step, FQN, global index):
    nothing is kept from the forward.

    ```mlir
    %gx = model.dropout_grad "drop"(%g) {p = 1.000000e-01 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$grad, F64Attr:$p);
  let results = (outs Model_TensorLike:$result);
}

//===----------------------------------------------------------------------===//
// Transformer ops
//===----------------------------------------------------------------------===//

def Model_SliceGradOp : Model_FnOp<"slice_grad"> {
  let summary = "Gradient of model.slice: `grad` placed back, zeros elsewhere";
  let description = [{
    The result has the sliced input's shape: element `start + i * step` of
    `dim` is `grad`'s element `i`, every other element is 0.
  }];
  let arguments = (ins Model_TensorLike:$grad, I64Attr:$dim, I64Attr:$start,
                       DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Model_TensorLike:$result);
}

def Model_GatherGradOp : Model_FnOp<"gather_grad", [Model_Differentiable]> {
  let summary = "Gradient of model.gather: `grad` added back where it was picked";
  let description = [{
    The result has the gathered input's shape (its type): every element of
    `grad` is added at the position along `dim` its `index` names
    (`torch.zeros(...).scatter_add_(dim, index, grad)`); positions picked
    twice receive both, positions never picked are 0. tp-import also writes
    `scatter_add` and `index_add` with it, so it is differentiable: its
    gradient is `model.gather` of the result's gradient at `index`.
  }];
  let arguments = (ins Model_TensorLike:$grad, Model_TensorLike:$index,
                       I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

def Model_SoftmaxGradOp : Model_FnOp<"softmax_grad"> {
  let summary = "Gradient of softmax: `y * (grad - sum(grad * y, dim))`";
  let description = [{
    `grad` is the gradient of the softmax's result `y` (same shape); the
    result is the gradient of its input.
  }];
  let arguments = (ins Model_TensorLike:$grad, Model_TensorLike:$output,
                       I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

def Model_RotaryGradOp : Model_FnOp<"rotary_grad"> {
  let summary = "Gradient of rotary: every pair turned back by its angle";
  let description = [{
    `grad` is `[batch, seq, heads, head_dim]`, the gradient of a
    `model.rotary` result; the rotation is orthogonal, so the gradient of
    its input is the inverse rotation of `grad`.
  }];
  let arguments = (ins Model_TensorLike:$grad,
                       DefaultValuedAttr<F64Attr, "10000.0">:$theta);
  let results = (outs Model_TensorLike:$result);
}

class Model_AttentionGradOp<string mnemonic, string which>
    : Model_FnOp<mnemonic> {
  let summary = "Gradient of attention's " # which;
  let description = [{
    `grad` is the gradient of the attention's result `[batch, seq, heads,
    head_dim]`, `q`, `k`, `v` its operands. The probabilities are
    recomputed from `q` and `k` by each of the three gradient ops (one per
    operand, so each is placed on its own): three times the backward's
    cost, for now. Under grouped-query attention a kv head's gradient sums
    over the query heads that share it.
  }];
  let arguments = (ins Model_TensorLike:$grad, Model_TensorLike:$q,
                       Model_TensorLike:$k, Model_TensorLike:$v,
                       DefaultValuedAttr<BoolAttr, "true">:$causal);
  let results = (outs Model_TensorLike:$result);
}

def Model_AttentionGradQOp : Model_AttentionGradOp<"attention_grad_q", "query">;
def Model_AttentionGradKOp : Model_AttentionGradOp<"attention_grad_k", "key">;
def Model_AttentionGradVOp : Model_AttentionGradOp<"attention_grad_v", "value">;

//===----------------------------------------------------------------------===//
// Reductions and losses
//===----------------------------------------------------------------------===//

class Model_ReduceGradOp<string mnemonic, string desc> : Model_FnOp<mnemonic> {
  let summary = desc;
  let description = [{
    `grad` is the gradient of a keepdim reduction along `dim` (the input's
    shape with 1 at `dim`), `input` the reduction's input; the result has
    the input's shape (and is laid out as the input).
  }];
  let arguments = (ins Model_TensorLike:$grad, Model_TensorLike:$input,
                       I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

def Model_ReduceSumGradOp : Model_ReduceGradOp<"reduce_sum_grad",
    "Gradient of reduce_sum: `grad` repeated along `dim`">;
def Model_ReduceMaxGradOp : Model_ReduceGradOp<"reduce_max_grad",
    "Gradient of reduce_max: `grad` split among the maxima (torch.amax)">;

def Model_CrossEntropyGradOp : Model_FnOp<"cross_entropy_grad"> {
  let summary = "Gradient of cross entropy's logits: `(softmax - onehot) * grad / N`";
  let description = [{
    `grad` is the rank-0 gradient of the loss, `logits` `[N, C]` and
    `targets` `[N]` the loss's operands; the result is `[N, C]`. `count` or
    `valid`, as the loss's, replaces the number of rows not ignored where
    the rows are a shard (set by tp-partition).
  }];
  let arguments = (ins Model_TensorLike:$grad, Model_TensorLike:$logits,
                       Model_TensorLike:$targets,
                       Optional<Model_TensorLike>:$valid,
                       OptionalAttr<I64Attr>:$count);
  let results = (outs Model_TensorLike:$result);
}

def Model_TargetLogitGradOp : Model_FnOp<"target_logit_grad"> {
  let summary = "Gradient of target_logit: `grad[i]` at `(i, t_i)`, else 0";
  let description = [{
    `grad` is `[N, 1]`, `logits` `[N, C]` (only its shape and placement are
    read: on class-sharded logits each rank writes its classes,
    `tp.sharded_target_logit_grad` after tp-partition) and `targets` `[N]`;
    the result is `[N, C]`.
  }];
  let arguments = (ins Model_TensorLike:$grad, Model_TensorLike:$logits,
                       Model_TensorLike:$targets);
  let results = (outs Model_TensorLike:$result);
}

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

def Model_FullOp : Model_Op<"full", [Pure, Model_Kernel]> {
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
    [MemoryEffects<[MemRead, MemWrite]>, Model_HasShardingRule,
     Model_Kernel]> {
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

def Model_SumSquaresOp
    : Model_Op<"sum_squares", [Pure, Model_HasShardingRule, Model_Kernel]> {
  let summary = "Sum of the squares of every element of every operand";
  let description = [{
    The squared global norm of the gradients, for clipping
    (torch.nn.utils.clip_grad_norm_ with the 2-norm): a rank-0 f32 tensor.
    On a mesh, operands sharded over an axis give a partial sum there; a
    replicated operand is counted once (tp-partition makes it a
    `tp.partial_from_replicate` where the result is partial).

    ```mlir
    %sq = model.sum_squares %gw, %gb : tensor<4x8xf32>, tensor<4xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<Model_TensorLike>:$inputs);
  let results = (outs Model_TensorLike:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Model_ClipCoefficientOp
    : Model_Op<"clip_coefficient",
               [Pure, Model_HasShardingRule, Model_Kernel]> {
  let summary = "The factor clip_grad_norm_ scales every gradient by";
  let description = [{
    `min(1, max_norm / (sqrt(sum_squares) + 1e-6))`, PyTorch's
    clip_grad_norm_ (an infinite norm gives 0, a NaN norm NaN, as PyTorch
    with `error_if_nonfinite=False`). The operand and the result are
    rank-0 f32 tensors.
  }];
  let arguments = (ins Model_TensorLike:$sum_squares, F64Attr:$max_norm);
  let results = (outs Model_TensorLike:$result);
  let assemblyFormat = [{
    $sum_squares attr-dict `:` type($sum_squares) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TP_DIALECT_MODEL_IR_MODELGRADOPS_TD
