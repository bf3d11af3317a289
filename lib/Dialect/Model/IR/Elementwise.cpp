//===- Elementwise.cpp - element-wise ops: rules and gradients --*- C++ -*-===//
//
// The sharding rules and backward rules of the element-wise ops
// (activations, exp/log, neg, detach, the broadcasting binary ops,
// dropout) and of their backward ops (activation gradients, sum_to,
// dropout_grad), and their verifiers.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  if (failed(verifyDropoutP(*this, getP())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()),
                     shapeOf(getInput()));
}

LogicalResult ReluOp::verify() { return verifyUnary(*this); }
LogicalResult GeluOp::verify() { return verifyUnary(*this); }
LogicalResult SiluOp::verify() { return verifyUnary(*this); }
LogicalResult ExpOp::verify() { return verifyUnary(*this); }
LogicalResult LogOp::verify() { return verifyUnary(*this); }
LogicalResult DetachOp::verify() { return verifyUnary(*this); }
LogicalResult AddOp::verify() { return verifyBroadcast(*this); }
LogicalResult MulOp::verify() { return verifyBroadcast(*this); }
LogicalResult SubOp::verify() { return verifyBroadcast(*this); }

LogicalResult SumToOp::verify() {
  auto g = shapeOf(getGrad()), r = shapeOf(getResult());
  if (r.size() > g.size())
    return emitOpError() << "cannot sum " << shapeStr(g) << " to the larger "
                         << shapeStr(r);
  size_t lead = g.size() - r.size();
  for (size_t i = 0; i < r.size(); ++i)
    if (r[i] != 1 && !sameSize(r[i], g[lead + i]))
      return emitOpError() << "cannot sum " << shapeStr(g) << " to "
                           << shapeStr(r) << ": dim " << i << " is neither 1 "
                           << "nor " << g[lead + i];
  return success();
}

static LogicalResult verifyActivationGrad(Operation *op) {
  auto g = shapeOf(op->getOperand(0)), x = shapeOf(op->getOperand(1));
  if (failed(expectShape(op, "gradient", g, x)))
    return failure();
  return expectShape(op, "result", shapeOf(op->getResult(0)), x);
}

LogicalResult ReluGradOp::verify() { return verifyActivationGrad(*this); }
LogicalResult GeluGradOp::verify() { return verifyActivationGrad(*this); }
LogicalResult SiluGradOp::verify() { return verifyActivationGrad(*this); }
LogicalResult LogGradOp::verify() { return verifyActivationGrad(*this); }

LogicalResult DropoutGradOp::verify() {
  if (failed(verifyDropoutP(*this, getP())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), shapeOf(getGrad()));
}

LogicalResult NegOp::verify() { return verifyUnary(*this); }

/// The gradient of an activation `x -> f(x)`: GradOp(grad, x).
template <typename GradOp>
static LogicalResult activationBackward(GradientBuilder &b, Value x,
                                        Value grad) {
  b.accumulate(x, GradOp::create(b.getBuilder(), grad.getLoc(),
                                 GradientBuilder::gradType(x), grad, x));
  return success();
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

AxisRule ReluOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).unary(in);
}
LogicalResult ReluOp::backward(GradientBuilder &b, Value grad) {
  return activationBackward<ReluGradOp>(b, getInput(), grad);
}

AxisRule GeluOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).unary(in);
}
LogicalResult GeluOp::backward(GradientBuilder &b, Value grad) {
  return activationBackward<GeluGradOp>(b, getInput(), grad);
}

AxisRule SiluOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).unary(in);
}
LogicalResult SiluOp::backward(GradientBuilder &b, Value grad) {
  return activationBackward<SiluGradOp>(b, getInput(), grad);
}

AxisRule ExpOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).unary(in);
}
LogicalResult ExpOp::backward(GradientBuilder &b, Value grad) {
  // d exp(x) = exp(x) dx: the forward result times the gradient.
  b.accumulate(getInput(), MulOp::create(b.getBuilder(), getLoc(),
                                         GradientBuilder::gradType(getInput()),
                                         grad, getResult()));
  return success();
}

AxisRule LogOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).unary(in);
}
LogicalResult LogOp::backward(GradientBuilder &b, Value grad) {
  return activationBackward<LogGradOp>(b, getInput(), grad);
}

AxisRule NegOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).linearUnary(in);
}
LogicalResult NegOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               NegOp::create(b.getBuilder(), getLoc(),
                             GradientBuilder::gradType(getInput()), grad));
  return success();
}

AxisRule DetachOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).unary(in);
}
/// No gradient flows through a detach: its result depends on no parameter.
LogicalResult DetachOp::backward(GradientBuilder &, Value) { return success(); }
bool DetachOp::passesGradient() { return false; }

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

AxisRule AddOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n)
      .broadcastBinary(in, shapeOf(getLhs()), shapeOf(getRhs()),
                       shapeOf(getResult()),
                       /*isAdd=*/true);
}
LogicalResult AddOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getLhs(), b.sumTo(grad, getLhs()));
  b.accumulate(getRhs(), b.sumTo(grad, getRhs()));
  return success();
}

AxisRule SubOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n)
      .broadcastBinary(in, shapeOf(getLhs()), shapeOf(getRhs()),
                       shapeOf(getResult()),
                       /*isAdd=*/true);
}
LogicalResult SubOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getLhs(), b.sumTo(grad, getLhs()));
  if (b.isActive(getRhs())) {
    Value gr = b.sumTo(grad, getRhs());
    b.accumulate(getRhs(),
                 NegOp::create(b.getBuilder(), getLoc(), gr.getType(), gr));
  }
  return success();
}

AxisRule MulOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n)
      .broadcastBinary(in, shapeOf(getLhs()), shapeOf(getRhs()),
                       shapeOf(getResult()),
                       /*isAdd=*/false);
}
LogicalResult MulOp::backward(GradientBuilder &b, Value grad) {
  Value x = getLhs(), y = getRhs();
  auto times = [&](Value other) {
    return MulOp::create(b.getBuilder(), getLoc(),
                         GradientBuilder::gradType(grad), grad, other);
  };
  if (b.isActive(x))
    b.accumulate(x, b.sumTo(times(y), x));
  if (b.isActive(y))
    b.accumulate(y, b.sumTo(times(x), y));
  return success();
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

AxisRule DropoutOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).scaleByIndex(in);
}
LogicalResult DropoutOp::backward(GradientBuilder &b, Value grad) {
  // The same mask again (its key is the forward's), or the identity at
  // p = 0.
  Value x = getInput();
  b.accumulate(x, getTrain()
                      ? DropoutGradOp::create(b.getBuilder(), getLoc(),
                                              GradientBuilder::gradType(x),
                                              getFqnAttr(), grad, getPAttr())
                      : grad);
  return success();
}

AxisRule DropoutGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).scaleByIndex(in);
}

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

AxisRule ReluGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).elementwiseGrad(in);
}
AxisRule GeluGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).elementwiseGrad(in);
}
AxisRule SiluGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).elementwiseGrad(in);
}
AxisRule LogGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).elementwiseGrad(in);
}

AxisRule SumToOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n)
      .sumTo(in, shapeOf(getGrad()), shapeOf(getResult()));
}
