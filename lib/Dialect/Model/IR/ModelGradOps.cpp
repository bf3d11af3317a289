//===- ModelGradOps.cpp - verifiers of the backward ops ---------*- C++ -*-===//
//
// Shape checks of the ops tp-differentiate emits (ModelGradOps.td): each
// gradient has the shape of what it is the gradient of.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"

#include "ShapeChecks.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

LogicalResult LinearGradInputOp::verify() {
  auto g = shapeOf(getGrad()), w = shapeOf(getWeight());
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [out_features, in_features], got "
                         << shapeStr(w);
  if (g.empty() || !sameSize(g.back(), w[0]))
    return emitOpError() << "gradient of '" << getFqn() << "' has shape "
                         << shapeStr(g) << " but the weight has " << w[0]
                         << " output features";
  SmallVector<int64_t> out(g);
  out.back() = w[1];
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult LinearGradWeightOp::verify() {
  auto g = shapeOf(getGrad()), x = shapeOf(getInput());
  if (g.empty() || g.size() != x.size())
    return emitOpError() << "gradient " << shapeStr(g) << " and input "
                         << shapeStr(x) << " of '" << getFqn()
                         << "' must have the same rank (at least 1)";
  for (size_t i = 0; i + 1 < g.size(); ++i)
    if (!sameSize(g[i], x[i]))
      return emitOpError() << "gradient " << shapeStr(g) << " and input "
                           << shapeStr(x) << " of '" << getFqn()
                           << "' differ in their leading dims";
  return expectShape(*this, "result", shapeOf(getResult()),
                     {g.back(), x.back()});
}

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

LogicalResult MeanGradOp::verify() {
  return expectShape(*this, "gradient", shapeOf(getGrad()), {});
}

LogicalResult NegOp::verify() { return verifyUnary(*this); }

LogicalResult FullOp::verify() {
  if (!isa<FloatType>(getType().getElementType()))
    return emitOpError() << "fills floats, not " << getType().getElementType();
  return success();
}

/// An update's parameter, gradient and result have one shape; the
/// hyperparameters are those PyTorch's constructor accepts.
static LogicalResult verifyUpdate(Operation *op, Value param, Value grad,
                                  Value result, StringRef fqn, double lr,
                                  double weightDecay) {
  if (failed(expectShape(op, "gradient", shapeOf(grad), shapeOf(param))) ||
      failed(expectShape(op, "result", shapeOf(result), shapeOf(param))))
    return failure();
  if (!(lr >= 0))
    return op->emitOpError()
           << "learning rate of '" << fqn << "' must be at least 0, got " << lr;
  if (!(weightDecay >= 0))
    return op->emitOpError() << "weight decay of '" << fqn
                             << "' must be at least 0, got " << weightDecay;
  return success();
}

LogicalResult SGDUpdateOp::verify() {
  if (failed(verifyUpdate(*this, getParam(), getGrad(), getResult(), getFqn(),
                          getLr().convertToDouble(),
                          getWeightDecay().convertToDouble())))
    return failure();
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0))
    return emitOpError() << "momentum must be at least 0, got " << momentum;
  if (getNesterov() && (momentum <= 0 || getDampening().convertToDouble() != 0))
    return emitOpError("nesterov momentum needs a momentum and zero "
                       "dampening");
  return success();
}

LogicalResult AdamWUpdateOp::verify() {
  if (failed(verifyUpdate(*this, getParam(), getGrad(), getResult(), getFqn(),
                          getLr().convertToDouble(),
                          getWeightDecay().convertToDouble())))
    return failure();
  for (double beta :
       {getBeta1().convertToDouble(), getBeta2().convertToDouble()})
    if (!(beta >= 0 && beta < 1))
      return emitOpError() << "betas must be in [0, 1), got " << beta;
  if (!(getEps().convertToDouble() >= 0))
    return emitOpError() << "eps must be at least 0, got "
                         << getEps().convertToDouble();
  return success();
}
