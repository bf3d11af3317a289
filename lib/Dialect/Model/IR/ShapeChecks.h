//===- ShapeChecks.h - shape checks of the model ops' verifiers -*- C++ -*-===//
//
// Private to lib/Dialect/Model/IR: the checks the ops' verifiers share
// (each family's file has its ops' verifiers). Shapes are those of whatever
// the operands are (global tensors, dtensors (global shape) or, after
// partitioning, local tensors); dynamic (uneven) sizes match anything.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_DIALECT_MODEL_IR_SHAPECHECKS_H
#define TP_LIB_DIALECT_MODEL_IR_SHAPECHECKS_H

#include "tp/Dialect/Model/IR/ModelOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tp::model::detail {

inline ArrayRef<int64_t> shapeOf(Value v) {
  return getTensorLikeShape(v.getType());
}

/// `dim` counted from the front (PyTorch's negative dims count from the
/// back of a tensor of `rank` dims); attributes are stored unsigned.
inline int64_t frontDim(uint64_t dim, size_t rank) {
  int64_t d = static_cast<int64_t>(dim);
  return d < 0 ? d + static_cast<int64_t>(rank) : d;
}

inline bool sameSize(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

inline std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}

inline LogicalResult expectShape(Operation *op, StringRef what,
                                 ArrayRef<int64_t> actual,
                                 ArrayRef<int64_t> expected) {
  bool ok = actual.size() == expected.size();
  for (size_t i = 0; ok && i < actual.size(); ++i)
    ok = sameSize(actual[i], expected[i]);
  if (!ok)
    return op->emitOpError() << what << " has shape " << shapeStr(actual)
                             << ", expected " << shapeStr(expected);
  return success();
}

/// A dropout probability `p` in [0, 1): NaN is refused too (it compares
/// false both ways), as tp-run and PyTorch refuse it.
inline LogicalResult verifyDropoutP(Operation *op, APFloat p) {
  double v = p.convertToDouble();
  if (!(v >= 0 && v < 1))
    return op->emitOpError()
           << "dropout probability must be in [0, 1), got " << v;
  return success();
}

inline LogicalResult verifyUnary(Operation *op) {
  return expectShape(op, "result", shapeOf(op->getResult(0)),
                     shapeOf(op->getOperand(0)));
}

/// Operands and the result of a float math op (tanh, rsqrt, pow, div) are
/// float tensors of one element type.
inline LogicalResult verifyFloatOperands(Operation *op) {
  Type want = getTensorLikeElementType(op->getResult(0).getType());
  if (!isa<FloatType>(want))
    return op->emitOpError() << "computes on float tensors, not " << want;
  for (Value v : op->getOperands())
    if (getTensorLikeElementType(v.getType()) != want)
      return op->emitOpError() << "operand of element type "
                               << getTensorLikeElementType(v.getType())
                               << " does not match the result's " << want;
  return success();
}

inline LogicalResult verifyFloatUnary(Operation *op) {
  if (failed(verifyFloatOperands(op)))
    return failure();
  return verifyUnary(op);
}

inline LogicalResult verifyBroadcast(Operation *op) {
  auto a = shapeOf(op->getOperand(0)), b = shapeOf(op->getOperand(1));
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != 1 && db != 1 && !sameSize(da, db))
      return op->emitOpError() << "shapes " << shapeStr(a) << " and "
                               << shapeStr(b) << " do not broadcast";
    out[i] = da == 1 ? db : da;
  }
  return expectShape(op, "result", shapeOf(op->getResult(0)), out);
}

/// `dim` (an I64Attr's value, read as signed) within `rank`, normalized.
inline FailureOr<int64_t> normalizedDim(Operation *op, int64_t dim,
                                        int64_t rank) {
  if (dim < -rank || dim >= rank)
    return op->emitOpError()
           << "dim " << dim << " is out of range for rank " << rank;
  return dim < 0 ? dim + rank : dim;
}

/// Attention's q [b, s, h, d] and k, v [b, t, hkv, d] (forward and
/// backward).
inline LogicalResult verifyAttentionOperands(Operation *op, ArrayRef<int64_t> q,
                                             ArrayRef<int64_t> k,
                                             ArrayRef<int64_t> v) {
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return op->emitOpError("attention operands must be [batch, seq, heads, "
                           "head_dim]");
  if (failed(expectShape(op, "value", v, k)))
    return failure();
  if (!sameSize(q[0], k[0]) || !sameSize(q[1], k[1]) || !sameSize(q[3], k[3]))
    return op->emitOpError()
           << "query " << shapeStr(q) << " and key " << shapeStr(k)
           << " disagree on batch, seq or head_dim";
  if (!ShapedType::isDynamic(q[2]) && !ShapedType::isDynamic(k[2]) &&
      (k[2] == 0 || q[2] % k[2]))
    return op->emitOpError()
           << "query heads (" << q[2] << ") must be a multiple of kv heads ("
           << k[2] << ")";
  return success();
}

/// A mean's divisor set by tp-partition (the global count of a shard's
/// elements or rows) counts at least one.
inline LogicalResult verifyCount(Operation *op, std::optional<uint64_t> count) {
  if (count && static_cast<int64_t>(*count) < 1)
    return op->emitOpError()
           << "count must be positive, not " << static_cast<int64_t>(*count);
  return success();
}

} // namespace mlir::tp::model::detail

#endif // TP_LIB_DIALECT_MODEL_IR_SHAPECHECKS_H
