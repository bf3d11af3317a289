//===- Masks.cpp - comparisons, logic and where: rules, gradients -*- C++
//-*-===//
//
// The ops of boolean masks: compare (floats or integers to i1), the logical
// ops on i1, and where, which selects between two float tensors by a mask
// (masked_fill is a where). All broadcast as NumPy does; their sharding
// rules are element-wise with no linearity (a Partial operand is reduced
// first: a comparison of a partial sum is not a sum of comparisons). Only
// where has a gradient: masks are integers, which tp-differentiate never
// differentiates.
//
//===----------------------------------------------------------------------===//

#include "FamilyRules.h"

#include "tp/Dialect/Model/IR/GradientBuilder.h"
#include "tp/Dialect/TP/IR/AxisRules.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

static Type eltOf(Value v) { return getTensorLikeElementType(v.getType()); }

/// The operands broadcast to the result's shape (NumPy rules).
static LogicalResult verifyBroadcastAll(Operation *op) {
  SmallVector<int64_t> shape;
  for (Value v : op->getOperands()) {
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, shapeOf(v), next))
      return op->emitOpError()
             << "operand shapes do not broadcast: " << shapeStr(shape)
             << " and " << shapeStr(shapeOf(v));
    shape = std::move(next);
  }
  return expectShape(op, "result", shapeOf(op->getResult(0)), shape);
}

static LogicalResult expectMask(Operation *op, StringRef what, Value v) {
  if (!eltOf(v).isInteger(1))
    return op->emitOpError()
           << what << " must be an i1 tensor, not " << eltOf(v);
  return success();
}

static bool isNumber(Type t) {
  return isa<FloatType>(t) || t.isSignlessInteger(64) ||
         t.isSignlessInteger(32) || t.isInteger(1);
}

LogicalResult CompareOp::verify() {
  static constexpr StringLiteral predicates[] = {"eq", "ne", "lt",
                                                 "le", "gt", "ge"};
  if (!llvm::is_contained(predicates, getPredicate()))
    return emitOpError() << "predicate must be eq, ne, lt, le, gt or ge, not '"
                         << getPredicate() << "'";
  for (Value v : {getLhs(), getRhs()})
    if (!isNumber(eltOf(v)))
      return emitOpError() << "compares float or integer tensors, not "
                           << eltOf(v);
  if (failed(expectMask(*this, "result", getResult())))
    return failure();
  return verifyBroadcastAll(*this);
}

/// Operands and result of a logical op are i1 tensors that broadcast.
static LogicalResult verifyLogical(Operation *op) {
  for (Value v : op->getOperands())
    if (failed(expectMask(op, "operand", v)))
      return failure();
  if (failed(expectMask(op, "result", op->getResult(0))))
    return failure();
  return verifyBroadcastAll(op);
}

LogicalResult LogicalNotOp::verify() { return verifyLogical(*this); }
LogicalResult LogicalAndOp::verify() { return verifyLogical(*this); }
LogicalResult LogicalOrOp::verify() { return verifyLogical(*this); }

LogicalResult WhereOp::verify() {
  if (failed(expectMask(*this, "condition", getCondition())))
    return failure();
  Type t = eltOf(getResult());
  if (!isa<FloatType>(t))
    return emitOpError() << "selects float tensors, not " << t;
  for (Value v : {getX(), getY()})
    if (eltOf(v) != t)
      return emitOpError() << "operand of element type " << eltOf(v)
                           << " does not match the result's " << t;
  return verifyBroadcastAll(*this);
}

//===----------------------------------------------------------------------===//
// Sharding rules
//===----------------------------------------------------------------------===//

AxisRule CompareOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return elementwiseRule(*this, in, n, FactorRule::Linearity::None);
}
AxisRule LogicalNotOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return elementwiseRule(*this, in, n, FactorRule::Linearity::None);
}
AxisRule LogicalAndOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return elementwiseRule(*this, in, n, FactorRule::Linearity::None);
}
AxisRule LogicalOrOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return elementwiseRule(*this, in, n, FactorRule::Linearity::None);
}
AxisRule WhereOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return elementwiseRule(*this, in, n, FactorRule::Linearity::None);
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

// d where(c, x, y) = where(c, g, 0) for x and where(c, 0, g) for y, each
// summed back to its operand's shape.
LogicalResult WhereOp::backward(GradientBuilder &b, Value grad) {
  Value zero = b.scalar(0.0, getResult());
  RankedTensorType type = GradientBuilder::gradType(getResult());
  auto pick = [&](Value ifTrue, Value ifFalse) {
    return WhereOp::create(b.getBuilder(), getLoc(), type, getCondition(),
                           ifTrue, ifFalse)
        .getResult();
  };
  if (b.isActive(getX()))
    b.accumulate(getX(), b.sumTo(pick(grad, zero), getX()));
  if (b.isActive(getY()))
    b.accumulate(getY(), b.sumTo(pick(zero, grad), getY()));
  return success();
}
