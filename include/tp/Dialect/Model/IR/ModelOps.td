//===- ModelOps.td - model dialect operations --------------*- tablegen -*-===//
//
// The model dialect mirrors nn.Module: composite modules are region ops with
// fully qualified names, leaf modules carry their FQN and take their named
// parameters as operands (PyTorch layouts), and functional ops complete what
// a GPT- or Llama-style transformer needs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_MODEL_IR_MODELOPS_TD
#define TP_DIALECT_MODEL_IR_MODELOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "tp/Dialect/TP/IR/TPInterfaces.td"
include "tp/Dialect/Model/IR/ModelInterfaces.td"

def Model_Dialect : Dialect {
  let name = "model";
  let cppNamespace = "::mlir::tp::model";
  let summary = "PyTorch-style modules and the functional ops of transformers";
  let description = [{
    Values are tensors with their global (unpartitioned) shapes, or
    `!tp.dtensor` values once a plan has been applied; after `tp-partition`
    the same ops run on each rank's local tensors. Reference semantics are
    PyTorch's: `linear` is `x @ W^T + b`, `gelu` the erf form, `layer_norm`
    uses the biased variance, `rms_norm` is `x * rsqrt(mean(x^2) + eps) * w`,
    `rotary` rotates interleaved pairs as Meta's Llama does, `attention` is
    causal scaled-dot-product attention with scale `1/sqrt(head_dim)`.
  }];
}

def Model_TensorLike : Type<CPred<"::mlir::tp::isTensorLike($_self)">,
                            "tensor or distributed tensor">;

class Model_Op<string mnemonic, list<Trait> traits = []>
    : Op<Model_Dialect, mnemonic, traits>;

// What an op can do is declared on its record; the C++ next to the op
// implements it. Every op that computes from tensors has a sharding rule
// (tp-propagate), every forward op a backward rule (tp-differentiate).
defvar Model_HasShardingRule =
    DeclareOpInterfaceMethods<TP_ShardingRuleOpInterface>;
defvar Model_Differentiable =
    DeclareOpInterfaceMethods<Model_DifferentiableOpInterface>;
// Every op that computes is one runtime kernel (KernelOpInterface).
defvar Model_Kernel = Model_KernelOpInterface;

//===----------------------------------------------------------------------===//
// Parameters and structure
//===----------------------------------------------------------------------===//

