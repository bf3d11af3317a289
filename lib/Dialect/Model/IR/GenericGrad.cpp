//===- GenericGrad.cpp - the backward rule of model.generic -----*- C++ -*-===//
//
// model.generic's gradient with respect to each operand is itself a
// model.generic over the same loops: its body is the forward body followed
// by the body's derivative with respect to that operand's element (forward
// mode over the scalar ops), times the result's gradient element, summed
// over the loops the operand does not index (a broadcast's gradient is a
// sum). A loop nest with reduction loops is differentiated when its body
// combines the result by one addf (a sum: the init's gradient is the
// result's, each input's the derivative of the summed term).
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/GradientBuilder.h"
#include "tp/Dialect/Model/IR/ModelOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;

namespace {
/// Tangents of the body's scalar values with respect to one argument,
/// built after the cloned body (a null tangent is zero).
class Tangents {
public:
  Tangents(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  void seed(Value arg) { tangents[arg] = constant(arg.getType(), 1.0); }
  Value of(Value v) const { return tangents.lookup(v); }

  /// The tangent of \p op's result from its operands' (which are set), or
  /// failure naming an op whose derivative is not known.
  LogicalResult visit(Operation *op) {
    if (op->getNumResults() != 1)
      return op->emitOpError("in a model.generic body has no derivative");
    Value y = op->getResult(0);
    if (!isa<FloatType>(y.getType()))
      return success(); // comparisons: no tangent
    auto t = [&](unsigned i) { return of(op->getOperand(i)); };
    if (llvm::none_of(op->getOperands(), [&](Value v) { return of(v); }))
      return success();
    Value x = op->getNumOperands() ? op->getOperand(0) : Value();
    Value r;
    StringRef name = op->getName().getStringRef();
    if (name == "arith.addf")
      r = add(t(0), t(1));
    else if (name == "arith.subf")
      r = add(t(0), neg(t(1)));
    else if (name == "arith.mulf")
      r = add(mul(t(0), op->getOperand(1)), mul(op->getOperand(0), t(1)));
    else if (name == "arith.divf") // (ta - y tb) / b
      r = div(add(t(0), neg(mul(y, t(1)))), op->getOperand(1));
    else if (name == "arith.negf")
      r = neg(t(0));
    else if (name == "arith.maximumf" || name == "arith.maxnumf" ||
             name == "arith.minimumf" || name == "arith.minnumf") {
      bool max = name.contains("max");
      Value first = arith::CmpFOp::create(
          b, loc, max ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OLE,
          op->getOperand(0), op->getOperand(1));
      r = select(first, t(0), t(1), y.getType());
    } else if (name == "arith.select")
      r = select(op->getOperand(0), t(1), t(2), y.getType());
    else if (name == "arith.extf")
      r = arith::ExtFOp::create(b, loc, y.getType(), t(0));
    else if (name == "arith.truncf")
      r = arith::TruncFOp::create(b, loc, y.getType(), t(0));
    else if (name == "math.exp")
      r = mul(t(0), y);
    else if (name == "math.expm1")
      r = mul(t(0), add(y, constant(y.getType(), 1.0)));
    else if (name == "math.log")
      r = div(t(0), x);
    else if (name == "math.log1p")
      r = div(t(0), add(x, constant(y.getType(), 1.0)));
    else if (name == "math.tanh") // t (1 - y^2)
      r = mul(t(0), add(constant(y.getType(), 1.0), neg(mul(y, y))));
    else if (name == "math.sqrt") // t / (2 y)
      r = div(t(0), mul(constant(y.getType(), 2.0), y));
    else if (name == "math.rsqrt") // -t y / (2 x)
      r = neg(div(mul(t(0), y), mul(constant(y.getType(), 2.0), x)));
    else if (name == "math.erf") // t 2/sqrt(pi) exp(-x^2)
      r = mul(t(0), mul(constant(y.getType(), 2.0 / std::sqrt(M_PI)),
                        math::ExpOp::create(b, loc, neg(mul(x, x)))));
    else if (name == "math.sin")
      r = mul(t(0), math::CosOp::create(b, loc, x));
    else if (name == "math.cos")
      r = neg(mul(t(0), math::SinOp::create(b, loc, x)));
    else if (name == "math.tan") // t (1 + y^2)
      r = mul(t(0), add(constant(y.getType(), 1.0), mul(y, y)));
    else if (name == "math.atan") // t / (1 + x^2)
      r = div(t(0), add(constant(y.getType(), 1.0), mul(x, x)));
    else if (name == "math.absf") { // t sign(x), 0 at 0 (as torch.abs)
      Value zero = constant(y.getType(), 0.0);
      Value pos =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
      Value negative =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
      r = select(pos, t(0), select(negative, neg(t(0)), Value(), y.getType()),
                 y.getType());
    } else if (name == "math.powf") { // ta b a^(b-1) + tb y log(a)
      Value a = op->getOperand(0), e = op->getOperand(1);
      Value da;
      if (t(0)) {
        Value em1 = add(e, constant(y.getType(), -1.0));
        da = mul(t(0), mul(e, math::PowFOp::create(b, loc, a, em1)));
      }
      Value db;
      if (t(1))
        db = mul(t(1), mul(y, math::LogOp::create(b, loc, a)));
      r = add(da, db);
    } else if (name == "math.floor" || name == "math.ceil")
      return success(); // zero almost everywhere, as PyTorch's
    else
      return op->emitOpError()
             << "in a model.generic body has no derivative (tp-differentiate "
                "differentiates arith and math float ops)";
    tangents[y] = r;
    return success();
  }

private:
  Value constant(Type type, double v) {
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, v));
  }
  Value add(Value a, Value c) {
    if (!a || !c)
      return a ? a : c;
    return arith::AddFOp::create(b, loc, a, c);
  }
  Value mul(Value a, Value c) {
    if (!a || !c)
      return Value();
    return arith::MulFOp::create(b, loc, a, c);
  }
  Value div(Value a, Value c) {
    return a ? arith::DivFOp::create(b, loc, a, c).getResult() : Value();
  }
  Value neg(Value a) {
    return a ? arith::NegFOp::create(b, loc, a).getResult() : Value();
  }
  /// select(c, x, y) of tangents, a null one as zero.
  Value select(Value c, Value x, Value y, Type type) {
    if (!x && !y)
      return Value();
    return arith::SelectOp::create(b, loc, c, x ? x : constant(type, 0.0),
                                   y ? y : constant(type, 0.0));
  }

