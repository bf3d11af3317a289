//===- Shape.cpp - reshape and transpose: rules and gradients ---*- C++ -*-===//
//
// The sharding rules and backward rules of the ops that only move elements:
// a reshape's gradient is the reshape back, a transpose's the inverse
// permutation. Each op's
// verifier is here too.
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

LogicalResult ReshapeOp::verify() {
  auto count = [](ArrayRef<int64_t> s) -> std::optional<int64_t> {
    int64_t n = 1;
    for (int64_t d : s) {
      if (ShapedType::isDynamic(d))
        return std::nullopt;
      n *= d;
    }
    return n;
  };
  auto a = count(shapeOf(getInput())), b = count(shapeOf(getResult()));
  if (a && b && *a != *b)
    return emitOpError() << "cannot reshape " << shapeStr(shapeOf(getInput()))
                         << " to " << shapeStr(shapeOf(getResult()));
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = shapeOf(getInput());
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != in.size())
    return emitOpError("permutation must name every dim once");
  SmallVector<bool> seen(in.size(), false);
  SmallVector<int64_t> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)in.size() || seen[p])
      return emitOpError("permutation must name every dim once");
    seen[p] = true;
    out.push_back(in[p]);
  }
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

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
