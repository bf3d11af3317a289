//===- GradientBuilder.cpp - state of one reverse-mode sweep ----*- C++ -*-===//
//
// GradientBuilder's bookkeeping, model.param's backward rule (the end of
// every path: its gradient is the parameter's), and the external models
// that let tp's layout ops pass gradients through.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/GradientBuilder.h"

#include "mlir/Dialect/Traits.h"
#include "tp/Dialect/Model/IR/ModelOps.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;

RankedTensorType GradientBuilder::gradType(Value v) {
  return RankedTensorType::get(getTensorLikeShape(v.getType()),
                               getTensorLikeElementType(v.getType()));
}

void GradientBuilder::accumulate(Value v, Value grad) {
  if (!isActive(v))
    return;
  auto [it, fresh] = grads.try_emplace(v, grad);
  if (!fresh)
    it->second =
        AddOp::create(builder, grad.getLoc(), gradType(v), it->second, grad);
}

void GradientBuilder::accumulateParam(StringRef name, Value grad) {
  auto [it, fresh] = paramGrads.try_emplace(name, grad);
  if (!fresh)
    it->second =
        AddOp::create(builder, grad.getLoc(), gradType(grad), it->second, grad);
}

Value GradientBuilder::sumTo(Value grad, Value operand) {
  if (getTensorLikeShape(grad.getType()) ==
      getTensorLikeShape(operand.getType()))
    return grad;
  return SumToOp::create(builder, grad.getLoc(), gradType(operand), grad);
}

Value GradientBuilder::scalar(double value, Value like) {
  auto type =
      RankedTensorType::get({}, getTensorLikeElementType(like.getType()));
  return FullOp::create(builder, like.getLoc(), type,
                        builder.getF64FloatAttr(value));
}

/// The type of a broadcasting element-wise op of `a` and `b`: their shapes
/// broadcast (aligned at the end), `a`'s element type.
static RankedTensorType broadcastType(Value a, Value b) {
  SmallVector<int64_t> shape;
  bool ok = OpTrait::util::getBroadcastedShape(
      getTensorLikeShape(a.getType()), getTensorLikeShape(b.getType()), shape);
  assert(ok && "the forward op's verifier checked the shapes broadcast");
  (void)ok;
  return RankedTensorType::get(shape, getTensorLikeElementType(a.getType()));
}

Value GradientBuilder::mul(Value a, Value b) {
  return MulOp::create(builder, a.getLoc(), broadcastType(a, b), a, b);
}
Value GradientBuilder::sub(Value a, Value b) {
  return SubOp::create(builder, a.getLoc(), broadcastType(a, b), a, b);
}
Value GradientBuilder::div(Value a, Value b) {
  return DivOp::create(builder, a.getLoc(), broadcastType(a, b), a, b);
}
Value GradientBuilder::neg(Value a) {
  return NegOp::create(builder, a.getLoc(), gradType(a), a);
}

LogicalResult ParamOp::backward(GradientBuilder &builder, Value grad) {
  builder.accumulateParam(getName(), grad);
  return success();
}

#include "tp/Dialect/Model/IR/ModelOpInterfaces.cpp.inc"

namespace {
/// Layout ops (distribute, redistribute, to_local) keep the global value:
/// its gradient passes through, and propagation redistributes it where a
/// backward op needs.
template <typename OpT>
struct PassThroughGradient
    : public DifferentiableOpInterface::ExternalModel<PassThroughGradient<OpT>,
                                                      OpT> {
  LogicalResult backward(Operation *op, GradientBuilder &builder,
                         Value grad) const {
    builder.accumulate(op->getOperand(0), grad);
    return success();
  }
};
} // namespace

void mlir::tp::model::registerModelExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TPDialect *) {
    DistributeOp::attachInterface<PassThroughGradient<DistributeOp>>(*ctx);
    RedistributeOp::attachInterface<PassThroughGradient<RedistributeOp>>(*ctx);
    ToLocalOp::attachInterface<PassThroughGradient<ToLocalOp>>(*ctx);
  });
}
