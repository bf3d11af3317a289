//===- TPTypes.h - tp distributed tensor type -------------------*- C++ -*-===//
//
// The `!tp.dtensor` type and helpers that treat tensors and distributed
// tensors alike (global shape, element type).
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPTYPES_H
#define TP_DIALECT_TP_IR_TPTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "tp/Dialect/TP/IR/TPAttrs.h"

#define GET_TYPEDEF_CLASSES
#include "tp/Dialect/TP/IR/TPTypes.h.inc"

namespace mlir::tp {

/// True for ranked tensors and `!tp.dtensor`.
bool isTensorLike(Type type);

/// The global shape of a ranked tensor or distributed tensor.
ArrayRef<int64_t> getTensorLikeShape(Type type);

/// The element type of a ranked tensor or distributed tensor.
Type getTensorLikeElementType(Type type);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_IR_TPTYPES_H
