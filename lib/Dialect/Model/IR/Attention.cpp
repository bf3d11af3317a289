//===- Attention.cpp - softmax, rotary, attention: rules and gradients ----===//
//
// The sharding rules and backward rules of softmax, the rotary embedding
// and causal scaled-dot-product attention, and the rules of their backward
// ops. Heads are independent, which is what Colwise q/k/v projections rely
// on. Each op's verifier is here too.
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

LogicalResult SoftmaxOp::verify() {
  int64_t rank = shapeOf(getInput()).size();
  // I64Attr getters return uint64_t: compare as signed so -1 is accepted.
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < -rank || dim >= rank)
    return emitOpError() << "softmax dim " << dim
                         << " is out of range for rank " << rank;
  return verifyUnary(*this);
}

LogicalResult RotaryOp::verify() {
  auto x = shapeOf(getInput());
  if (x.size() != 4)
    return emitOpError("rotary input must be [batch, seq, heads, head_dim]");
  if (!ShapedType::isDynamic(x[3]) && x[3] % 2)
    return emitOpError("rotary head_dim must be even");
  return verifyUnary(*this);
}

LogicalResult AttentionOp::verify() {
  auto q = shapeOf(getQ());
  if (failed(
          verifyAttentionOperands(*this, q, shapeOf(getK()), shapeOf(getV()))))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), q);
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

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

AxisRule SoftmaxOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t dim = frontDim(getDim(), shapeOf(getInput()).size());
  return AxisRuleBuilder(getContext(), n).independentRows(in, dim);
}

LogicalResult SoftmaxOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               SoftmaxGradOp::create(b.getBuilder(), getLoc(),
                                     GradientBuilder::gradType(getInput()),
                                     grad, getResult(), getDimAttr()));
  return success();
}

/// (grad, output): rows along `dim` are independent.
AxisRule SoftmaxGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t dim = frontDim(getDim(), shapeOf(getGrad()).size());
  return AxisRuleBuilder(getContext(), n).independentRowsGrad(in, dim);
}

//===----------------------------------------------------------------------===//
// Rotary embedding on [batch, seq, heads, head_dim]
//===----------------------------------------------------------------------===//

/// The angles depend on the global position (dim 1) and pair up elements
/// of head_dim (dim 3): only batch and heads may stay sharded.
static AxisRule rotaryRule(const AxisRuleBuilder &r, ArrayRef<Attribute> in) {
  if (auto d = r.shardDim(in[0]); d && (*d == 0 || *d == 2))
    return {{in[0]}, in[0]};
  return r.replicateAll(1);
}

AxisRule RotaryOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return rotaryRule(AxisRuleBuilder(getContext(), n), in);
}

LogicalResult RotaryOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               RotaryGradOp::create(b.getBuilder(), getLoc(),
                                    GradientBuilder::gradType(getInput()), grad,
                                    getThetaAttr()));
  return success();
}

/// As the forward (batch or heads), and linear.
AxisRule RotaryGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  if (r.isPartialSum(in[0]))
    return {{in[0]}, in[0]};
  return rotaryRule(r, in);
}

//===----------------------------------------------------------------------===//
// Attention: q [b, s, h, d], k and v [b, s, kv, d]
//===----------------------------------------------------------------------===//

/// Heads (dim 2) may be sharded when both head counts divide over the
/// axis; samples (dim 0) are independent for any chunk sizes.
static bool splitsAttention(const AxisRuleBuilder &r, Attribute p,
                            ArrayRef<int64_t> q, ArrayRef<int64_t> k) {
  int64_t n = r.getAxisSize();
  auto d = r.shardDim(p);
  return (d == 2 && q[2] % n == 0 && k[2] % n == 0) || d == 0;
}

AxisRule AttentionOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  if (splitsAttention(r, in[0], shapeOf(getQ()), shapeOf(getK())))
    return {{in[0], in[0], in[0]}, in[0]};
  return r.replicateAll(3);
}

LogicalResult AttentionOp::backward(GradientBuilder &b, Value grad) {
  Value q = getQ(), k = getK(), v = getV();
  auto build = [&](auto opTag, Value operand) {
    using GradOp = decltype(opTag);
    if (b.isActive(operand))
      b.accumulate(operand, GradOp::create(b.getBuilder(), getLoc(),
                                           GradientBuilder::gradType(operand),
                                           grad, q, k, v, getCausalAttr()));
  };
  build(AttentionGradQOp(), q);
  build(AttentionGradKOp(), k);
  build(AttentionGradVOp(), v);
  return success();
}

/// (grad, q, k, v): heads or batch sharded in all four, as the forward;
/// linear in the gradient.
static AxisRule attentionGradRule(const AxisRuleBuilder &r,
                                  ArrayRef<Attribute> in, ArrayRef<int64_t> q,
                                  ArrayRef<int64_t> k) {
  for (Attribute p : {in[1], in[0]})
    if (splitsAttention(r, p, q, k))
      return {{p, p, p, p}, p};
  if (r.isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]) &&
      isa<ReplicateAttr>(in[2]) && isa<ReplicateAttr>(in[3]))
    return {{in[0], r.rep(), r.rep(), r.rep()}, in[0]};
  return r.replicateAll(4);
}

AxisRule AttentionGradQOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return attentionGradRule(AxisRuleBuilder(getContext(), n), in,
                           shapeOf(getQ()), shapeOf(getK()));
}
AxisRule AttentionGradKOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return attentionGradRule(AxisRuleBuilder(getContext(), n), in,
                           shapeOf(getQ()), shapeOf(getK()));
}
AxisRule AttentionGradVOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return attentionGradRule(AxisRuleBuilder(getContext(), n), in,
                           shapeOf(getQ()), shapeOf(getK()));
}
