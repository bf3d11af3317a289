//===- ModelGradOps.cpp - verifiers of the backward ops ---------*- C++ -*-===//
//
// Shape checks of the ops tp-differentiate emits (ModelGradOps.td): each
// gradient has the shape of what it is the gradient of.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"

#include "ShapeChecks.h"

#include <cmath>

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
LogicalResult LogGradOp::verify() { return verifyActivationGrad(*this); }

LogicalResult DropoutGradOp::verify() {
  if (failed(verifyDropoutP(*this, getP())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), shapeOf(getGrad()));
}

/// A norm's gradient and input [..., D]; its weight [D] where it has one.
static LogicalResult verifyNormGrad(Operation *op, StringRef fqn, Value grad,
                                    Value input, Value weight) {
  auto g = shapeOf(grad), x = shapeOf(input);
  if (x.empty())
    return op->emitOpError()
           << "input of '" << fqn << "' must have rank at least 1";
  if (failed(expectShape(op, "gradient", g, x)))
    return failure();
  if (weight && failed(expectShape(op, "weight", shapeOf(weight), {x.back()})))
    return failure();
  return success();
}

LogicalResult LayerNormGradInputOp::verify() {
  if (failed(
          verifyNormGrad(*this, getFqn(), getGrad(), getInput(), getWeight())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()),
                     shapeOf(getInput()));
}

LogicalResult RMSNormGradInputOp::verify() {
  if (failed(
          verifyNormGrad(*this, getFqn(), getGrad(), getInput(), getWeight())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()),
                     shapeOf(getInput()));
}

LogicalResult LayerNormGradWeightOp::verify() {
  if (failed(verifyNormGrad(*this, getFqn(), getGrad(), getInput(), {})))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()),
                     {shapeOf(getInput()).back()});
}

LogicalResult RMSNormGradWeightOp::verify() {
  if (failed(verifyNormGrad(*this, getFqn(), getGrad(), getInput(), {})))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()),
                     {shapeOf(getInput()).back()});
}

LogicalResult EmbeddingGradOp::verify() {
  auto w = shapeOf(getWeight());
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [num_embeddings, embedding_dim], got "
                         << shapeStr(w);
  if (!isa<IntegerType>(getTensorLikeElementType(getIds().getType())))
    return emitOpError() << "ids of '" << getFqn() << "' must be integers";
  SmallVector<int64_t> g(shapeOf(getIds()));
  g.push_back(w[1]);
  if (failed(expectShape(*this, "gradient", shapeOf(getGrad()), g)))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), w);
}

LogicalResult SoftmaxGradOp::verify() {
  auto y = shapeOf(getOutput());
  if (failed(normalizedDim(*this, static_cast<int64_t>(getDim()), y.size())) ||
      failed(expectShape(*this, "gradient", shapeOf(getGrad()), y)))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), y);
}

LogicalResult RotaryGradOp::verify() {
  auto g = shapeOf(getGrad());
  if (g.size() != 4)
    return emitOpError("gradient must be [batch, seq, heads, head_dim]");
  if (!ShapedType::isDynamic(g[3]) && g[3] % 2)
    return emitOpError("rotary head_dim must be even");
  return expectShape(*this, "result", shapeOf(getResult()), g);
}

/// The gradient has q's shape; the result the shape of operand `which`.
static LogicalResult verifyAttentionGrad(Operation *op, unsigned which) {
  auto q = shapeOf(op->getOperand(1));
  if (failed(verifyAttentionOperands(op, q, shapeOf(op->getOperand(2)),
                                     shapeOf(op->getOperand(3)))) ||
      failed(expectShape(op, "gradient", shapeOf(op->getOperand(0)), q)))
    return failure();
  return expectShape(op, "result", shapeOf(op->getResult(0)),
                     shapeOf(op->getOperand(which)));
}

LogicalResult AttentionGradQOp::verify() {
  return verifyAttentionGrad(*this, 1);
}
LogicalResult AttentionGradKOp::verify() {
  return verifyAttentionGrad(*this, 2);
}
LogicalResult AttentionGradVOp::verify() {
  return verifyAttentionGrad(*this, 3);
}

/// grad is input's shape with 1 at dim.
static LogicalResult verifyReduceGrad(Operation *op, int64_t rawDim) {
  auto x = shapeOf(op->getOperand(1));
  FailureOr<int64_t> dim = normalizedDim(op, rawDim, x.size());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> g(x);
  g[*dim] = 1;
  if (failed(expectShape(op, "gradient", shapeOf(op->getOperand(0)), g)))
    return failure();
  return expectShape(op, "result", shapeOf(op->getResult(0)), x);
}

LogicalResult ReduceSumGradOp::verify() {
  return verifyReduceGrad(*this, static_cast<int64_t>(getDim()));
}
LogicalResult ReduceMaxGradOp::verify() {
  return verifyReduceGrad(*this, static_cast<int64_t>(getDim()));
}

/// logits [N, C] and integer targets [N].
static LogicalResult verifyLogitsTargets(Operation *op, Value logits,
                                         Value targets) {
  auto l = shapeOf(logits), t = shapeOf(targets);
  if (l.size() != 2 || t.size() != 1 || !sameSize(l[0], t[0]))
    return op->emitOpError("takes logits [N, C] and targets [N]");
  if (!isa<IntegerType>(getTensorLikeElementType(targets.getType())))
    return op->emitOpError("targets must be integers");
  return expectShape(op, "result", shapeOf(op->getResult(0)), l);
}

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(expectShape(*this, "gradient", shapeOf(getGrad()), {})))
    return failure();
  if (failed(verifyCount(*this, getCount())))
    return failure();
  return verifyLogitsTargets(*this, getLogits(), getTargets());
}

LogicalResult TargetLogitGradOp::verify() {
  auto l = shapeOf(getLogits());
  if (failed(verifyLogitsTargets(*this, getLogits(), getTargets())))
    return failure();
  return expectShape(*this, "gradient", shapeOf(getGrad()), {l[0], 1});
}

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

LogicalResult SumSquaresOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one operand");
  for (auto [i, v] : llvm::enumerate(getInputs()))
    if (!isa<FloatType>(getTensorLikeElementType(v.getType())))
      return emitOpError() << "operand " << i << " is not a float tensor";
  if (!getTensorLikeElementType(getResult().getType()).isF32())
    return emitOpError("result must be f32");
  return expectShape(*this, "result", shapeOf(getResult()), {});
}

LogicalResult ClipCoefficientOp::verify() {
  double maxNorm = getMaxNorm().convertToDouble();
  if (!(maxNorm > 0) || std::isinf(maxNorm))
    return emitOpError() << "max_norm must be positive and finite, got "
                         << maxNorm;
  for (Value v : {getSumSquares(), getResult()})
    if (!getTensorLikeElementType(v.getType()).isF32())
      return emitOpError("operand and result must be f32");
  if (failed(expectShape(*this, "operand", shapeOf(getSumSquares()), {})))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), {});
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
