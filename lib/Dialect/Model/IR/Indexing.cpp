//===- Indexing.cpp - ops that pick by index: rules, gradients -*- C++ -*-===//
//
// The verifiers, sharding rules and backward rules of the ops that compute
// or follow integer indices: topk (the positions of the largest elements,
// a router's expert choice), gather (the elements at such positions) and
// one_hot (ids as a mask). Only gather carries a gradient: topk and one_hot
// produce integers, which tp-differentiate never differentiates.
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

static bool isIndexType(Type t) {
  return t.isSignlessInteger(64) || t.isSignlessInteger(32);
}

/// `what` of \p op is an i64 or i32 tensor.
static LogicalResult expectIndices(Operation *op, StringRef what, Value v) {
  Type t = getTensorLikeElementType(v.getType());
  if (!isIndexType(t))
    return op->emitOpError()
           << what << " must be an i64 or i32 tensor, not " << t;
  return success();
}

/// `dim` names a dim of a tensor of `rank` dims: counted from the front.
static FailureOr<int64_t> indexDim(Operation *op, int64_t dim, size_t rank) {
  return normalizedDim(op, dim, static_cast<int64_t>(rank));
}

/// `part` agrees with `whole` on every dim but `dim`.
static LogicalResult expectAlong(Operation *op, StringRef what,
                                 ArrayRef<int64_t> part,
                                 ArrayRef<int64_t> whole, int64_t dim) {
  SmallVector<int64_t> expected(whole);
  if (part.size() == whole.size())
    expected[dim] = part[dim];
  return expectShape(op, what, part, expected);
}

LogicalResult TopkOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  FailureOr<int64_t> d = indexDim(*this, getDim(), in.size());
  if (failed(d) || failed(expectIndices(*this, "result", getResult())))
    return failure();
  if (!isa<FloatType>(getTensorLikeElementType(getInput().getType())))
    return emitOpError("ranks a float tensor");
  if (failed(expectAlong(*this, "result", out, in, *d)))
    return failure();
  if (!ShapedType::isDynamic(out[*d]) && !ShapedType::isDynamic(in[*d]) &&
      out[*d] > in[*d])
    return emitOpError() << "cannot pick " << out[*d] << " of " << in[*d]
                         << " elements along dim " << *d;
  return success();
}

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), idx = shapeOf(getIndex());
  FailureOr<int64_t> d = indexDim(*this, getDim(), in.size());
  if (failed(d) || failed(expectIndices(*this, "index", getIndex())) ||
      failed(expectAlong(*this, "index", idx, in, *d)) ||
      failed(expectShape(*this, "result", shapeOf(getResult()), idx)))
    return failure();
  if (getTensorLikeElementType(getInput().getType()) !=
      getTensorLikeElementType(getResult().getType()))
    return emitOpError("result must have the input's element type");
  return success();
}

LogicalResult GatherGradOp::verify() {
  ArrayRef<int64_t> out = shapeOf(getResult()), g = shapeOf(getGrad());
  FailureOr<int64_t> d = indexDim(*this, getDim(), out.size());
  if (failed(d) || failed(expectIndices(*this, "index", getIndex())) ||
      failed(expectAlong(*this, "grad", g, out, *d)) ||
      failed(expectShape(*this, "index", shapeOf(getIndex()), g)))
    return failure();
  Type t = getTensorLikeElementType(getResult().getType());
  if (!isa<FloatType>(t) || getTensorLikeElementType(getGrad().getType()) != t)
    return emitOpError("grad and result must be float tensors of one type");
  return success();
}

LogicalResult OneHotOp::verify() {
  if (failed(expectIndices(*this, "ids", getIds())))
    return failure();
  ArrayRef<int64_t> ids = shapeOf(getIds()), out = shapeOf(getResult());
  if (out.size() != ids.size() + 1)
    return emitOpError() << "result must have one more dim than the ids ("
                         << ids.size() + 1 << "), got " << out.size();
  if (failed(expectShape(*this, "result", out.drop_back(), ids)))
    return failure();
  if (!ShapedType::isDynamic(out.back()) && out.back() < 1)
    return emitOpError() << "needs at least one class, got " << out.back();
  Type t = getTensorLikeElementType(getResult().getType());
  if (!isIndexType(t) && !t.isF32() && !t.isBF16() && !t.isF16())
    return emitOpError() << "result must be i64, i32 or a float tensor, not "
                         << t;
  return success();
}

//===----------------------------------------------------------------------===//
// Sharding rules
//===----------------------------------------------------------------------===//

AxisRule TopkOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // Ranking is not linear: a Partial input is reduced first.
  return alongDimsRule(*this, in, n, getDim(), FactorRule::Linearity::None);
}

AxisRule GatherOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // Picks elements of the input (the index is never Partial).
  return alongDimsRule(*this, in, n, getDim(),
                       FactorRule::Linearity::MovesElements);
}

AxisRule GatherGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // Sums picked elements: linear in the gradient, so Partial(sum) passes
  // (and only sum: a position picked twice adds).
  return alongDimsRule(*this, in, n, getDim(),
                       FactorRule::Linearity::EachOperand);
}

AxisRule OneHotOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  // The ids' dims are parallel factors; the class dim is a factor only the
  // result has, never sharded.
  SmallVector<int64_t> ids(shapeOf(getIds()));
  FactorRule rule;
  rule.factors.resize(ids.size() + 1);
  rule.factors.back().kind = FactorRule::FactorKind::Replicated;
  auto dims = llvm::to_vector(llvm::seq<int64_t>(0, ids.size()));
  rule.operands.push_back(dims);
  rule.shapes.push_back(ids);
  rule.result = dims;
  rule.result.push_back(static_cast<int64_t>(ids.size()));
  return AxisRuleBuilder(getContext(), n).fromFactors(rule, in);
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

LogicalResult GatherGradOp::backward(GradientBuilder &b, Value grad) {
  // Linear in `grad`: each element went to one position, whose gradient it
  // reads back (the index is never differentiated).
  Value g = getGrad();
  b.accumulate(g, GatherOp::create(b.getBuilder(), getLoc(),
                                   GradientBuilder::gradType(g), grad,
                                   getIndex(), getDim()));
  return success();
}

LogicalResult GatherOp::backward(GradientBuilder &b, Value grad) {
  Value x = getInput();
  b.accumulate(x, GatherGradOp::create(b.getBuilder(), getLoc(),
                                       GradientBuilder::gradType(x), grad,
                                       getIndex(), getDim()));
  return success();
}