def Model_ParamOp : Model_Op<"param", [Pure, Model_Differentiable]> {
  let summary = "A named model parameter (its FQN, e.g. `net1.weight`)";
  let description = [{
    Produces the full value of a parameter. Tied parameters (weight tying)
    are one `model.param` used by several modules. `frozen` (PyTorch's
    `requires_grad=False`, or a plan's `frozen` list) keeps it out of
    training: tp-differentiate gives it no gradient.

    ```mlir
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %e = model.param "tok_embeddings.weight" {frozen} : tensor<32x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$frozen);
  let results = (outs AnyRankedTensor:$result);
  // `$name attr-dict : type($result)`, parsed and printed by hand
  // (ModelOps.cpp, tp::printAttrDict): one per parameter in every program.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Model_SubmoduleOp : Model_Op<"module", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A composite module with a fully qualified name";
  let description = [{
    A composite `nn.Module` (e.g. `layers.0.attention`). Its operands are the
    module's inputs (block arguments inside), its results what
    `model.yield` returns, so `PrepareModuleInput`/`PrepareModuleOutput`
    have a boundary to act on. `arg_names` optionally names the inputs for
    keyword layouts; `kind` is the module's class name, for messages.
    `children` optionally lists the last FQN token of its direct child
    modules in definition order, as `named_children()` gives them (the seed's
    `PairwiseParallel` pairs linears in that order); without it, and for
    children it does not list, program order is used.

    ```mlir
    %y = model.module "layers.0" (%x) {kind = "TransformerBlock"} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    ^bb0(%a: tensor<2x8x16xf32>):
      ...
      model.yield %r : tensor<2x8x16xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$fqn, Variadic<Model_TensorLike>:$inputs,
                       OptionalAttr<StrAttr>:$kind,
                       OptionalAttr<StrArrayAttr>:$arg_names,
                       OptionalAttr<StrArrayAttr>:$children);
  let results = (outs Variadic<Model_TensorLike>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $fqn `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "llvm::StringRef":$fqn, "::mlir::ValueRange":$inputs,
                   "::mlir::TypeRange":$outputTypes)>
  ];
}

def Model_YieldOp : Model_Op<"yield", [Pure, Terminator, ReturnLike,
                                       HasParent<"SubmoduleOp">]> {
  let summary = "Returns a composite module's outputs";
  let arguments = (ins Variadic<Model_TensorLike>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
}

//===----------------------------------------------------------------------===//
// Leaf modules
//===----------------------------------------------------------------------===//

// A leaf module of PyTorch class `torchClass` (`Linear`).
class Model_LeafOp<string mnemonic, string torchClass, list<Trait> traits = []>
    : Model_Op<mnemonic, !listconcat(traits, [Pure, Model_HasShardingRule,
                                              Model_Differentiable,
                                              Model_LeafModuleOpInterface,
                                              Model_Kernel])> {
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kTorchClassName = "}] # torchClass # [{";
  }];
  let assemblyFormat = [{
    $fqn `(` operands `)` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Model_LinearOp : Model_LeafOp<"linear", "Linear"> {
  let summary = "nn.Linear: `x @ weight^T + bias`";
  let description = [{
    `weight` is `[out_features, in_features]` (PyTorch layout), `bias`
    `[out_features]` and optional.

    ```mlir
    %y = model.linear "net1"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$input,
                       Model_TensorLike:$weight,
                       Optional<Model_TensorLike>:$bias);
  let results = (outs Model_TensorLike:$result);
  // The leaf ops' format, parsed and printed by hand (Linear.cpp,
  // tp::printAttrDict): a program holds more linears than any other op.
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
}

def Model_EmbeddingOp : Model_LeafOp<"embedding", "Embedding"> {
  let summary = "nn.Embedding: row lookup of integer ids";
  let description = [{
    `ids` is an integer tensor `[...]`, `weight` is `[num_embeddings,
    embedding_dim]`; the result is `[..., embedding_dim]`.
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$ids,
                       Model_TensorLike:$weight);
  let results = (outs Model_TensorLike:$result);
}

def Model_LayerNormOp : Model_LeafOp<"layer_norm", "LayerNorm"> {
  let summary = "nn.LayerNorm over the last dim (biased variance)";
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$input,
                       Model_TensorLike:$weight, Model_TensorLike:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Model_TensorLike:$result);
}

def Model_RMSNormOp : Model_LeafOp<"rms_norm", "RMSNorm"> {
  let summary = "RMSNorm: `x * rsqrt(mean(x^2) + eps) * weight`";
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$input,
                       Model_TensorLike:$weight,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs Model_TensorLike:$result);
}

def Model_DropoutOp : Model_LeafOp<"dropout", "Dropout"> {
  let summary = "nn.Dropout (identity at inference)";
  let description = [{
    The identity, as `nn.Dropout` in eval mode, unless `train` is set
    (`F.dropout(x, p, training=True)`): tp-differentiate sets it on every
    dropout with `p > 0` of a training step. Then each element is kept
    with probability `1 - p` and scaled by `1 / (1 - p)`, the others are
    zero; the mask depends only on the run's seed, the optimizer step, the
    module's FQN and the element's index in the global tensor, so every
    partitioning draws the same mask (`model.dropout_grad` draws it again).

    ```mlir
    %y = model.dropout "layers.0.attention.resid_dropout"(%x) {p = 1.000000e-01 : f64, train} : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$fqn, Model_TensorLike:$input,
                       DefaultValuedAttr<F64Attr, "0.0">:$p,
                       UnitAttr:$train);
  let results = (outs Model_TensorLike:$result);
}

//===----------------------------------------------------------------------===//
// Functional ops
//===----------------------------------------------------------------------===//

class Model_FnOp<string mnemonic, list<Trait> traits = []>
    : Model_Op<mnemonic, !listconcat(traits, [Pure, Model_HasShardingRule,
                                              Model_Kernel])> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Model_UnaryOp<string mnemonic, string desc,
                    list<Trait> traits = [Model_Differentiable]>
    : Model_FnOp<mnemonic, traits> {
  let summary = desc;
  let arguments = (ins Model_TensorLike:$input);
  let results = (outs Model_TensorLike:$result);
}

def Model_ReluOp : Model_UnaryOp<"relu", "ReLU">;
def Model_GeluOp : Model_UnaryOp<"gelu", "GELU, erf form (nn.GELU())">;
def Model_SiluOp : Model_UnaryOp<"silu", "SiLU: `x * sigmoid(x)`">;
def Model_ExpOp : Model_UnaryOp<"exp", "Element-wise exponential">;
def Model_LogOp : Model_UnaryOp<"log", "Element-wise natural logarithm">;

// A pointwise math function of a float tensor (ATen's unary ops). Its
// verifier and sharding rule are the family's, defined here: shards pass
// through and a Partial is reduced first (the function is not linear).
// Each op's backward, its derivative built from other model ops, is in
// Math.cpp.
class Model_MathOp<string mnemonic, string desc>
    : Model_UnaryOp<mnemonic, desc> {
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::tp::model::detail::verifyFloatUnary(*this);
    }
    ::mlir::tp::AxisRule $cppClass::getAxisRule(
        ::llvm::ArrayRef<::mlir::Attribute> in, int64_t axisSize) {
      return ::mlir::tp::AxisRuleBuilder(getContext(), axisSize).unary(in);
    }
  }];
}

def Model_TanhOp : Model_MathOp<"tanh", "Element-wise hyperbolic tangent">;
def Model_SigmoidOp : Model_MathOp<"sigmoid",
    "Element-wise logistic sigmoid `1 / (1 + exp(-x))`">;
def Model_SqrtOp : Model_MathOp<"sqrt", "Element-wise square root">;
def Model_RsqrtOp : Model_MathOp<"rsqrt",
    "Element-wise reciprocal square root `1 / sqrt(x)`">;
def Model_ErfOp : Model_MathOp<"erf", "Element-wise Gauss error function">;
def Model_ReciprocalOp : Model_MathOp<"reciprocal",
    "Element-wise reciprocal `1 / x`">;
def Model_AbsOp : Model_MathOp<"abs", "Element-wise absolute value">;

def Model_CastOp : Model_UnaryOp<"cast",
    "Element type conversion (`x.to(dtype)`, `.float()`, `type_as`)"> {
  let extraClassDeclaration = [{
    // The executor's copy converts to the result slot's dtype.
    static constexpr ::llvm::StringLiteral kKernelName = "copy";
  }];
  let description = [{
    To a float type (f32, bf16, f16) from a float, integer or i1 tensor of
    the same shape: a padding mask of ids to the scores' dtype, a bf16
    activation upcast to f32 for a norm. Narrowing rounds to nearest even;
    integers convert exactly up to 2^24 in f32, i1 to 0 and 1. To i1
    (`.bool()`): every nonzero element (NaN too) is true. Sharding: a shard
    passes; a Partial(sum) passes a widening cast (bf16 or f16 to f32: each
    rank's part converts exactly and the sum is formed in f32, so a
    mixed-precision gradient is reduced in f32); before any other cast a
    Partial is reduced first (rounding each rank's part is not rounding the
    sum). The gradient is the result's gradient cast back to the input's
    float type (none for an integer or i1 input or result).

    ```mlir
    %m = model.cast %mask : (tensor<2x8xi64>) -> tensor<2x8xf32>
    ```
  }];
}

def Model_PowOp : Model_FnOp<"pow", [Model_Differentiable]> {
  let summary = "Element-wise power with a constant exponent: `x ** exponent`";
  let description = [{
    `torch.pow(x, exponent)` for a number `exponent` (PyTorch's
    `pow.Tensor_Scalar`). A negative base with a non-integral exponent
    gives NaN, as in PyTorch.

    ```mlir
    %c = model.pow %x {exponent = 3.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Model_TensorLike:$input, F64Attr:$exponent);
  let results = (outs Model_TensorLike:$result);
}

class Model_BinaryOp<string mnemonic, string desc>
    : Model_FnOp<mnemonic, [Model_Differentiable]> {
  let summary = desc;
  let description = [{
    Element-wise with NumPy/PyTorch broadcasting (dims aligned at the end).
  }];
  let arguments = (ins Model_TensorLike:$lhs, Model_TensorLike:$rhs);
  let results = (outs Model_TensorLike:$result);
}

def Model_AddOp : Model_BinaryOp<"add", "Element-wise addition">;
def Model_SubOp : Model_BinaryOp<"sub", "Element-wise subtraction">;
def Model_MulOp : Model_BinaryOp<"mul", "Element-wise multiplication">;
def Model_DivOp : Model_BinaryOp<"div", "Element-wise true division">;

def Model_MatmulOp : Model_FnOp<"matmul", [Model_Differentiable]> {
  let summary = "Batched matrix product `[..., m, k] x [..., k, n]`";
  let arguments = (ins Model_TensorLike:$lhs, Model_TensorLike:$rhs);
  let results = (outs Model_TensorLike:$result);
}

def Model_SoftmaxOp : Model_FnOp<"softmax", [Model_Differentiable]> {
  let summary = "Softmax along `dim`";
  let arguments = (ins Model_TensorLike:$input, I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

def Model_ReshapeOp : Model_FnOp<"reshape", [Model_Differentiable]> {
  let summary = "View with a new shape (same number of elements)";
  let arguments = (ins Model_TensorLike:$input);
  let results = (outs Model_TensorLike:$result);
}

def Model_TransposeOp : Model_FnOp<"transpose", [Model_Differentiable]> {
  let summary = "Permute dims (`permutation[i]` is the source dim of dim i)";
  let arguments = (ins Model_TensorLike:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Model_TensorLike:$result);
}

def Model_ExpandOp : Model_FnOp<"expand", [Model_Differentiable]> {
  let summary = "Broadcast to a larger shape (`expand`, `broadcast_to`, `expand_as`)";
  let description = [{
    The input broadcasts to the result's shape (NumPy rules: dims aligned
    at the end, each of size 1 or the result's; missing leading dims are
    added): every element is repeated along the dims it is stretched over.
    Any element type (ids and masks expand too). Sharding: a shard of a dim
    that is not stretched passes; every Partial passes (it copies
    elements). The gradient sums over the stretched dims (`sum_to`).

    ```mlir
    %r = model.expand %k : (tensor<2x2x1x8x4xf32>) -> tensor<2x2x2x8x4xf32>
    ```
  }];
  let arguments = (ins Model_TensorLike:$input);
  let results = (outs Model_TensorLike:$result);
}

def Model_SliceOp : Model_FnOp<"slice", [Model_Differentiable]> {
  let summary = "Every `step`-th element of `dim` from `start`: `x[..., start::step]`";
  let description = [{
    Basic slicing along one dim (`x[..., a:b:c]`, `torch.narrow`, one piece
    of `split`/`chunk`): element `i` of the result's `dim` is element
    `start + i * step` of the input's; the result's size on `dim` is how
    many there are (so `end` is implied), the other dims are the input's.
    Sharding: the other dims pass a shard through, `dim` is replicated
    first; every Partial passes (the op only picks elements).

    ```mlir
    %h = model.slice %x {dim = 3 : i64, start = 4 : i64, step = 1 : i64} : (tensor<2x8x4x8xf32>) -> tensor<2x8x4x4xf32>
    ```
  }];
  let arguments = (ins Model_TensorLike:$input, I64Attr:$dim, I64Attr:$start,
                       DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Model_TensorLike:$result);
}

def Model_ConcatOp : Model_FnOp<"concat", [Model_Differentiable]> {
  let summary = "Concatenation along `dim` (`torch.cat`)";
  let description = [{
    The operands agree on every dim but `dim`; the result's `dim` is the
    sum of theirs. Sharding: the other dims pass a shard through (the same
    in every operand), `dim` is replicated first; operands that are all
    the same Partial(sum) give it.

    ```mlir
    %r = model.concat %a, %b {dim = 3 : i64} : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<2x8x4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Model_TensorLike>:$inputs, I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

//===----------------------------------------------------------------------===//
// Masks: comparisons, logic, selection
//===----------------------------------------------------------------------===//

def Model_CompareOp : Model_FnOp<"compare"> {
  let summary = "Element-wise comparison to a boolean mask (`x < y`, `torch.eq`, ...)";
  let description = [{
    `predicate` is one of `eq`, `ne`, `lt`, `le`, `gt`, `ge`; the operands
    broadcast (NumPy rules) and may be float or integer tensors (ids
    compared with ids, scores with a threshold); the result is `i1`.
    Floats compare as IEEE does (NaN is unequal to everything, so `ne` is
    true for it and the others false). Sharding: shards of aligned dims
    pass, a Partial is reduced first. No gradient (a mask).

    ```mlir
    %m = model.compare %ids, %pad {predicate = "ne"} : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
    ```
  }];
  let arguments = (ins Model_TensorLike:$lhs, Model_TensorLike:$rhs,
                       StrAttr:$predicate);
  let results = (outs Model_TensorLike:$result);
}

// Logic on boolean masks: `~m`, `a & b`, `a | b` on torch.bool tensors.
class Model_LogicalOp<string mnemonic, string desc, dag args>
    : Model_FnOp<mnemonic> {
  let summary = desc;
  let description = [{
    On `i1` tensors (broadcasting); the result is `i1`. Sharding: shards
    of aligned dims pass. No gradient.
  }];
  let arguments = args;
  let results = (outs Model_TensorLike:$result);
}

def Model_LogicalNotOp : Model_LogicalOp<"logical_not",
    "Element-wise negation of a mask (`~m`, `logical_not`)",
    (ins Model_TensorLike:$input)>;
def Model_LogicalAndOp : Model_LogicalOp<"logical_and",
    "Element-wise conjunction of masks (`a & b`)",
    (ins Model_TensorLike:$lhs, Model_TensorLike:$rhs)>;
def Model_LogicalOrOp : Model_LogicalOp<"logical_or",
    "Element-wise disjunction of masks (`a | b`)",
    (ins Model_TensorLike:$lhs, Model_TensorLike:$rhs)>;

def Model_WhereOp : Model_FnOp<"where", [Model_Differentiable]> {
  let summary = "Element-wise selection by a mask (`torch.where(c, x, y)`, `masked_fill`)";
  let description = [{
    `x` where `condition` is true, `y` where it is false; the three
    operands broadcast (NumPy rules), `condition` is `i1`, `x` and `y`
    float tensors of the result's element type. `x.masked_fill(m, v)` is
    `where(m, v, x)`. Sharding: shards of aligned dims pass; a Partial is
    reduced first. The gradient of `x` is the result's where the condition
    holds and 0 elsewhere (of `y` the opposite), summed back to each
    operand's shape.

    ```mlir
    %r = model.where %m, %fill, %s : (tensor<2x1x1x8xi1>, tensor<f32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = (ins Model_TensorLike:$condition, Model_TensorLike:$x,
                       Model_TensorLike:$y);
  let results = (outs Model_TensorLike:$result);
}

//===----------------------------------------------------------------------===//
// Picking by index: routing (top-k experts) and lookups
//===----------------------------------------------------------------------===//

def Model_TopkOp : Model_FnOp<"topk"> {
  let summary = "Indices of the `k` largest elements along `dim` (`torch.topk(...).indices`)";
  let description = [{
    The result is an integer tensor shaped like `input` except along `dim`,
    where it has `k` elements: the positions of the `k` largest elements,
    largest first (PyTorch's `largest=True, sorted=True`); equal elements in
    order of position, NaN above every number. tp-import records
    `torch.topk` as this op and a `model.gather` of the values, so that the
    values' gradient reaches the input. No gradient flows through the
    indices. Sharding: the other dims pass a shard through, `dim` is
    replicated first; a Partial input is reduced first.

    ```mlir
    %i = model.topk %p {dim = 1 : i64} : (tensor<16x4xf32>) -> tensor<16x2xi64>
    ```
  }];
  let arguments = (ins Model_TensorLike:$input, I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

def Model_GatherOp : Model_FnOp<"gather", [Model_Differentiable]> {
  let summary = "Elements picked along `dim` by an index tensor (`torch.gather`)";
  let description = [{
    `result[..., i, ...] = input[..., index[..., i, ...], ...]` along `dim`;
    `index` is an integer tensor shaped like `input` except along `dim`, and
    the result has its shape and `input`'s element type. An index outside
    `[0, size)` is an error when it runs. Sharding: the other dims pass a
    shard through (the same in both operands), `dim` is replicated first;
    a Partial input passes (the op only picks elements). The gradient
    scatters back with `model.gather_grad`.

    ```mlir
    %v = model.gather %p, %i {dim = 1 : i64} : (tensor<16x4xf32>, tensor<16x2xi64>) -> tensor<16x2xf32>
    ```
  }];
  let arguments = (ins Model_TensorLike:$input, Model_TensorLike:$index,
                       I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

def Model_OneHotOp : Model_FnOp<"one_hot"> {
  let summary = "One-hot encoding of integer ids (`F.one_hot`)";
  let description = [{
    `ids` is an integer tensor `[...]`; the result is `[..., num_classes]`
    (the class count is the result's last dim) with 1 where the last index
    equals the id and 0 elsewhere, in the result's element type (PyTorch's
    is int64; a float type is allowed). An id outside `[0, num_classes)` is
    an error when it runs. Sharding: the ids' dims pass a shard through,
    the class dim is never sharded. No gradient (integer ids).

    ```mlir
    %m = model.one_hot %i : (tensor<16x2xi64>) -> tensor<16x2x4xi64>
    ```
  }];
  let arguments = (ins Model_TensorLike:$ids);
  let results = (outs Model_TensorLike:$result);
}

def Model_RotaryOp : Model_FnOp<"rotary", [Model_Differentiable]> {
  let summary = "Rotary position embedding on interleaved pairs (Llama)";
  let description = [{
    `input` is `[batch, seq, heads, head_dim]`; pair `i` (elements `2i`,
    `2i+1`) at position `p` is rotated by `p * theta^(-2i/head_dim)`.
  }];
  let arguments = (ins Model_TensorLike:$input,
                       DefaultValuedAttr<F64Attr, "10000.0">:$theta);
  let results = (outs Model_TensorLike:$result);
}

def Model_AttentionOp : Model_FnOp<"attention", [Model_Differentiable]> {
  let summary = "Scaled-dot-product attention per head, optionally causal";
  let description = [{
    `q` is `[batch, seq, heads, head_dim]`, `k` and `v` are
    `[batch, seq, kv_heads, head_dim]` with `heads % kv_heads == 0`
    (grouped-query attention: query head `h` reads kv head
    `h / (heads / kv_heads)`); the scale is `1/sqrt(head_dim)`.
  }];
  let arguments = (ins Model_TensorLike:$q, Model_TensorLike:$k,
                       Model_TensorLike:$v, DefaultValuedAttr<BoolAttr, "true">:$causal);
  let results = (outs Model_TensorLike:$result);
}

def Model_ArangeOp : Model_Op<"arange", [Pure, Model_Kernel]> {
  let summary = "The ids `0 .. n-1` (positions), an integer tensor `[n]`";
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Model_ConstantOp : Model_Op<"constant", [Pure, Model_Kernel,
    AllTypesMatch<["elements", "result"]>]> {
  let summary = "A tensor of given values (a buffer or a table the model computes from constants)";
  let description = [{
    What model code computes from constants alone: rotary cos/sin tables
    from an `inv_freq` buffer, a causal mask from a registered buffer, a
    table of position ids. Float (f32, bf16, f16), integer (i64, i32) or
    i1 (a mask) elements; every rank holds the whole tensor (a consumer that needs a
    shard of it takes its chunk).

    ```mlir
    %c = model.constant dense<[[1.0, 0.5], [0.25, 0.0]]> : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$elements);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict $elements";
  let hasVerifier = 1;
}

class Model_ReduceOp<string mnemonic, string desc>
    : Model_FnOp<mnemonic, [Model_Differentiable]> {
  let summary = desc;
  let description = [{
    Reduces `dim` and keeps it with size 1 (PyTorch's `keepdim=True`).
  }];
  let arguments = (ins Model_TensorLike:$input, I64Attr:$dim);
  let results = (outs Model_TensorLike:$result);
}

def Model_ReduceMaxOp : Model_ReduceOp<"reduce_max", "Maximum along `dim`">;
def Model_ReduceSumOp : Model_ReduceOp<"reduce_sum", "Sum along `dim`">;

def Model_MeanOp : Model_FnOp<"mean", [Model_Differentiable]> {
  let summary = "Mean of all elements (a rank-0 tensor)";
  let description = [{
    `count`, when present, is the divisor in place of the input's number of
    elements: tp-partition sets it to the global count where the input is a
    shard (each rank's local sum over the global count is a partial sum of
    the mean, e.g. a loss over a batch split on a data-parallel axis).
  }];
  let arguments = (ins Model_TensorLike:$input, OptionalAttr<I64Attr>:$count);
  let results = (outs Model_TensorLike:$result);
}

def Model_TargetLogitOp : Model_FnOp<"target_logit", [Model_Differentiable]> {
  let summary = "Each row's logit at its target class: `logits[i, t_i]`";
  let description = [{
    `logits` is `[N, C]`, `targets` integer `[N]`; the result is `[N, 1]`.
    Part of the class-parallel cross entropy (`loss_parallel`): on a shard
    of the classes, rows whose target is elsewhere give zero.
  }];
  let arguments = (ins Model_TensorLike:$logits, Model_TensorLike:$targets);
  let results = (outs Model_TensorLike:$result);
}

def Model_CrossEntropyOp : Model_FnOp<"cross_entropy", [Model_Differentiable]> {
  let summary = "Mean cross entropy of logits `[N, C]` against targets `[N]`";
  let description = [{
    As `torch.nn.functional.cross_entropy`: rows whose target is -100
    (`ignore_index`) are skipped and the mean is over the others.

    Where tp-partition splits the rows over ranks, each rank's sum over its
    rows divided by a global divisor is a partial sum of the loss. The
    divisor is `count` (the global number of rows) where the targets cannot
    hold -100, and otherwise the operand `valid`: a rank-0 f32 holding the
    global number of rows not ignored (`model.valid_rows` of the targets,
    all-reduced over the ranks that split them).

    ```mlir
    %v = model.valid_rows %targets : (tensor<4xi64>) -> tensor<f32>
    %n = tp.all_reduce %v on @mesh mesh_axes = [0] reduction = sum : tensor<f32>
    %loss = model.cross_entropy %logits, %targets, %n : (tensor<4x16xf32>, tensor<4xi64>, tensor<f32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Model_TensorLike:$logits, Model_TensorLike:$targets,
                       Optional<Model_TensorLike>:$valid,
                       OptionalAttr<I64Attr>:$count);
  let results = (outs Model_TensorLike:$result);
}

def Model_ValidRowsOp : Model_FnOp<"valid_rows"> {
  let summary = "The number of targets that are not -100 (a rank-0 f32)";
  let description = [{
    The divisor of a cross entropy whose rows are split over ranks and may
    be ignored (`ignore_index`, -100): on a shard of the targets each rank
    counts its own, a partial sum of the global count. The count is exact
    in f32 up to 2^24 rows.
  }];
  let arguments = (ins Model_TensorLike:$targets);
  let results = (outs Model_TensorLike:$result);
}

def Model_DetachOp : Model_UnaryOp<"detach",
    "The value, through which no gradient flows (torch.Tensor.detach)",
    [DeclareOpInterfaceMethods<Model_DifferentiableOpInterface,
                               ["passesGradient"]>]> {
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kKernelName = "copy";
  }];
  let description = [{
    The identity in the forward program; tp-differentiate sends no gradient
    through it. loss_parallel's cross entropy subtracts the detached row
    maximum of the logits, as PyTorch and Megatron do: the loss does not
    depend on that shift, so its gradient is exactly zero, and detaching it
    keeps the backward from needing the whole rows.
  }];
}

//===----------------------------------------------------------------------===//
// A loop nest over a scalar body (a linalg.generic kept as it is)
//===----------------------------------------------------------------------===//

def Model_GenericOp : Model_Op<"generic", [Pure, SingleBlock,
    Model_HasShardingRule, Model_Differentiable, Model_Kernel]> {
  let summary = "A loop nest computing each result element from a scalar body (`linalg.generic`)";
  let description = [{
    linalg.generic's semantics on model tensors: the operands are the inputs
    and, last, the init; `indexing_maps` gives, per operand, which loop
    indexes each of its dims (an `affine_map` of the loops whose results
    are loop dims, or `0` for a dim of size 1), and `iterator_types` says
    whether each loop is `"parallel"` or `"reduction"`. The init's map
    names parallel loops only, each once; the result has the init's type.
    For each point of the loop nest the body reads one element per operand
    (the init's argument is the result element so far, starting from the
    init) and yields the result element's new value. import-shard keeps a
    generic that no model op expresses as this op.

    Sharding (the factors of its maps, as Shardy's `OpShardingRule`): a
    parallel loop's shard passes from the operands that it indexes to the
    result; a reduction loop may be sharded when the body combines the
    result element with the inputs by one `arith.addf`, `maximumf`/`maxnumf`
    or `minimumf`/`minnumf` (the result is then a Partial of that
    reduction, and the init counts once); otherwise it is replicated. A body
    that reads the loop indices (`linalg.index`) or has ops outside the
    arith and math dialects is replicated whole. tp-run runs it on the host
    (arith and math float ops).

    Gradient: per float operand, a model.generic over the same loops whose
    body is this body, its derivative with respect to that operand's element
    (forward mode over the arith and math float ops) times the result's
    gradient element, summed over the loops the operand does not index.
    With reduction loops the body must combine the result by one
    `arith.addf` (the init's gradient is then the result's); any other
    combiner, or a body op without a derivative, is an error naming it.

    ```mlir
    %r = model.generic %x, %init {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: f32, %acc: f32):
      %e = math.exp %a : f32
      %s = arith.addf %acc, %e : f32
      model.generic_yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Model_TensorLike>:$operands,
                       AffineMapArrayAttr:$indexing_maps,
                       StrArrayAttr:$iterator_types);
  let results = (outs Model_TensorLike:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $operands attr-dict `:` functional-type($operands, results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reduction a sharded reduction loop gives: the body's combiner of
    /// the result element (`sum`, `max`, `min`), or none when the body is
    /// not one combination of it with the inputs.
    std::optional<::mlir::tp::ReductionKind> getCombiner();
    /// Whether the body reads the result element (an init is needed).
    bool readsInit();
    /// Per dim of operand `operand` (the init's are the result's), the loop
    /// that indexes it, or -1 for a size-1 dim read at 0.
    ::llvm::SmallVector<int64_t> getLoopsOf(unsigned operand);
  }];
}

def Model_GenericYieldOp : Model_Op<"generic_yield", [Pure, Terminator,
    ReturnLike, HasParent<"GenericOp">]> {
  let summary = "Yields the new result element of a model.generic's body";
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

include "tp/Dialect/Model/IR/ModelGradOps.td"

#endif // TP_DIALECT_MODEL_IR_MODELOPS_TD
