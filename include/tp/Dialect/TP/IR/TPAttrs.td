//===- TPAttrs.td - tp placements, styles and plans --------*- tablegen -*-===//
//
// Placement attributes (Shard / Replicate / Partial), one attribute per
// PyTorch parallel style with PyTorch's argument names and defaults, and the
// plan attribute that carries an ordered list of (FQN pattern, style) pairs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPATTRS_TD
#define TP_DIALECT_TP_IR_TPATTRS_TD

include "tp/Dialect/TP/IR/TPBase.td"
include "tp/Dialect/TP/IR/TPInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Placements
//===----------------------------------------------------------------------===//

def TP_ShardAttr : TP_Attr<"Shard", "shard",
    [DeclareAttrInterfaceMethods<TP_PlacementAttrInterface>]> {
  let summary = "Tensor dim split across a mesh axis (torch Shard(d))";
  let description = [{
    `#tp.shard<d>` splits tensor dim `d` across the ranks of one mesh axis,
    following `torch.chunk`: every rank gets `ceil(n/k)` elements except the
    last ones, which get the remainder or nothing. Negative dims count from
    the end and are normalized against the tensor rank where one is known.
  }];
  let parameters = (ins "int64_t":$dim);
  let assemblyFormat = "`<` $dim `>`";
}

def TP_InnerShardAttr : TP_Attr<"InnerShard", "inner_shard",
    [DeclareAttrInterfaceMethods<TP_PlacementAttrInterface>]> {
  let summary = "Tensor dim split across a mesh axis inside the other axes' "
                "shards (torch _StridedShard)";
  let description = [{
    `#tp.inner_shard<d>` splits tensor dim `d` across the ranks of one mesh
    axis, like `#tp.shard<d>`, but inside the pieces that later mesh axes
    cut with `#tp.shard<d>`: those axes split the dim first, and this one
    splits each of their pieces (by `torch.chunk`). Placements otherwise nest
    in mesh order, the first axis outermost. On a `[dp, tp]` mesh,
    `[#tp.inner_shard<0>, #tp.shard<0>]` is FSDP's Shard(0) over dp of the
    tensor-parallel shard on tp (PyTorch's `_StridedShard`): one all_gather
    over dp rebuilds each rank's TP shard. It is only written where a later
    axis splits the same dim with `#tp.shard<d>` (elsewhere it is
    `#tp.shard<d>`), and of the ops that compute, only position-independent
    ones (elementwise arithmetic, the optimizer updates, sums of squares)
    read it; the others see such an operand gathered first.
  }];
  let parameters = (ins "int64_t":$dim);
  let assemblyFormat = "`<` $dim `>`";
}

def TP_ReplicateAttr : TP_Attr<"Replicate", "replicate",
    [DeclareAttrInterfaceMethods<TP_PlacementAttrInterface>]> {
  let summary = "Full copy on every rank of a mesh axis (torch Replicate())";
}

def TP_PartialAttr : TP_Attr<"Partial", "partial",
    [DeclareAttrInterfaceMethods<TP_PlacementAttrInterface>]> {
  let summary = "Pending reduction across a mesh axis (torch Partial(op))";
  let description = [{
    `#tp.partial<sum>` means every rank of the mesh axis holds a tensor of the
    full shape and the value is their reduction (`sum`, `avg`, `max`, `min`).
  }];
  let parameters = (ins "ReductionKind":$kind);
  let assemblyFormat = "`<` $kind `>`";
}

//===----------------------------------------------------------------------===//
// Parallel styles (modern PyTorch API)
//===----------------------------------------------------------------------===//

// A style attribute carries its PyTorch arguments and says its PyTorch name;
// the rest of what a style is (its plan-file arguments, the modules it
// applies to, its layout checks and lowering) is its StyleDefinition in
// lib/Dialect/TP/Transforms/BuiltinStyles.cpp, attached as the
// ParallelStyleAttrInterface model. A style whose arguments have constraints
// the attribute itself must reject (PyTorch's constructor errors) sets
// genVerifyDecl and verifies them in TPAttrs.cpp.
class TP_StyleAttr<string name, string mnemonic, string torchName,
                   string replacement = "">
    : TP_Attr<name, mnemonic, [TP_ParallelStyleAttrTrait]> {
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    llvm::StringRef getStyleName() const { return "}] # torchName # [{"; }
    bool isDeprecated(std::string &replacement) const {
  }] # !if(!empty(replacement), "return false;",
           "replacement = \"" # replacement # "\"; return true;") # [{
    }
  }];
}

