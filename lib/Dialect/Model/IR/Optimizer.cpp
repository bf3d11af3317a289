//===- Optimizer.cpp - optimizer updates and clipping: rules ----*- C++ -*-===//
//
// The sharding rules of the ops tp-optimizer-step emits: the updates are
// element-wise on the parameter's shard, clipping's global norm sums every
// rank's shards. They are not differentiated. Their verifiers are here
// too.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

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

/// (param, grad): element-wise on the parameter's shard; the gradient is
/// brought to the parameter's placement.
static AxisRule updateRule(const AxisRuleBuilder &r, ArrayRef<Attribute> in) {
  Attribute p = isa<PartialAttr>(in[0]) ? r.rep() : in[0];
  return {{p, p}, p};
}

AxisRule SGDUpdateOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return updateRule(AxisRuleBuilder(getContext(), n), in);
}
AxisRule AdamWUpdateOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return updateRule(AxisRuleBuilder(getContext(), n), in);
}

/// Not linear, so partial operands are reduced; each rank sums its shards,
/// a partial sum where any operand is sharded (tp-partition counts the
/// replicated ones on one rank only).
AxisRule SumSquaresOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  AxisRule rule;
  bool anyShard = false;
  for (Attribute p : in) {
    anyShard |= r.shardDim(p).has_value();
    rule.operands.push_back(isa<PartialAttr>(p) ? r.rep() : p);
  }
  rule.result = anyShard ? r.partialSum() : r.rep();
  return rule;
}

/// A function of the whole (rank-0) squared norm: the sum is reduced first.
AxisRule ClipCoefficientOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).replicateAll(in.size());
}
