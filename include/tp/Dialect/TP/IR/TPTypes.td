//===- TPTypes.td - tp distributed tensor type -------------*- tablegen -*-===//
//
// `!tp.dtensor`: a tensor with its global shape, element type, mesh and one
// placement per mesh axis.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPTYPES_TD
#define TP_DIALECT_TP_IR_TPTYPES_TD

include "tp/Dialect/TP/IR/TPBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def TP_DTensorType : TP_Type<"DTensor", "dtensor"> {
  let summary = "Distributed tensor: global shape, mesh and placements";
  let description = [{
    A distributed tensor as PyTorch's DTensor sees it: the shape is the
    global shape, and `placements` has one entry per axis of `mesh`.

    ```mlir
    !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
    !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.partial<sum>]>
    ```

    Shard dims are stored normalized (non-negative). The verifier checks the
    dims against the rank; the mesh rank is checked by the ops that use the
    type, which can see the mesh symbol.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"::mlir::Attribute">:$placements);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The global tensor type this distributed tensor stands for.
    ::mlir::RankedTensorType getGlobalType() const;
    int64_t getRank() const { return getShape().size(); }
  }];
}

#endif // TP_DIALECT_TP_IR_TPTYPES_TD
