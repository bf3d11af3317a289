//===- MaskOps.cpp - comparisons, logic and where as linalg -----*- C++ -*-===//
//
// The mask ops as element-wise linalg.generic, with the results of
// lib/Runtime/MaskKernels.cpp: a comparison reads both operands as f64
// (exact for f32, bf16, f16, i32, i1 and the ids an i64 holds) and
// compares as IEEE does; logic is on i1; where is arith.select.
//
//===----------------------------------------------------------------------===//

#include "LinalgEmitter.h"

#include "tp/Dialect/Model/IR/ModelOps.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::linalg_export;
namespace m = mlir::tp::model;

/// \p v (a float or an integer, i1 unsigned) as f64.
static Value asF64(OpBuilder &b, Location l, Value v) {
  Type t = v.getType();
  if (t.isF64())
    return v;
  if (isa<FloatType>(t))
    return arith::ExtFOp::create(b, l, b.getF64Type(), v);
  if (t.isInteger(1))
    return arith::UIToFPOp::create(b, l, b.getF64Type(), v);
  return arith::SIToFPOp::create(b, l, b.getF64Type(), v);
}

static arith::CmpFPredicate predicateOf(StringRef name) {
  using P = arith::CmpFPredicate;
  // Ordered, except `ne`: true when either side is NaN, as in C++.
  return llvm::StringSwitch<P>(name)
      .Case("eq", P::OEQ)
      .Case("ne", P::UNE)
      .Case("lt", P::OLT)
      .Case("le", P::OLE)
      .Case("gt", P::OGT)
      .Default(P::OGE);
}

void mlir::tp::linalg_export::populateMaskExportPatterns(RewritePatternSet &p) {
  using T = RankedTensorType;
  addExport<m::CompareOp>(
      p, [](m::CompareOp c, ValueRange ops, Emitter &e, T type) {
        arith::CmpFPredicate pred = predicateOf(c.getPredicate());
        return e.elementwise(
            type.getShape(), type.getElementType(), {ops[0], ops[1]},
            [&](OpBuilder &b, Location l, ValueRange a) {
              return SmallVector<Value>{arith::CmpFOp::create(
                  b, l, pred, asF64(b, l, a[0]), asF64(b, l, a[1]))};
            });
      });
  addExport<m::LogicalNotOp>(
      p, [](m::LogicalNotOp, ValueRange ops, Emitter &e, T type) {
        return e.elementwise(
            type.getShape(), type.getElementType(), {ops[0]},
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value one = arith::ConstantIntOp::create(b, l, 1, 1);
              return SmallVector<Value>{arith::XOrIOp::create(b, l, a[0], one)};
            });
      });
  addExport<m::LogicalAndOp>(p, [](m::LogicalAndOp, ValueRange ops, Emitter &e,
                                   T type) {
    return e.elementwise(
        type.getShape(), type.getElementType(), {ops[0], ops[1]},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return SmallVector<Value>{arith::AndIOp::create(b, l, a[0], a[1])};
        });
  });
  addExport<m::LogicalOrOp>(
      p, [](m::LogicalOrOp, ValueRange ops, Emitter &e, T type) {
        return e.elementwise(
            type.getShape(), type.getElementType(), {ops[0], ops[1]},
            [&](OpBuilder &b, Location l, ValueRange a) {
              return SmallVector<Value>{arith::OrIOp::create(b, l, a[0], a[1])};
            });
      });
  addExport<m::WhereOp>(p, [](m::WhereOp, ValueRange ops, Emitter &e, T type) {
    return e.elementwise(type.getShape(), type.getElementType(),
                         {ops[0], ops[1], ops[2]},
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           return SmallVector<Value>{
                               arith::SelectOp::create(b, l, a[0], a[1], a[2])};
                         });
  });
}
