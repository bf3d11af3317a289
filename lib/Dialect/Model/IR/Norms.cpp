//===- Norms.cpp - layer_norm and rms_norm: rules and gradients -*- C++ -*-===//
//
// The sharding rules and backward rules of nn.LayerNorm and RMSNorm over
// the last dim, and the rules of their backward ops. Rows are independent,
// which is what SequenceParallel relies on. Verifiers are in ModelOps.cpp
// and ModelGradOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

AxisRule LayerNormOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t rank = shapeOf(getInput()).size();
  return AxisRuleBuilder(getContext(), n).independentRows(in, rank - 1);
}

LogicalResult LayerNormOp::backward(GradientBuilder &b, Value grad) {
  OpBuilder &builder = b.getBuilder();
  Value x = getInput();
  if (b.isActive(x))
    b.accumulate(x, LayerNormGradInputOp::create(
                        builder, getLoc(), GradientBuilder::gradType(x),
                        getFqnAttr(), grad, x, getWeight(), getEpsAttr()));
  if (b.isActive(getWeight()))
    b.accumulate(getWeight(),
                 LayerNormGradWeightOp::create(
                     builder, getLoc(), GradientBuilder::gradType(getWeight()),
                     getFqnAttr(), grad, x, getEpsAttr()));
  if (b.isActive(getBias()))
    b.accumulate(getBias(), b.sumTo(grad, getBias()));
  return success();
}

AxisRule RMSNormOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t rank = shapeOf(getInput()).size();
  return AxisRuleBuilder(getContext(), n).independentRows(in, rank - 1);
}

LogicalResult RMSNormOp::backward(GradientBuilder &b, Value grad) {
  OpBuilder &builder = b.getBuilder();
  Value x = getInput();
  if (b.isActive(x))
    b.accumulate(x, RMSNormGradInputOp::create(
                        builder, getLoc(), GradientBuilder::gradType(x),
                        getFqnAttr(), grad, x, getWeight(), getEpsAttr()));
  if (b.isActive(getWeight()))
    b.accumulate(getWeight(),
                 RMSNormGradWeightOp::create(
                     builder, getLoc(), GradientBuilder::gradType(getWeight()),
                     getFqnAttr(), grad, x, getEpsAttr()));
  return success();
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
