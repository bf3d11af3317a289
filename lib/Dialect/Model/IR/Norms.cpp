//===- Norms.cpp - layer_norm and rms_norm: rules and gradients -*- C++ -*-===//
//
// The sharding rules and backward rules of nn.LayerNorm and RMSNorm over
// the last dim, and the rules of their backward ops. Rows are independent,
// which is what SequenceParallel relies on. Each op's verifier is here
// too.
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

static LogicalResult verifyNorm(Operation *op, Value input, Value weight,
                                Value bias, Value result) {
  auto x = shapeOf(input);
  if (x.empty())
    return op->emitOpError("input must have at least one dim");
  if (weight && failed(expectShape(op, "weight", shapeOf(weight), {x.back()})))
    return failure();
  if (bias && failed(expectShape(op, "bias", shapeOf(bias), {x.back()})))
    return failure();
  return expectShape(op, "result", shapeOf(result), x);
}

LogicalResult LayerNormOp::verify() {
  return verifyNorm(*this, getInput(), getWeight(), getBias(), getResult());
}

LogicalResult RMSNormOp::verify() {
  return verifyNorm(*this, getInput(), getWeight(), nullptr, getResult());
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

/// The gradients of a norm's input, weight and (LayerNorm) bias.
template <typename GradInputOp, typename GradWeightOp, typename NormOp>
static LogicalResult normBackward(NormOp norm, GradientBuilder &b, Value grad,
                                  Value bias) {
  OpBuilder &builder = b.getBuilder();
  Location loc = norm.getLoc();
  Value x = norm.getInput(), w = norm.getWeight();
  if (b.isActive(x))
    b.accumulate(x, GradInputOp::create(
                        builder, loc, GradientBuilder::gradType(x),
                        norm.getFqnAttr(), grad, x, w, norm.getEpsAttr()));
  if (b.isActive(w))
    b.accumulate(
        w, GradWeightOp::create(builder, loc, GradientBuilder::gradType(w),
                                norm.getFqnAttr(), grad, x, norm.getEpsAttr()));
  if (b.isActive(bias))
    b.accumulate(bias, b.sumTo(grad, bias));
  return success();
}

AxisRule LayerNormOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t rank = shapeOf(getInput()).size();
  return AxisRuleBuilder(getContext(), n).independentRows(in, rank - 1);
}

LogicalResult LayerNormOp::backward(GradientBuilder &b, Value grad) {
  return normBackward<LayerNormGradInputOp, LayerNormGradWeightOp>(
      *this, b, grad, getBias());
}

AxisRule RMSNormOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t rank = shapeOf(getInput()).size();
  return AxisRuleBuilder(getContext(), n).independentRows(in, rank - 1);
}

LogicalResult RMSNormOp::backward(GradientBuilder &b, Value grad) {
  return normBackward<RMSNormGradInputOp, RMSNormGradWeightOp>(
      *this, b, grad, /*bias=*/nullptr);
}

/// Norm backward (grad, input, weight): rows are independent, so a
/// leading-dim shard of the input (SequenceParallel: the sequence) keeps
/// the gradient of the input sharded alike; the weight is whole.
static AxisRule normGradInputRule(const AxisRuleBuilder &r,
                                  ArrayRef<Attribute> in, int64_t rank) {
  auto dx = r.shardDim(in[1]), dg = r.shardDim(in[0]);
  if (dx && *dx < rank - 1)
    return {{in[1], in[1], r.rep()}, in[1]};
  if (r.isPartialSum(in[0]) && !isa<PartialAttr>(in[1]) && !dx)
    return {{in[0], r.rep(), r.rep()}, in[0]};
  if (dg && *dg < rank - 1)
    return {{in[0], in[0], r.rep()}, in[0]};
  return r.replicateAll(3);
}

/// Norm weight gradient (grad, input): a sum over rows, so rows split over
/// the ranks give a partial sum (Megatron's sequence-parallel norm weights,
/// reduced once).
static AxisRule normGradWeightRule(const AxisRuleBuilder &r,
                                   ArrayRef<Attribute> in, int64_t rank) {
  auto dx = r.shardDim(in[1]), dg = r.shardDim(in[0]);
  if (dx && *dx < rank - 1)
    return {{in[1], in[1]}, r.partialSum()};
  if (r.isPartialSum(in[0]) && !isa<PartialAttr>(in[1]) && !dx)
    return {{in[0], r.rep()}, in[0]};
  if (dg && *dg < rank - 1)
    return {{in[0], in[0]}, r.partialSum()};
  return r.replicateAll(2);
}

AxisRule LayerNormGradInputOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return normGradInputRule(AxisRuleBuilder(getContext(), n), in,
                           shapeOf(getGrad()).size());
}
AxisRule RMSNormGradInputOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return normGradInputRule(AxisRuleBuilder(getContext(), n), in,
                           shapeOf(getGrad()).size());
}
AxisRule LayerNormGradWeightOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return normGradWeightRule(AxisRuleBuilder(getContext(), n), in,
                            shapeOf(getGrad()).size());
}
AxisRule RMSNormGradWeightOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return normGradWeightRule(AxisRuleBuilder(getContext(), n), in,
                            shapeOf(getGrad()).size());
}
