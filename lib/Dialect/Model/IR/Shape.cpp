//===- Shape.cpp - ops that only move elements: rules, gradients -*- C++
//-*-===//
//
// The verifiers, sharding rules and backward rules of the ops that only
// move elements: a reshape's gradient is the reshape back, a transpose's
// the inverse permutation, a slice's its slice_grad (zeros around), a
// concat's the slice of each operand's piece.
//
//===----------------------------------------------------------------------===//

#include "FamilyRules.h"

#include "tp/Dialect/Model/IR/GradientBuilder.h"
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

LogicalResult ExpandOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  bool ok = in.size() <= out.size();
  for (size_t i = 0; ok && i < in.size(); ++i) {
    int64_t d = in[in.size() - 1 - i], o = out[out.size() - 1 - i];
    ok = d == 1 || sameSize(d, o);
  }
  if (!ok)
    return emitOpError() << "cannot broadcast " << shapeStr(in) << " to "
                         << shapeStr(out);
  if (getTensorLikeElementType(getInput().getType()) !=
      getTensorLikeElementType(getResult().getType()))
    return emitOpError("result must have the input's element type");
  return success();
}

AxisRule ExpandOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // A stretched dim has no factor in the input: only copies of it.
  return elementwiseRule(*this, in, n, FactorRule::Linearity::MovesElements);
}

LogicalResult ExpandOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(), b.sumTo(grad, getInput()));
  return success();
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

//===----------------------------------------------------------------------===//
// Slicing and concatenation
//===----------------------------------------------------------------------===//

/// `dim` of \p op names a dim of a tensor of \p rank dims; returns it
/// counted from the front.
static FailureOr<int64_t> checkDim(Operation *op, int64_t dim, size_t rank) {
  int64_t d = dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
  if (d < 0 || d >= static_cast<int64_t>(rank)) {
    op->emitOpError() << "dim " << dim << " is out of range for rank " << rank;
    return failure();
  }
  return d;
}

/// The checks of a slice from `whole` to `part` (slice: input to result;
/// slice_grad: result to grad): the other dims agree, `start >= 0`,
/// `step >= 1` and the last element picked lies inside `whole`.
static LogicalResult verifySlice(Operation *op, ArrayRef<int64_t> whole,
                                 ArrayRef<int64_t> part, int64_t dim,
                                 int64_t start, int64_t step,
                                 StringRef partName) {
  FailureOr<int64_t> d = checkDim(op, dim, whole.size());
  if (failed(d))
    return failure();
  if (start < 0 || step < 1)
    return op->emitOpError() << "needs start >= 0 and step >= 1, got start "
                             << start << " and step " << step;
  SmallVector<int64_t> expected(whole);
  expected[*d] = part.size() == whole.size() ? part[*d] : 0;
  if (failed(expectShape(op, partName, part, expected)))
    return failure();
  int64_t n = part[*d], size = whole[*d];
  if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(size) && n > 0 &&
      start + (n - 1) * step >= size)
    return op->emitOpError()
           << n << " elements from " << start << " by " << step
           << " do not fit in dim " << *d << " of size " << size;
  return success();
}

LogicalResult SliceOp::verify() {
  return verifySlice(*this, shapeOf(getInput()), shapeOf(getResult()), getDim(),
                     getStart(), getStep(), "result");
}

LogicalResult SliceGradOp::verify() {
  return verifySlice(*this, shapeOf(getResult()), shapeOf(getGrad()), getDim(),
                     getStart(), getStep(), "grad");
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one operand");
  ArrayRef<int64_t> out = shapeOf(getResult());
  FailureOr<int64_t> d = checkDim(*this, getDim(), out.size());
  if (failed(d))
    return failure();
  int64_t total = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    ArrayRef<int64_t> shape = shapeOf(v);
    SmallVector<int64_t> expected(out);
    expected[*d] = shape.size() == out.size() ? shape[*d] : 0;
    if (failed(expectShape(*this, "operand #" + std::to_string(i), shape,
                           expected)))
      return failure();
    if (ShapedType::isDynamic(shape[*d]) || ShapedType::isDynamic(total))
      total = ShapedType::kDynamic;
    else
      total += shape[*d];
  }
  if (!sameSize(total, out[*d]))
    return emitOpError() << "result has " << out[*d] << " elements in dim "
                         << *d << ", the operands " << total;
  return success();
}

AxisRule SliceOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return alongDimsRule(*this, in, n, getDim(),
                       FactorRule::Linearity::MovesElements);
}

AxisRule SliceGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // Zeros where nothing was picked: a zero on every rank is any Partial's
  // zero.
  return alongDimsRule(*this, in, n, getDim(),
                       FactorRule::Linearity::MovesElements);
}

AxisRule ConcatOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return alongDimsRule(*this, in, n, getDim(),
                       FactorRule::Linearity::AllOperands);
}

LogicalResult SliceOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               SliceGradOp::create(b.getBuilder(), getLoc(),
                                   GradientBuilder::gradType(getInput()), grad,
                                   getDim(), getStart(), getStep()));
  return success();
}

LogicalResult ConcatOp::backward(GradientBuilder &b, Value grad) {
  // Each operand's gradient is its piece of the result's.
  int64_t d = frontDim(getDim(), shapeOf(getResult()).size());
  int64_t offset = 0;
  for (Value v : getInputs()) {
    int64_t size = shapeOf(v)[d];
    if (b.isActive(v))
      b.accumulate(v, SliceOp::create(b.getBuilder(), getLoc(),
                                      GradientBuilder::gradType(v), grad, d,
                                      offset, 1));
    offset += size;
  }
  return success();
}
