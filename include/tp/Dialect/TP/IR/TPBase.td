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
  // `tp.result_types` / `tp.arg_types` on a partitioned function: one type
  // per result / argument.
  let hasOperationAttrVerify = 1;
  // `tp.local` on a function result: PyTorch returns it as a local tensor.
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