  OpBuilder &b;
  Location loc;
  DenseMap<Value, Value> tangents;
};
} // namespace

/// The gradient of operand \p k of \p op (a model.generic) for the
/// result's gradient \p grad: null when the body's value does not depend
/// on that operand's element.
static FailureOr<Value> operandGrad(OpBuilder &b, GenericOp op, unsigned k,
                                    Value grad) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = op.getLoc();
  unsigned n = op.getNumOperands();
  Value operand = op.getOperand(k);
  auto gradType = GradientBuilder::gradType(operand);
  SmallVector<Attribute> maps(op.getIndexingMaps().getValue());
  AffineMap own = cast<AffineMapAttr>(maps[k]).getValue();
  llvm::SmallDenseSet<unsigned> indexed;
  for (AffineExpr e : own.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e))
      if (!indexed.insert(d.getPosition()).second)
        return op.emitOpError() << "has no backward rule for operand " << k
                                << ", which reads one loop in two of its dims";
  // The loops it does not index sum its gradient.
  SmallVector<StringRef> iterators;
  for (unsigned l = 0; l < own.getNumDims(); ++l)
    iterators.push_back(indexed.contains(l) ? "parallel" : "reduction");
  // The gradient over the operand's indexed dims (an init names loops
  // only); its dims of size 1 read at 0 come back with a reshape.
  SmallVector<AffineExpr> outDims;
  SmallVector<int64_t> outShape;
  for (auto [d, e] : llvm::enumerate(own.getResults()))
    if (isa<AffineDimExpr>(e)) {
      outDims.push_back(e);
      outShape.push_back(gradType.getDimSize(d));
    }
  auto outType = RankedTensorType::get(outShape, gradType.getElementType());
  maps.push_back(maps[n - 1]); // the result's gradient, as the result
  maps.push_back(AffineMapAttr::get(
      AffineMap::get(own.getNumDims(), 0, outDims, op.getContext())));
  SmallVector<Value> operands(op.getOperands());
  operands.push_back(grad);
  operands.push_back(FullOp::create(b, loc, outType, b.getF64FloatAttr(0.0)));
  auto g = GenericOp::create(b, loc, outType, operands, b.getArrayAttr(maps),
                             b.getStrArrayAttr(iterators));
  Block &fwd = op.getBody().front();
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value v : operands) {
    argTypes.push_back(getTensorLikeElementType(v.getType()));
    argLocs.push_back(loc);
  }
  Block *body = b.createBlock(&g.getBody(), {}, argTypes, argLocs);
  // The forward body's ops, then their tangents. In a sum's body the
  // running value (the init's argument, here the init's element) has no
  // tangent, so addf(acc, term) differentiates as its term.
  IRMapping mapping;
  for (unsigned i = 0; i < n; ++i)
    mapping.map(fwd.getArgument(i), body->getArgument(i));
  SmallVector<Operation *> cloned;
  for (Operation &inner : fwd.without_terminator())
    cloned.push_back(b.clone(inner, mapping));
  Tangents tangents(b, loc);
  tangents.seed(body->getArgument(k));
  for (Operation *inner : cloned)
    if (failed(tangents.visit(inner))) {
      g.erase();
      return failure();
    }
  Value yielded =
      mapping.lookup(cast<GenericYieldOp>(fwd.getTerminator()).getValue());
  Value t = tangents.of(yielded);
  if (!t) {
    g.erase();
    return Value();
  }
  Value gradElt = body->getArgument(n), acc = body->getArgument(n + 1);
  Value term = arith::MulFOp::create(b, loc, gradElt, t);
  GenericYieldOp::create(b, loc, arith::AddFOp::create(b, loc, acc, term));
  // The forward's values the derivative does not read (its result, often)
  // are not computed: the body's ops are pure scalar ops.
  SmallVector<Operation *> ops;
  for (Operation &inner : body->without_terminator())
    ops.push_back(&inner);
  for (Operation *inner : llvm::reverse(ops))
    if (inner->use_empty())
      inner->erase();
  b.setInsertionPointAfter(g);
  if (outType == gradType)
    return g.getResult();
  return ReshapeOp::create(b, loc, gradType, g.getResult()).getResult();
}

LogicalResult GenericOp::backward(GradientBuilder &b, Value grad) {
  bool reduces = llvm::any_of(getIteratorTypes(), [](Attribute t) {
    return cast<StringAttr>(t).getValue() == "reduction";
  });
  if (reduces && getCombiner() != ReductionKind::Sum)
    return emitOpError()
           << "has no backward rule: its reduction loops combine the result "
              "other than by one arith.addf (a sum)";
  unsigned n = getNumOperands();
  for (unsigned k = 0; k < n; ++k) {
    Value operand = getOperand(k);
    if (!b.isActive(operand) ||
        !isa<FloatType>(getTensorLikeElementType(operand.getType())))
      continue;
    bool init = k == n - 1;
    if (init && reduces) {
      // result = init + the sum: the init's gradient is the result's.
      b.accumulate(operand, grad);
      continue;
    }
    if (init && !readsInit())
      continue;
    FailureOr<Value> g = operandGrad(b.getBuilder(), *this, k, grad);
    if (failed(g))
      return failure();
    if (*g)
      b.accumulate(operand, *g);
  }
  return success();
}
