//===- TPOps.h - tp dialect operations --------------------------*- C++ -*-===//
//
// Mesh, DTensor and collective operations.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPOPS_H
#define TP_DIALECT_TP_IR_TPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tp/Dialect/TP/IR/TPAttrs.h"
#include "tp/Dialect/TP/IR/TPDialect.h"
#include "tp/Dialect/TP/IR/TPTypes.h"

namespace mlir::tp {
/// What a sharding rule decides for one mesh axis: the placement each
/// operand must have, and the placement of the result.
struct AxisRule {
  SmallVector<Attribute> operands;
  Attribute result;
};
} // namespace mlir::tp

#include "tp/Dialect/TP/IR/TPOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tp/Dialect/TP/IR/TPOps.h.inc"

namespace mlir::tp {

/// Looks up the mesh `sym` from `from`; emits an error at `from` if missing.
MeshOp lookupMesh(Operation *from, FlatSymbolRefAttr sym,
                  SymbolTableCollection *symbolTable = nullptr);

/// The local size of a dim of global size `size` split over `parts` ranks,
/// for rank `index` (torch.chunk rule: ceil(size/parts) for the first ranks,
/// the remainder or zero for the last ones).
int64_t chunkSize(int64_t size, int64_t parts, int64_t index);

/// The local (per-rank) type of `type` on `mesh` when every dim divides
/// evenly; a dim that does not divide evenly becomes dynamic.
RankedTensorType getLocalType(DTensorType type, MeshOp mesh);

/// The largest local shape of `type` over the ranks of `mesh`: rank 0's,
/// since torch.chunk's first pieces are the largest (a dim split over
/// several axes is ceil(size / their product)). Static where getLocalType
/// is dynamic.
SmallVector<int64_t> getMaxLocalShape(DTensorType type, MeshOp mesh);

/// Prints what a format's `attr-dict` prints for `op` (its attributes other
/// than `elided`, by name, as `{...}`, nothing when none is left) without
/// building the op's attribute dictionary. ODS's printers ask for
/// `getAttrs()`, which for an op with properties uniques a new
/// DictionaryAttr each time it is printed; the ops that every partitioned
/// program holds by the thousand (tp.chunk, tp.all_reduce, model.param,
/// model.linear, the unary model ops) print through this instead.
void printAttrDict(OpAsmPrinter &p, Operation *op,
                   ArrayRef<StringRef> elided = {});

/// Parses an optional attr-dict into `result`, checking the op's inherent
/// attributes in it as an ODS-generated parser does.
ParseResult parseAttrDict(OpAsmParser &parser, OperationState &result);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_IR_TPOPS_H
