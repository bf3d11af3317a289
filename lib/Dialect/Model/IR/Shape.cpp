//===- Shape.cpp - reshape and transpose: rules and gradients ---*- C++ -*-===//
//
// The sharding rules and backward rules of the ops that only move elements:
// a reshape's gradient is the reshape back, a transpose's the inverse
// permutation. Verifiers are in ModelOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

AxisRule ReshapeOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n)
      .reshape(in, shapeOf(getInput()), shapeOf(getResult()));
}

LogicalResult ReshapeOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               ReshapeOp::create(b.getBuilder(), getLoc(),
                                 GradientBuilder::gradType(getInput()), grad));
  return success();
}

AxisRule TransposeOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).permute(in, getPermutation());
}

LogicalResult TransposeOp::backward(GradientBuilder &b, Value grad) {
  // The inverse permutation: dim perm[i] of the input is dim i.
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  b.accumulate(getInput(),
               TransposeOp::create(b.getBuilder(), getLoc(),
                                   GradientBuilder::gradType(getInput()), grad,
                                   inverse));
  return success();
}
