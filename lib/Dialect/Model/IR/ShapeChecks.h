//===- ShapeChecks.h - shape checks of the model ops' verifiers -*- C++ -*-===//
//
// Private to lib/Dialect/Model/IR: the checks the forward ops' verifiers
// (ModelOps.cpp) and the backward ops' (ModelGradOps.cpp) share. Shapes are
// those of whatever the operands are (global tensors, dtensors, local
// tensors); dynamic sizes match anything.
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

inline LogicalResult verifyUnary(Operation *op) {
  return expectShape(op, "result", shapeOf(op->getResult(0)),
                     shapeOf(op->getOperand(0)));
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

} // namespace mlir::tp::model::detail

#endif // TP_LIB_DIALECT_MODEL_IR_SHAPECHECKS_H
