//===- Passes.td - tp transformation passes ----------------*- tablegen -*-===//
//
// The passes that lower a tensor-parallel plan to a per-rank SPMD program
// whose only communication is explicit collectives.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_PASSES_TD
#define TP_DIALECT_TP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Plan application and style lowering
//===----------------------------------------------------------------------===//

def TPApplyPlanPass : Pass<"tp-apply-plan", "::mlir::ModuleOp"> {
  let summary = "Attach a plan's styles to the modules its keys match";
  let description = [{
    Reads a plan from the `plan` option (a JSON file) or from the module's
    `tp.plan` attribute, creates the `tp.mesh` it names, and attaches each
    style as a `tp.style` attribute to the module ops whose FQN matches the
    key. Keys are split on `.`; each token is matched with fnmatch (`*`,
    `?`, `[1-2]`, `[!x]`) against one name, so `*` does not cross a dot; the
    empty key is the root. Entries apply in order; two different styles on one
    module are an error naming both keys. A key that matches nothing is a
    warning naming the key and the first token that matched nothing; a style
    on a module type it does not support is an error naming the style, the
    FQN and the type.

    ```json
    {"mesh": {"shape": [4], "axis_names": ["tp"]},
     "plan": {"net1": {"style": "ColwiseParallel"},
              "net2": {"style": "RowwiseParallel"}}}
    ```
  }];
  let options = [
    Option<"planFile", "plan", "std::string", /*default=*/"\"\"",
           "Path of a JSON plan file (default: the module's tp.plan attribute)">
  ];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPLowerStylesPass : Pass<"tp-lower-styles", "::mlir::ModuleOp"> {
  let summary = "Lower style attributes to DTensor ops";
  let description = [{
    For every module with a `tp.style`, places its parameters
    (`tp.distribute`), lays out its inputs from their declared layouts and
    redistributes them to the layouts the style wants, and redistributes its
    natural output placement to the requested output layouts (as PyTorch does).
    Inside the module, values become `!tp.dtensor`. The pass ends by
    propagating placements to the rest of the program, as `tp-propagate`
    does (also when no module has a style), so `tp-pipeline` runs no
    separate `tp-propagate`.

    A rowwise linear with a bias becomes a bias-free linear (output
    `Partial(sum)`) followed by the redistribution and the bias added once.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

//===----------------------------------------------------------------------===//
// Propagation and optimization
//===----------------------------------------------------------------------===//

def TPPropagatePass : Pass<"tp-propagate", "::mlir::func::FuncOp"> {
  let summary = "Propagate placements through unannotated ops";
  let description = [{
    Gives every value downstream of a distributed tensor a placement, using
    each op's sharding rule: element-wise ops keep a shard, a `Partial`
    operand is reduced before a non-linear op, ops without a rule get
    replicated operands. Where a value with a known placement meets a
    declared layout (`tp.distribute` of a distributed value), a
    `tp.redistribute` is inserted, so N ranks always compute what one rank
    computes.

    A function pass: the mesh is looked up in the module around the
    function, never changed.
  }];
}

def TPDifferentiatePass : Pass<"tp-differentiate", "::mlir::ModuleOp"> {
  let summary = "Turn a model ending in a scalar loss into a training step";
  let description = [{
    Reverse-mode differentiation: each model function whose first result
    is a scalar loss returns the loss (not its other results, such as the
    logits of a `forward(input_ids, labels=...)`) and then the gradient of
    every parameter
    (one result per FQN, marked `tp.grad_of`; a tied parameter's uses are
    summed). The backward ops (`model.linear_grad_input`, ...) are ordinary
    model ops with sharding rules: on a placed program (after
    tp-lower-styles) placements are propagated through them like the
    forward ones, so their communication is lowered by the same passes. A
    model op without a backward rule is an error naming it. The backward
    ops are marked `tp.phase = #tp.phase<backward>`, and so is the
    communication inserted for them.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPMixedPrecisionPass : Pass<"tp-mixed-precision", "::mlir::func::FuncOp"> {
  let summary = "Compute in bf16 or f16 on f32 master parameters";
  let description = [{
    FSDP2's `MixedPrecisionPolicy(param_dtype=...)`: the f32 parameters stay
    f32 (the masters the optimizer steps, its state and checkpoints) and
    the model computes in `param-dtype`. Each parameter is read through a
    `model.cast` to it right after it is placed, so FSDP gathers the 16-bit
    shard; every f32 value computed from the parameters and the inputs is
    retyped, a float input cast where it is read; the cross entropy (also
    loss_parallel's steps) reads its logits cast to f32 and computes the
    loss in f32, as torchtitan does; a `model.generic` or an op of another
    dialect computes in f32 on operands cast back; each result is cast back
    to the type the function returns, so the signature does not change.

    On a placed model (after tp-lower-styles) or one without a mesh, before
    tp-differentiate: the backward of a parameter's cast is its gradient
    widened to f32, and a Partial gradient passes that cast, so it is
    reduced in f32 (tp-optimizer-step's `reduce-dtype` can reduce it in
    16 bits instead). A model without f32 parameters (built in bf16) is an
    error; `param-dtype=f32` changes nothing.

    ```mlir
    %w = model.param "w1.weight" : tensor<64x32xf32>
    %s = tp.distribute %w : tensor<64x32xf32> -> !tp.dtensor<64x32xf32, @mesh, [#tp.shard<0>]>
    %c = model.cast %s : (!tp.dtensor<64x32xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<64x32xbf16, @mesh, [#tp.shard<0>]>
    ```
  }];
  let options = [
    Option<"paramDtype", "param-dtype", "std::string", /*default=*/"\"bf16\"",
           "The compute dtype: bf16, f16 or f32 (no change)">
  ];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPOptimizerStepPass : Pass<"tp-optimizer-step", "::mlir::ModuleOp"> {
  let summary = "Update every parameter from its gradient (SGD or AdamW)";
  let description = [{
    After tp-differentiate: each parameter's gradient feeds an update op
    (`model.sgd_update`, `model.adamw_update`, PyTorch's algorithms) whose
    result, the updated parameter, the training step also returns (marked
    `tp.updated`); the executor keeps it and the optimizer state (sharded as
    the parameter) for the next step. The gradient is brought to the
    parameter's placement by the update's sharding rule: a Partial gradient
    of a replicated parameter is reduced there, in the optimizer's phase
    (the updates are marked `tp.phase = #tp.phase<optimizer>`). A parameter
    read in two placements is an error.

    With `reduce-dtype` (FSDP2's `reduce_dtype`), each gradient that is
    reduced over ranks (a Partial where its parameter is not) is reduced in
    that dtype: a mixed-precision parameter's gradient (tp-mixed-precision:
    its 16-bit gradient widened to f32) is reduced before it is widened
    when `reduce-dtype` is its 16-bit type, after it otherwise; a 16-bit
    gradient with `reduce-dtype=f32` is widened, reduced and narrowed back.
    A gradient computed in f32 is not reduced in fewer bits.

    With `max-grad-norm`, the gradients are first scaled as
    torch.nn.utils.clip_grad_norm_ does: `model.sum_squares` of all of them
    (a partial sum over the ranks that shard them, so one scalar
    all_reduce), `model.clip_coefficient`, and a `model.mul` of each
    gradient; the step returns the clipped gradients.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect"];
  let options = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd or adamw">,
    Option<"lr", "lr", "double", /*default=*/"0.01", "Learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum">,
    Option<"dampening", "dampening", "double", /*default=*/"0.0",
           "SGD dampening">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"-1.0",
           "Weight decay (negative: the optimizer's default, 0 for SGD and "
           "0.01 for AdamW)">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD Nesterov momentum">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "AdamW beta2">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "AdamW eps">,
    Option<"maxGradNorm", "max-grad-norm", "double", /*default=*/"0.0",
           "Clip the gradients to this global 2-norm first (0: no clipping)">,
    Option<"reduceDtype", "reduce-dtype", "std::string", /*default=*/"\"\"",
           "Reduce the gradients over ranks in this dtype: f32, bf16 or f16 "
           "(default: each gradient's own)">
  ];
}

def TPOptimizePass : Pass<"tp-optimize", "::mlir::func::FuncOp"> {
  let summary = "Remove redistributions the math does not need";
  let description = [{
    Folds identity redistributions, composes chains (`A -> B -> C` becomes
    `A -> C`, so inverse pairs cancel and `Partial -> Replicate -> Shard(d)`
    becomes one reduce_scatter), distributes a full tensor straight to the
    placement it is redistributed to (no communication), and lets consumers
    of the same redistribution share one. A linear's weight gradient computed
    whole and then chunked (Replicate -> Shard(0) or Shard(1): the update of a
    column- or row-parallel weight whose output gradient is replicated) is
    computed from the chunked output gradient or input instead, 1/n of the
    GEMM on each rank; a training step that also returns the whole gradient
    returns it laid out as its parameter. A function pass: it rewrites one
    function's body (and, for such a gradient, its result type).
  }];
}

//===----------------------------------------------------------------------===//
// Lowering to the SPMD program
//===----------------------------------------------------------------------===//

def TPLowerRedistributePass
    : Pass<"tp-lower-redistribute", "::mlir::func::FuncOp"> {
  let summary = "Lower redistributions to collectives";
  let description = [{
    Rewrites each `tp.redistribute` into `tp.to_local`, the collectives of
    the redistribution table (one per changed mesh axis: all_gather, all_reduce,
    reduce_scatter, all_to_all, or a local `tp.chunk`) and `tp.from_local`.
    Replicate -> Partial is the local `tp.partial_from_replicate`, after every
    other step; Partial(a) -> Partial(b) is all_reduce(a) and then that op.
    Shard -> Partial on an axis of more than one rank is an error (DTensor
    does not support it): redistribute to Replicate() first. A function
    pass: it rewrites one function's body and only looks meshes up.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPPartitionPass : Pass<"tp-partition", "::mlir::func::FuncOp"> {
  let summary = "Turn the distributed program into one SPMD function";
  let description = [{
    Replaces every `!tp.dtensor` by this rank's local tensor type, removes
    `tp.from_local`/`tp.to_local` pairs, turns `tp.distribute` into local
    `tp.chunk` (Shard axes) and `tp.partial_from_replicate` (Partial axes)
    ops, and inlines composite modules. Function results that stay
    distributed keep their global `!tp.dtensor` types in the
    `tp.result_types` function attribute so a runtime can reassemble them.

    A function pass: it rewrites one function and its own signature
    (tp-propagate hands a `func.call` only replicated, plain tensors, so
    no caller sees a distributed type change); meshes are only looked up.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPMergeCollectivesPass
    : Pass<"tp-merge-collectives", "::mlir::func::FuncOp"> {
  let summary = "Fuse chained all_reduces and bucket independent ones";
  let description = [{
    On the partitioned program (local tensors), two rewrites that leave
    every value the same and communicate less:

    * An all_reduce of an all_reduce of the same reduction over other mesh
      axes of the same mesh, the inner one used only there, is one
      all_reduce over both sets of axes (a Partial on two mesh axes reduced
      at once: one collective over the whole group instead of two).
    * All_reduces of the same mesh axes, reduction and element type whose
      results are not read before the last of them (the gradients the
      optimizer reads at the end of a training step, the loss) are one
      bucket: `tp.pack` their inputs into one 1-D tensor where the last of
      them was, all_reduce it once, and `tp.unpack` each result. A bucket
      holds at most `bucket-bytes` (as PyTorch DDP's bucket_cap_mb; 0: no
      limit); tensors of a dynamic shape (uneven shards) stay alone.

    A function pass: it rewrites one function's body.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t",
           /*default=*/"25 * 1024 * 1024",
           "Largest bucket in bytes per rank (0: no limit)">
  ];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPCSEPass : Pass<"tp-cse", "::mlir::func::FuncOp"> {
  let summary = "Merge identical ops, whatever training phase they serve";
  let description = [{
    MLIR's common subexpression elimination, except that the `tp.phase`
    mark does not count: a backward op equal to a forward one (the same
    collective of the same value for the same module, say) is computed
    once. Of equal ops the first in program order survives, with its
    phase, so that communication the forward already did is not counted
    again for the backward, and nothing moves to another phase. The
    pipeline runs it after tp-partition, where ranks' collectives are
    Pure ops on local tensors. A function pass.
  }];
}

def TPFSDPUnitsPass : Pass<"tp-fsdp-units", "::mlir::func::FuncOp"> {
  let summary = "One all_gather and one reduce_scatter per FSDP unit";
  let description = [{
    On a partitioned program whose plan has an `fsdp_axis`: the parameters
    of one FSDP unit (a module matching the plan's `fsdp_units`, default
    `layers.*`; parameters in no unit belong to the root's) are gathered
    over the axis by one all_gather per phase instead of one each, as
    FSDP2 gathers a unit's flat parameter: their shards are packed
    (`tp.pack`), gathered at the unit's first gather, and each parameter is
    cut out of the gathered buffer (`model.reshape`, `model.slice`). Their
    gradients are reduce-scattered by one reduce_scatter once the last of
    them is computed: each gradient's rows are laid out rank by rank
    (`model.reshape`, `model.concat`) so that the scatter gives every rank
    the pieces of its shards, read out by `tp.unpack`. The collectives
    carry the unit's FQN as their module. Parameters whose shards differ in
    size between ranks (uneven), or that a unit holds alone, keep their
    own collectives.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPFSDPPrefetchPass : Pass<"tp-fsdp-prefetch", "::mlir::func::FuncOp"> {
  let summary = "Gather each FSDP unit's parameters while the unit before "
                "it computes";
  let description = [{
    On a partitioned program whose plan has an `fsdp_axis`, after
    tp-fsdp-units: FSDP2's prefetch as a schedule. The parameter gathers
    over the axis (a unit's, or a lone parameter's) of each phase are taken
    in program order, and each moves up to right before the first op that
    reads the gather before it, together with the pure ops that make its
    operand (the parameters, their chunks and casts, the unit's pack). In
    the forward, unit k+1's gather is issued before unit k computes; in the
    backward, the next unit in backward order. The executor runs a
    collective whose result is read later while the instructions between
    run, so the gather overlaps the previous unit's compute; its buffer is
    live from the new position, which the memory report counts (one more
    unit's parameters, as FSDP2 holds). The collectives themselves do not
    change. The pipeline runs it last, unless `fsdp-prefetch=false`.
  }];
}

def TPRegatherPass : Pass<"tp-regather", "::mlir::func::FuncOp"> {
  let summary = "Gather again in the backward what the forward gathered";
  let description = [{
    On a partitioned training step: each forward `tp.all_gather` whose
    result a backward (or optimizer) op reads is cloned right before the
    first such reader, which reads the clone (marked with that reader's
    phase). The forward's gathered value then dies in the forward and only
    its shard lives across the step: under sequence parallelism the
    activations kept for the backward fall as 1/np (Megatron-LM's choice),
    for one more all_gather each in the backward. The pipeline runs it with
    `regather=true`.

    With `parameters-only`, only the gathers of parameter shards over the
    plan's `fsdp_axis` are cloned, and only when the plan's
    `reshard_after_forward` is true (its default): FSDP's parameters are
    freed after the forward and gathered again for the backward. A unit
    of the plan's `fsdp_units` (the root: the parameters of none) is
    cloned only when another unit is first gathered between its last
    forward reader and its first backward one; otherwise (the root's, the
    last layer's) it stays gathered, as FSDP2 keeps its root module and
    torchtitan its last block: freed, it would be gathered again at once.
    The pipeline runs it so on every training step.
  }];
  let options = [
    Option<"parametersOnly", "parameters-only", "bool", /*default=*/"false",
           "Only FSDP's parameter gathers, as the plan's "
           "reshard_after_forward says">
  ];
  let dependentDialects = ["::mlir::tp::TPDialect"];
}

def TPCommReportPass : Pass<"tp-comm-report", "::mlir::ModuleOp"> {
  let summary = "Count collectives and bytes per rank, per module";
  let description = [{
    Prints a table of the collectives in the partitioned program (count and
    bytes each rank sends into them, per module and per phase of a training
    step, like PyTorch's CommDebugMode) and, with `json`, writes the same as
    JSON: `{"bytes_per_rank": N, "collectives": {...},
    "collectives_by_phase": {"backward": {...}, "forward": {...},
    "optimizer": {...}}, "modules": {...}, "modules_by_phase": {...}}`.
    A collective's phase is its `tp.phase` (forward when unmarked), so a
    program that is not a training step is all forward.
  }];
  let options = [
    Option<"jsonFile", "json", "std::string", /*default=*/"\"\"",
           "Write the report as JSON to this file ('-' for stdout)">,
    Option<"printTable", "table", "bool", /*default=*/"true",
           "Print the readable table to stderr">
  ];
}

#endif // TP_DIALECT_TP_TRANSFORMS_PASSES_TD
