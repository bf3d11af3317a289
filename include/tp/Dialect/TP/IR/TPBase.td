//===- TPBase.td - tp dialect definition -------------------*- tablegen -*-===//
//
// The tp dialect: device meshes, placements, distributed tensors, parallel
// styles and collectives.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPBASE_TD
#define TP_DIALECT_TP_IR_TPBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TP_Dialect : Dialect {
  let name = "tp";
  let cppNamespace = "::mlir::tp";
  let summary = "Tensor parallelism: meshes, placements, DTensors, styles, collectives";
  let description = [{
    The `tp` dialect models PyTorch's `torch.distributed.tensor` concepts in
    MLIR. A `tp.mesh` symbol names an N-D device mesh; placements
    (`#tp.shard<d>`, `#tp.replicate`, `#tp.partial<sum>`) say how a tensor is
    laid out along each mesh axis; `!tp.dtensor` is a tensor with its global
    shape and one placement per mesh axis; parallel-style attributes
    (`#tp.colwise`, `#tp.rowwise`, ...) carry PyTorch's style arguments; and
    collective ops (`tp.all_gather`, `tp.all_reduce`, ...) are the only
    communication in a partitioned program.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // The attributes tp passes attach to other ops to hand data to later
  // passes, the executor and tools. Each gets a helper on the dialect
  // (`TPDialect::StyleAttrHelper`, ...) so no pass spells a name, and each
  // is verified by `verifyOperationAttribute` (`local`, `grad_of` and
  // `updated`, result attributes, by `verifyRegionResultAttribute`): its
  // type and the ops it may sit on.
  let discardableAttrs = (ins
    // tp-apply-plan: the style a model module op (or a root-module
    // function) is parallelized with; consumed by tp-lower-styles.
    "::mlir::tp::ParallelStyleAttrInterface":$style,
    // tp-apply-plan: the applied plan, on the builtin module (its mesh and
    // axes are read by tp-lower-styles and tp-run).
    "::mlir::tp::PlanAttr":$plan,
    // tp-lower-styles: on a tp.distribute / tp.redistribute a style made,
    // the only mesh axis (i64) the style decided; read by tp-propagate.
    "::mlir::IntegerAttr":$tp_axis,
    // tp-lower-styles: on a function result PyTorch returns as each rank's
    // local tensor (use_local_output) rather than as a DTensor.
    "::mlir::UnitAttr":$local,
    // tp-differentiate: on a training-step function's result, the FQN of
    // the parameter it is the gradient of.
    "::mlir::StringAttr":$grad_of,
    // tp-optimizer-step: on a training step's result, the FQN of the
    // parameter it is the updated value of.
    "::mlir::StringAttr":$updated,
    // tp-differentiate and tp-optimizer-step: on the ops they add, the
    // phase of the training step they belong to (unmarked ops are the
    // forward's); the redistributions propagation inserts for an op, and
    // the collectives lowered from them, inherit its phase. Read by
    // tp-comm-report and the executor's statistics.
    "::mlir::tp::PhaseAttr":$phase,
    // tp-differentiate: on the clone of a forward op that the backward of
    // a recompute unit computes again (activation checkpointing), so that
    // tp-cse does not merge it back into the forward op it repeats.
    "::mlir::UnitAttr":$recomputed,
    // tp-partition: on a function, now per-rank SPMD code.
    "::mlir::UnitAttr":$spmd,
    // tp-partition: on a partitioned function, one tensor or dtensor type
    // per result / argument; runtimes reassemble results and cut inputs
    // with them.
    "::mlir::ArrayAttr":$result_types,
    "::mlir::ArrayAttr":$arg_types,
    // tp-partition: on an op whose one result became an uneven (dynamic)
    // local tensor, that result's largest shape over the ranks (rank 0's:
    // torch.chunk's first pieces are the largest); the executor's memory
    // plan counts the value at that size.
    "::mlir::DenseI64ArrayAttr":$local_bound
  );
  let hasOperationAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

/// The reduction a Partial placement or a reducing collective performs.
def TP_ReductionKind : I32EnumAttr<"ReductionKind", "reduction kind", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Avg", 1, "avg">,
    I32EnumAttrCase<"Max", 2, "max">,
    I32EnumAttrCase<"Min", 3, "min">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tp";
}

def TP_ReductionKindAttr : EnumAttr<TP_Dialect, TP_ReductionKind, "reduction"> {
  let assemblyFormat = "$value";
}

/// The phase of a training step an op belongs to (`tp.phase`).
def TP_Phase : I32EnumAttr<"Phase", "training step phase", [
    I32EnumAttrCase<"Forward", 0, "forward">,
    I32EnumAttrCase<"Backward", 1, "backward">,
    I32EnumAttrCase<"Optimizer", 2, "optimizer">
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tp";
}

def TP_PhaseAttr : EnumAttr<TP_Dialect, TP_Phase, "phase"> {
  let summary = "The phase of a training step an op belongs to";
  let description = [{
    `#tp.phase<backward>` (also `forward`, `optimizer`): the value of the
    discardable `tp.phase` attribute, which says which part of a training
    step an op computes. Only the ops tp-differentiate and
    tp-optimizer-step add carry it; an unmarked op is the forward's.
  }];
  let assemblyFormat = "`<` $value `>`";
}

class TP_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TP_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class TP_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TP_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class TP_Op<string mnemonic, list<Trait> traits = []>
    : Op<TP_Dialect, mnemonic, traits>;

#endif // TP_DIALECT_TP_IR_TPBASE_TD
