//===- FamilyRules.h - sharding rules op families share ---------*- C++ -*-===//
//
// Private to lib/Dialect/Model/IR: the factor rules (AxisRules.h) that
// several ops' getAxisRule build from their operands' shapes.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_DIALECT_MODEL_IR_FAMILYRULES_H
#define TP_LIB_DIALECT_MODEL_IR_FAMILYRULES_H

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

namespace mlir::tp::model::detail {

/// The rule of an op whose operands and result differ only along `dim`,
/// which is never sharded (slice, concat, topk, gather).
inline AxisRule alongDimsRule(Operation *op, ArrayRef<Attribute> in,
                              int64_t axisSize, int64_t dim,
                              FactorRule::Linearity linearity) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : op->getOperands())
    shapes.emplace_back(shapeOf(v));
  int64_t d = frontDim(dim, shapes.front().size());
  return AxisRuleBuilder(op->getContext(), axisSize)
      .fromFactors(FactorRule::alongDims(shapes, d, linearity), in);
}

/// Element-wise over operands that broadcast to the result (compare,
/// where, the logical ops).
inline AxisRule elementwiseRule(Operation *op, ArrayRef<Attribute> in,
                                int64_t axisSize,
                                FactorRule::Linearity linearity) {
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : op->getOperands())
    shapes.emplace_back(shapeOf(v));
  return AxisRuleBuilder(op->getContext(), axisSize)
      .fromFactors(
          FactorRule::elementwise(shapes, shapeOf(op->getResult(0)), linearity),
          in);
}

} // namespace mlir::tp::model::detail

#endif // TP_LIB_DIALECT_MODEL_IR_FAMILYRULES_H
