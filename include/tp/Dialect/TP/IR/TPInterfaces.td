//===- TPInterfaces.td - tp attribute interfaces -----------*- tablegen -*-===//
//
// Interfaces shared by the placement family and the parallel-style family.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPINTERFACES_TD
#define TP_DIALECT_TP_IR_TPINTERFACES_TD

include "mlir/IR/OpBase.td"

def TP_PlacementAttrInterface : AttrInterface<"PlacementAttrInterface"> {
  let cppNamespace = "::mlir::tp";
  let description = [{
    A placement says how a tensor is laid out along one mesh axis: sharded on
    a tensor dim, replicated, or a pending reduction (partial).
  }];
  let methods = [
    InterfaceMethod<"Returns the PyTorch spelling, e.g. `Shard(1)`.",
      "std::string", "toTorchString", (ins)>,
  ];
}

// Marks the parallel-style attributes. The dialect checks styles with it
// (a plan's entries, `tp.style`), so that it needs nothing of what the
// interface below does with modules.
def TP_ParallelStyleAttrTrait : NativeAttrTrait<"ParallelStyleAttrTrait"> {
  let cppNamespace = "::mlir::tp";
}

def TP_ParallelStyleAttrInterface : AttrInterface<"ParallelStyleAttrInterface"> {
  let cppNamespace = "::mlir::tp";
  let description = [{
    A tensor-parallel style attached to a module (PyTorch's `ParallelStyle`):
    its name, which modules it applies to, how it checks its layouts against
    a module and how it lowers one, the last two through a `StyleBuilder`
    (`tp/Dialect/TP/Transforms/CustomStyles.h`), the same one a style
    registered from C++ lowers with.

    What a style does to modules needs the model dialect, which builds on
    this one, so the dialect only promises the interface to every attribute
    with `ParallelStyleAttrTrait`; `registerParallelStyleModels`
    (TPTransforms, called by `registerAllDialects`) attaches it as an
    external model that reads each style's definition
    (`tp/Dialect/TP/Transforms/StyleDefinition.h`).
  }];
  let methods = [
    InterfaceMethod<"Returns the PyTorch class name, e.g. `ColwiseParallel`.",
      "llvm::StringRef", "getStyleName", (ins)>,
    InterfaceMethod<[{Returns true when the style is deprecated (the seed's
      legacy API), and sets `replacement` to what to use instead.}],
      "bool", "isDeprecated", (ins "std::string &":$replacement),
      /*methodBody=*/"", /*defaultImplementation=*/"return false;">,
    InterfaceMethod<[{Returns true if the style can be applied to the module
      op `module` (a model leaf or composite module, or the model function
      for the root key).}],
      "bool", "supportsModule", (ins "::mlir::Operation *":$module)>,
    InterfaceMethod<[{Checks the style's layouts against the module
      `builder` lowers (shard dims in range for the inputs and outputs they
      describe); fails with a diagnostic naming the style and the module.}],
      "::llvm::LogicalResult", "verifyLayouts",
      (ins "::mlir::tp::StyleBuilder &":$builder)>,
    InterfaceMethod<[{Lowers the style on the module `builder` lowers:
      places its parameters, prepares its inputs and places its outputs.}],
      "::llvm::LogicalResult", "lower",
      (ins "::mlir::tp::StyleBuilder &":$builder)>,
  ];
}

def TP_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::tp";
  let description = [{
    The sharding rule of an op, one mesh axis at a time: given the placement
    of each operand on that axis (a plain tensor counts as `Replicate`), the
    placements the operands must have and the placement of the result.
    Operands are then redistributed to what the rule asks, so a rule is
    always free to ask for `Replicate` (always correct, maybe costly).
    `tp-propagate` uses it for every op: model ops declare it in their
    records (`Model_HasShardingRule`) and implement it next to the op, most
    through the family rules of `AxisRuleBuilder` (AxisRules.h); other
    dialects' ops join through external models. An op without it sees its
    operands replicated (always correct); a rule that does not give a
    placement to every operand and the result is an error.
  }];
  let methods = [
    InterfaceMethod<[{
      Returns the operand and result placements on a mesh axis of
      `axisSize` ranks, given the operands' current `placements` there.
    }], "::mlir::tp::AxisRule", "getAxisRule",
    (ins "::llvm::ArrayRef<::mlir::Attribute>":$placements,
         "int64_t":$axisSize)>,
  ];
}

#endif // TP_DIALECT_TP_IR_TPINTERFACES_TD