def TP_ColwiseAttr : TP_StyleAttr<"Colwise", "colwise", "ColwiseParallel"> {
  let summary = "ColwiseParallel: shard a linear/embedding on its output dim";
  let description = [{
    PyTorch's `ColwiseParallel(input_layouts=Replicate(),
    output_layouts=Shard(-1), use_local_output=True)`. Linear weight and bias
    are `Shard(0)`, an embedding weight `Shard(1)`; the input is taken from
    `input_layouts` and redistributed to `Replicate`; the natural output
    `Shard(-1)` is redistributed to `output_layouts`. An absent layout takes
    the PyTorch default.

    Beyond PyTorch, `shard_pieces` (plan key `"shard_pieces": true`) is for
    a fused projection whose output features are only read as contiguous
    pieces (GPT-2's `c_attn` split into q, k and v): each piece's rows of
    the weight and bias are sharded on their own, so every rank holds its
    part of every piece (its heads of q, k and v) and the split needs no
    gather. The fused weight is then read whole on each rank (and its
    gradient gathered in training) instead of as one contiguous chunk.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    DefaultValuedParameter<"bool", "true">:$use_local_output,
    DefaultValuedParameter<"bool", "false">:$shard_pieces);
  // PyTorch's three parameters, as before shard_pieces.
  let builders = [
    AttrBuilder<(ins "::mlir::Attribute":$input_layouts,
                     "::mlir::Attribute":$output_layouts,
                     "bool":$use_local_output), [{
      return $_get($_ctxt, input_layouts, output_layouts, use_local_output,
                   /*shard_pieces=*/false);
    }]>
  ];
}

def TP_RowwiseAttr : TP_StyleAttr<"Rowwise", "rowwise", "RowwiseParallel"> {
  let summary = "RowwiseParallel: shard a linear on its input dim";
  let description = [{
    PyTorch's `RowwiseParallel(input_layouts=Shard(-1),
    output_layouts=Replicate(), use_local_output=True)`. A linear weight is
    `Shard(1)` and its bias is added once after the reduction; an embedding
    weight is `Shard(0)` with out-of-range ids masked. The natural output is
    `Partial(sum)`: to `Replicate` it costs an all_reduce, to `Shard(d)` a
    reduce_scatter.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    DefaultValuedParameter<"bool", "true">:$use_local_output);
}

def TP_SequenceParallelAttr
    : TP_StyleAttr<"SequenceParallel", "sequence_parallel", "SequenceParallel"> {
  let summary = "SequenceParallel: run a norm/dropout on sequence shards";
  let description = [{
    PyTorch's `SequenceParallel(sequence_dim=1, use_local_output=False)`:
    parameters replicated, input and output `Shard(sequence_dim)`.
  }];
  let parameters = (ins
    DefaultValuedParameter<"int64_t", "1">:$sequence_dim,
    DefaultValuedParameter<"bool", "false">:$use_local_output);
}

def TP_PrepareModuleInputAttr : TP_StyleAttr<"PrepareModuleInput",
    "prepare_module_input", "PrepareModuleInput"> {
  let summary = "PrepareModuleInput: redistribute a module's inputs";
  let description = [{
    PyTorch's `PrepareModuleInput(input_layouts=None,
    desired_input_layouts=None, input_kwarg_layouts=None,
    desired_input_kwarg_layouts=None, use_local_output=False)`. Layout lists
    are arrays whose entries are placements or `unit` (Python's `None`:
    the input passes through); keyword layouts are dictionaries.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$desired_input_layouts,
    OptionalParameter<"::mlir::DictionaryAttr">:$input_kwarg_layouts,
    OptionalParameter<"::mlir::DictionaryAttr">:$desired_input_kwarg_layouts,
    DefaultValuedParameter<"bool", "false">:$use_local_output);
}

def TP_PrepareModuleOutputAttr : TP_StyleAttr<"PrepareModuleOutput",
    "prepare_module_output", "PrepareModuleOutput"> {
  let summary = "PrepareModuleOutput: redistribute a module's outputs";
  let description = [{
    PyTorch's `PrepareModuleOutput(output_layouts, desired_output_layouts,
    use_local_output=True)`.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    OptionalParameter<"::mlir::Attribute">:$desired_output_layouts,
    DefaultValuedParameter<"bool", "true">:$use_local_output);
}

def TP_PrepareModuleInputOutputAttr : TP_StyleAttr<"PrepareModuleInputOutput",
    "prepare_module_input_output", "PrepareModuleInputOutput"> {
  let summary = "PrepareModuleInputOutput: both of the above";
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$desired_input_layouts,
    OptionalParameter<"::mlir::DictionaryAttr">:$input_kwarg_layouts,
    OptionalParameter<"::mlir::DictionaryAttr">:$desired_input_kwarg_layouts,
    DefaultValuedParameter<"bool", "false">:$use_local_input,
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    OptionalParameter<"::mlir::Attribute">:$desired_output_layouts,
    DefaultValuedParameter<"bool", "true">:$use_local_output);
}

//===----------------------------------------------------------------------===//
// Parallel styles (the seed's legacy API, deprecated)
//===----------------------------------------------------------------------===//

def TP_PairwiseParallelAttr : TP_StyleAttr<"PairwiseParallel",
    "pairwise_parallel", "PairwiseParallel",
    "ColwiseParallel and RowwiseParallel"> {
  let summary = "Deprecated PairwiseParallel: colwise then rowwise pair";
  let description = [{
    The seed's `PairwiseParallel`: a module holding two linears, the first
    colwise and the second rowwise, with replicated input and output.
    Deprecated: use `ColwiseParallel` and `RowwiseParallel`.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    DefaultValuedParameter<"bool", "true">:$use_local_output);
}

def TP_PairwiseSequenceParallelAttr : TP_StyleAttr<"PairwiseSequenceParallel",
    "pairwise_sequence_parallel", "SequenceParallel",
    "ColwiseParallel and RowwiseParallel with SequenceParallel on the norms"> {
  let summary = "Deprecated seed SequenceParallel: pairwise with Shard(0) I/O";
  let description = [{
    The seed's `SequenceParallel(PairwiseParallel)` variant: input resharded
    `Shard(0) -> Replicate`, output `Shard(0)`. Deprecated: use
    `ColwiseParallel` and `RowwiseParallel`.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    DefaultValuedParameter<"bool", "true">:$use_local_output);
}

def TP_LegacyPrepareModuleInputAttr : TP_StyleAttr<"LegacyPrepareModuleInput",
    "legacy_prepare_module_input", "PrepareModuleInput"> {
  let summary = "The seed's PrepareModuleInput signature";
  let description = [{
    PyTorch 2.1's `PrepareModuleInput(input_layouts=Shard(0),
    output_layouts=Replicate(), use_local_output=False)`: each input is laid
    out from its `input_layouts` entry and redistributed to its
    `output_layouts` entry (the modern `desired_input_layouts`). A single
    placement stands for a one-entry tuple; the layouts are zipped with the
    inputs, so inputs past the last layout pass through; `unit` (None)
    passes an input through. An absent list takes the seed's default.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    DefaultValuedParameter<"bool", "false">:$use_local_output);
}

def TP_LegacyPrepareModuleOutputAttr : TP_StyleAttr<
    "LegacyPrepareModuleOutput", "legacy_prepare_module_output",
    "PrepareModuleOutput"> {
  let summary = "The seed's PrepareModuleOutput signature";
  let description = [{
    PyTorch 2.1's `PrepareModuleOutput(input_layouts=Replicate(),
    output_layouts=Shard(0), use_local_output=True)`: the module's single
    output, laid out as `input_layouts` (the modern `output_layouts`), is
    redistributed to `output_layouts` (the modern
    `desired_output_layouts`). Only one output, as in the seed.
  }];
  let genVerifyDecl = 1;
  let parameters = (ins
    OptionalParameter<"::mlir::Attribute">:$input_layouts,
    OptionalParameter<"::mlir::Attribute">:$output_layouts,
    DefaultValuedParameter<"bool", "true">:$use_local_output);
}

//===----------------------------------------------------------------------===//
// Custom styles
//===----------------------------------------------------------------------===//

def TP_CustomStyleAttr : TP_Attr<"CustomStyle", "custom",
    [TP_ParallelStyleAttrTrait]> {
  let summary = "A user-defined style: explicit layouts, or a C++ style";
  let description = [{
    The extension point of the seed's `ParallelStyle`. Without a registered
    C++ style of this `name`, the layouts are applied as written:
    `params` maps parameter names relative to the module (`weight`,
    `wq.weight`) to their placement on the TP axis; each input is laid out
    from `input_layouts` and redistributed to `desired_input_layouts`
    (`unit` passes an input through); each output is redistributed to
    `output_layouts`. Everything else follows from placement propagation.
    A style registered from C++ (`registerParallelStyle`, see
    `tp/Dialect/TP/Transforms/CustomStyles.h`) under `name` lowers the
    module itself and reads its own arguments from `args`.

    ```mlir
    #tp.custom<name = "MyColwise", params = {bias = #tp.shard<0>, weight = #tp.shard<0>},
               output_layouts = [#tp.replicate]>
    ```
  }];
  let parameters = (ins
    "::mlir::StringAttr":$name,
    OptionalParameter<"::mlir::DictionaryAttr">:$params,
    OptionalParameter<"::mlir::ArrayAttr">:$input_layouts,
    OptionalParameter<"::mlir::ArrayAttr">:$desired_input_layouts,
    OptionalParameter<"::mlir::ArrayAttr">:$output_layouts,
    OptionalParameter<"::mlir::DictionaryAttr">:$args);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    llvm::StringRef getStyleName() const { return getName().getValue(); }
    bool isDeprecated(std::string &) const { return false; }
  }];
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

def TP_PlanAttr : TP_Attr<"Plan", "plan"> {
  let summary = "An ordered tensor-parallel plan: FQN patterns to styles";
  let description = [{
    The inline form of a plan file. `keys` are fnmatch patterns over dotted
    FQNs (matched token by token), `styles` the style attribute for each key,
    applied in order. `mesh` names the `tp.mesh` and `tp_axis` the mesh axis
    the styles act on (required on N-D meshes); `dp_axis`, if set, names a
    data-parallel mesh axis over which every model input is sharded on its
    first (batch) dim; `loss_parallel` (PyTorch's `loss_parallel()`)
    computes each cross entropy on class-sharded logits without gathering
    them: three small all-reduces (max, sum of exp, target logit). `frozen`
    lists patterns of parameters a training step does not train (PyTorch's
    `requires_grad_(False)`): a pattern matches a parameter FQN, or a
    module FQN and so every parameter under it; tp-apply-plan marks those
    `model.param` ops `frozen`. `recompute` lists patterns of composite
    modules (`model.module` FQNs, e.g. `layers.*`) whose forward a training
    step computes again in the backward instead of keeping its activations
    (activation checkpointing, torch.utils.checkpoint): tp-differentiate
    reads it. `fsdp_axis`, if set, names a mesh axis over which the batch
    is sharded like `dp_axis`'s and every parameter (frozen ones too) is
    sharded on dim 0 (FSDP, ZeRO-3): tp-lower-styles places each such parameter
    `#tp.shard<0>` on it (`#tp.inner_shard<0>` inside a tensor-parallel
    shard of dim 0), gathered where it is read; its gradient and optimizer
    state follow that placement. With `dp_axis` too, the parameters are
    replicated over `dp_axis` and sharded over `fsdp_axis` (HSDP).
    `reshard_after_forward` (FSDP2's argument, default true) frees each
    gathered parameter after its forward readers and gathers it again for
    the backward (tp-regather on the parameters' gathers); false keeps it
    gathered from the forward to the backward (less communication, more
    memory). `fsdp_units` lists module FQN patterns (default `layers.*`, as
    torchtitan wraps each block): the parameters of each matching module,
    and the root's (every parameter in none), are gathered by one
    all_gather per phase and their gradients reduce-scattered by one
    reduce_scatter (tp-fsdp-units).

    ```mlir
    module attributes {tp.plan = #tp.plan<mesh = @mesh,
        keys = ["net1", "net2"],
        styles = [#tp.colwise<>, #tp.rowwise<output_layouts = #tp.replicate>]>} {
    ```
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    OptionalParameter<"::mlir::StringAttr">:$tp_axis,
    "::mlir::ArrayAttr":$keys,
    "::mlir::ArrayAttr":$styles,
    OptionalParameter<"::mlir::StringAttr">:$dp_axis,
    DefaultValuedParameter<"bool", "false">:$loss_parallel,
    OptionalParameter<"::mlir::ArrayAttr">:$frozen,
    OptionalParameter<"::mlir::ArrayAttr">:$recompute,
    OptionalParameter<"::mlir::StringAttr">:$fsdp_axis,
    DefaultValuedParameter<"bool", "true">:$reshard_after_forward,
    OptionalParameter<"::mlir::ArrayAttr">:$fsdp_units);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::mlir::FlatSymbolRefAttr":$mesh,
                     "::mlir::StringAttr":$tp_axis, "::mlir::ArrayAttr":$keys,
                     "::mlir::ArrayAttr":$styles), [{
      return $_get($_ctxt, mesh, tp_axis, keys, styles, ::mlir::StringAttr(),
                   false, ::mlir::ArrayAttr(), ::mlir::ArrayAttr(),
                   ::mlir::StringAttr(), true, ::mlir::ArrayAttr());
    }]>
  ];
}

#endif // TP_DIALECT_TP_IR_TPATTRS_TD
