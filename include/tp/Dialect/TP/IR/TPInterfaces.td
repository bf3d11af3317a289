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

def TP_ParallelStyleAttrInterface : AttrInterface<"ParallelStyleAttrInterface"> {
  let cppNamespace = "::mlir::tp";
  let description = [{
    A tensor-parallel style attached to a module (PyTorch's `ParallelStyle`).
  }];
  let methods = [
    InterfaceMethod<"Returns the PyTorch class name, e.g. `ColwiseParallel`.",
      "llvm::StringRef", "getStyleName", (ins)>,
    InterfaceMethod<[{Returns true when the style is deprecated (the seed's
      legacy API), and sets `replacement` to what to use instead.}],
      "bool", "isDeprecated", (ins "std::string &":$replacement),
      /*methodBody=*/"", /*defaultImplementation=*/"return false;">,
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
    `tp-propagate` uses it for every op; other dialects' ops join through
    external models (see `registerModelShardingRules`).
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
