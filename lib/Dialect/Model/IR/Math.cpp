//===- Math.cpp - pointwise math ops: backward rules -------------*- C++
//-*-===//
//
// The ATen pointwise functions (tanh, sigmoid, sqrt, rsqrt, erf,
// reciprocal, pow with a number, true division) and dtype casts. Their
// verifiers and sharding rules are their families' (Model_MathOp in
// ModelOps.td, the broadcasting binary rule); each backward is its derivative
// written with other model ops, so it needs no kernel, rule or export of its
// own, and its placements are propagated like any forward op's.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/Model/IR/GradientBuilder.h"
#include "tp/Dialect/TP/IR/AxisRules.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

// d tanh(x) = (1 - y^2) dx, with y = tanh(x).
LogicalResult TanhOp::backward(GradientBuilder &b, Value grad) {
  Value y = getResult();
  b.accumulate(getInput(), b.mul(grad, b.sub(b.scalar(1.0, y), b.mul(y, y))));
  return success();
}

// d sigmoid(x) = y (1 - y) dx.
LogicalResult SigmoidOp::backward(GradientBuilder &b, Value grad) {
  Value y = getResult();
  b.accumulate(getInput(), b.mul(grad, b.mul(y, b.sub(b.scalar(1.0, y), y))));
  return success();
}

// d sqrt(x) = dx / (2 y).
LogicalResult SqrtOp::backward(GradientBuilder &b, Value grad) {
  Value y = getResult();
  b.accumulate(getInput(), b.div(b.mul(grad, b.scalar(0.5, y)), y));
  return success();
}

// d x^(-1/2) = -1/2 x^(-3/2) dx = -1/2 y^3 dx.
LogicalResult RsqrtOp::backward(GradientBuilder &b, Value grad) {
  Value y = getResult();
  Value y3 = b.mul(y, b.mul(y, y));
  b.accumulate(getInput(), b.mul(grad, b.mul(b.scalar(-0.5, y), y3)));
  return success();
}

// d erf(x) = 2 / sqrt(pi) exp(-x^2) dx.
LogicalResult ErfOp::backward(GradientBuilder &b, Value grad) {
  Value x = getInput();
  Value e = ExpOp::create(b.getBuilder(), getLoc(),
                          GradientBuilder::gradType(x), b.neg(b.mul(x, x)));
  b.accumulate(x, b.mul(grad, b.mul(b.scalar(2.0 / std::sqrt(M_PI), x), e)));
  return success();
}

// d (1/x) = -y^2 dx.
LogicalResult ReciprocalOp::backward(GradientBuilder &b, Value grad) {
  Value y = getResult();
  b.accumulate(getInput(), b.neg(b.mul(grad, b.mul(y, y))));
  return success();
}

//===----------------------------------------------------------------------===//
// pow
//===----------------------------------------------------------------------===//

LogicalResult PowOp::verify() { return verifyFloatUnary(*this); }

AxisRule PowOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // x^1 is the identity and x^0 a constant; otherwise not linear.
  return AxisRuleBuilder(getContext(), n).unary(in);
}

// d x^p = p x^(p-1) dx (x^0 has none).
LogicalResult PowOp::backward(GradientBuilder &b, Value grad) {
  Value x = getInput();
  double p = getExponent().convertToDouble();
  if (p == 0.0)
    return success();
  Value dydx = b.scalar(p, x);
  if (p != 1.0) {
    Value lower = p == 2.0
                      ? x
                      : PowOp::create(b.getBuilder(), getLoc(),
                                      GradientBuilder::gradType(x), x,
                                      b.getBuilder().getF64FloatAttr(p - 1));
    dydx = b.mul(lower, dydx);
  }
  b.accumulate(x, b.mul(grad, dydx));
  return success();
}

//===----------------------------------------------------------------------===//
// div
//===----------------------------------------------------------------------===//

LogicalResult DivOp::verify() {
  if (failed(verifyFloatOperands(*this)))
    return failure();
  return verifyBroadcast(*this);
}

AxisRule DivOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // Linear in the dividend alone: a Partial(sum) over a Replicate divisor
  // stays Partial.
  FactorRule rule = FactorRule::elementwise(
      {SmallVector<int64_t>(shapeOf(getLhs())),
       SmallVector<int64_t>(shapeOf(getRhs()))},
      shapeOf(getResult()), FactorRule::Linearity::FirstOperand);
  return AxisRuleBuilder(getContext(), n).fromFactors(rule, in);
}

// d (a / b) = da / b - (y / b) db, with y = a / b.
LogicalResult DivOp::backward(GradientBuilder &b, Value grad) {
  Value x = getLhs(), y = getRhs();
  if (b.isActive(x))
    b.accumulate(x, b.sumTo(b.div(grad, y), x));
  if (b.isActive(y))
    b.accumulate(y, b.sumTo(b.neg(b.div(b.mul(grad, getResult()), y)), y));
  return success();
}

// d |x| = sign(x) dx, with sign(0) = 0 (PyTorch's): (x > 0) - (x < 0).
LogicalResult AbsOp::backward(GradientBuilder &b, Value grad) {
  Value x = getInput();
  RankedTensorType type = GradientBuilder::gradType(x);
  auto mask =
      RankedTensorType::get(type.getShape(), IntegerType::get(getContext(), 1));
  auto side = [&](StringRef predicate) {
    Value m = CompareOp::create(b.getBuilder(), getLoc(), mask, x,
                                b.scalar(0.0, x), predicate);
    return CastOp::create(b.getBuilder(), getLoc(), type, m).getResult();
  };
  b.accumulate(x, b.mul(grad, b.sub(side("gt"), side("lt"))));
  return success();
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  Type to = getTensorLikeElementType(getResult().getType());
  Type from = getTensorLikeElementType(getInput().getType());
  auto supported = [](Type t) { return t.isF32() || t.isBF16() || t.isF16(); };
  if (!supported(to) && !to.isInteger(1))
    return emitOpError() << "casts to f32, bf16, f16 or i1, not " << to;
  if (!supported(from) && !from.isSignlessInteger(64) &&
      !from.isSignlessInteger(32) && !from.isInteger(1))
    return emitOpError() << "casts from a float, i64, i32 or i1 tensor, not "
                         << from;
  return verifyUnary(*this);
}

AxisRule CastOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // A widening float cast (bf16 or f16 to f32) converts each rank's part
  // exactly, so a partial sum passes and is then summed in f32, at least as
  // accurately as in 16 bits: a mixed-precision gradient is reduced in
  // f32. Any other cast rounds, and rounding the parts is not rounding the
  // sum: a Partial is reduced first.
  auto from =
      dyn_cast<FloatType>(getTensorLikeElementType(getInput().getType()));
  auto to =
      dyn_cast<FloatType>(getTensorLikeElementType(getResult().getType()));
  AxisRuleBuilder rules(getContext(), n);
  if (from && to && to.isF32() && (from.isBF16() || from.isF16()))
    return rules.linearUnary(in);
  return rules.unary(in);
}

LogicalResult CastOp::backward(GradientBuilder &b, Value grad) {
  Value x = getInput();
  if (!isa<FloatType>(getTensorLikeElementType(x.getType())))
    return success(); // ids carry no gradient
  b.accumulate(x, CastOp::create(b.getBuilder(), getLoc(),
                                 GradientBuilder::gradType(x), grad));
  return success();
}
