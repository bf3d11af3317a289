//===- IndexOps.cpp - topk, gather and one_hot as linalg --------*- C++ -*-===//
//
// The ops that compute or follow integer indices, as linalg.generic with
// the results of lib/Runtime/IndexKernels.cpp: topk ranks every element
// against its row (the kernel's order: larger first, NaN above numbers,
// ties by position) and picks the positions of ranks 0..k-1; gather reads
// at its indices; gather_grad sums, for each position, the gradient
// elements whose index names it, in the kernel's order; one_hot compares.
// The kernels throw on an index out of range; the exported code clamps it
// (it has no way to fail).
//
//===----------------------------------------------------------------------===//

#include "LinalgEmitter.h"

#include "mlir/IR/AffineMap.h"
#include "tp/Dialect/Model/IR/ModelOps.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::linalg_export;
namespace m = mlir::tp::model;

/// The map of an `n`-dim operand from `n + 1` loops, the operand's `dim`
/// read by the extra loop `n`.
static AffineMap alongLoop(MLIRContext *ctx, unsigned n, unsigned dim) {
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d < n; ++d)
    dims.push_back(d == dim ? n : d);
  return dimsMap(ctx, n + 1, dims);
}

/// The loop indices 0..n-1 inside a generic's body.
static SmallVector<Value> loopIndices(OpBuilder &b, Location l, unsigned n) {
  SmallVector<Value> idx;
  for (unsigned d = 0; d < n; ++d)
    idx.push_back(linalg::IndexOp::create(b, l, d));
  return idx;
}

/// An integer id as an `index` in [0, size).
static Value clampedPosition(OpBuilder &b, Location l, Value id, int64_t size) {
  if (!id.getType().isIndex())
    id = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
  Emitter e(b, l);
  id = arith::MaxSIOp::create(b, l, id, e.index(0));
  return arith::MinSIOp::create(b, l, id, e.index(size - 1));
}

static Value topk(Emitter &e, Value x, int64_t dim, RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  unsigned d = static_cast<unsigned>(dim);
  Type i64 = e.builder().getI64Type();
  // rank[.., j, ..] = how many elements m of the row come before j.
  Value zeros = e.full(shape, i64, 0.0);
  Value ranks = e.generic(
      n + 1, {x, x},
      {dimsMap(ctx, n + 1, llvm::to_vector(llvm::seq(0u, n))),
       alongLoop(ctx, n, d)},
      {zeros}, {dimsMap(ctx, n + 1, llvm::to_vector(llvm::seq(0u, n)))},
      iterators(n + 1, {n}), [&](OpBuilder &b, Location l, ValueRange a) {
        Value vj = a[0], vm = a[1], acc = a[2];
        Value j = linalg::IndexOp::create(b, l, d);
        Value mi = linalg::IndexOp::create(b, l, n);
        using P = arith::CmpFPredicate;
        Value nanJ = arith::CmpFOp::create(b, l, P::UNO, vj, vj);
        Value nanM = arith::CmpFOp::create(b, l, P::UNO, vm, vm);
        Value greater = arith::CmpFOp::create(b, l, P::OGT, vm, vj);
        Value equal = arith::CmpFOp::create(b, l, P::OEQ, vm, vj);
        Value earlier =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, mi, j);
        // Both NaN, or equal: by position.
        Value same = arith::OrIOp::create(
            b, l, arith::AndIOp::create(b, l, nanJ, nanM), equal);
        Value tie = arith::AndIOp::create(b, l, same, earlier);
        Value nanFirst = arith::AndIOp::create(
            b, l, nanM,
            arith::XOrIOp::create(b, l, nanJ,
                                  arith::ConstantIntOp::create(b, l, 1, 1)));
        Value before = arith::OrIOp::create(
            b, l, arith::OrIOp::create(b, l, greater, nanFirst), tie);
        Value one = arith::ExtUIOp::create(b, l, b.getI64Type(), before);
        return SmallVector<Value>{arith::AddIOp::create(b, l, acc, one)};
      })[0];
  // result[.., r, ..] = the j whose rank is r (one per r).
  Type elt = type.getElementType();
  Value init = e.full(type.getShape(), i64, 0.0);
  Value picked = e.generic(
      n + 1, {ranks}, {alongLoop(ctx, n, d)}, {init},
      {dimsMap(ctx, n + 1, llvm::to_vector(llvm::seq(0u, n)))},
      iterators(n + 1, {n}), [&](OpBuilder &b, Location l, ValueRange a) {
        Value r = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                             linalg::IndexOp::create(b, l, d));
        Value j = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                             linalg::IndexOp::create(b, l, n));
        Value hit =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[0], r);
        Value add = arith::SelectOp::create(
            b, l, hit, j, arith::ConstantIntOp::create(b, l, 0, 64));
        return SmallVector<Value>{arith::AddIOp::create(b, l, a[1], add)};
      })[0];
  if (elt == i64)
    return picked;
  return e.elementwise(type.getShape(), elt, {picked},
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         return SmallVector<Value>{
                             arith::TruncIOp::create(b, l, elt, a[0])};
                       });
}

static Value gather(Emitter &e, Value x, Value index, int64_t dim,
                    RankedTensorType type) {
  unsigned n = type.getRank();
  int64_t size = shapeOf(x)[dim];
  return e.generic(n, {index}, {identityMap(e.ctx(), n)},
                   {e.empty(type.getShape(), type.getElementType())},
                   {identityMap(e.ctx(), n)}, iterators(n),
                   [&](OpBuilder &b, Location l, ValueRange a) {
                     SmallVector<Value> at = loopIndices(b, l, n);
                     at[dim] = clampedPosition(b, l, a[0], size);
                     return SmallVector<Value>{
                         tensor::ExtractOp::create(b, l, x, at)};
                   })[0];
}

static Value gatherGrad(Emitter &e, Value g, Value index, int64_t dim,
                        RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  unsigned n = type.getRank();
  unsigned d = static_cast<unsigned>(dim);
  Type elt = type.getElementType();
  Value zeros = e.full(type.getShape(), elt, 0.0);
  return e.generic(
      n + 1, {g, index}, {alongLoop(ctx, n, d), alongLoop(ctx, n, d)}, {zeros},
      {dimsMap(ctx, n + 1, llvm::to_vector(llvm::seq(0u, n)))},
      iterators(n + 1, {n}), [&](OpBuilder &b, Location l, ValueRange a) {
        Value id = a[1];
        if (!id.getType().isInteger(64))
          id = arith::ExtSIOp::create(b, l, b.getI64Type(), id);
        Value p = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                             linalg::IndexOp::create(b, l, d));
        Value hit =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, id, p);
        Value sum = arith::AddFOp::create(b, l, a[2], a[0]);
        return SmallVector<Value>{
            arith::SelectOp::create(b, l, hit, sum, a[2])};
      })[0];
}

static Value oneHot(Emitter &e, Value ids, RankedTensorType type) {
  unsigned n = type.getRank();
  Type elt = type.getElementType();
  return e.generic(
      n, {ids}, {dimsMap(e.ctx(), n, llvm::to_vector(llvm::seq(0u, n - 1)))},
      {e.empty(type.getShape(), elt)}, {identityMap(e.ctx(), n)}, iterators(n),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value id = a[0];
        if (!id.getType().isInteger(64))
          id = arith::ExtSIOp::create(b, l, b.getI64Type(), id);
        Value c = arith::IndexCastOp::create(
            b, l, b.getI64Type(), linalg::IndexOp::create(b, l, n - 1));
        Value hit =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, id, c);
        return SmallVector<Value>{arith::SelectOp::create(
            b, l, hit, be.scalar(elt, 1.0), be.scalar(elt, 0.0))};
      })[0];
}

void mlir::tp::linalg_export::populateIndexExportPatterns(
    RewritePatternSet &p) {
  using T = RankedTensorType;
  addExport<m::TopkOp>(p, [](m::TopkOp t, ValueRange ops, Emitter &e, T type) {
    return topk(e, ops[0], frontDim(t, type.getRank()), type);
  });
  addExport<m::GatherOp>(
      p, [](m::GatherOp g, ValueRange ops, Emitter &e, T type) {
        return gather(e, ops[0], ops[1], frontDim(g, type.getRank()), type);
      });
  addExport<m::GatherGradOp>(
      p, [](m::GatherGradOp g, ValueRange ops, Emitter &e, T type) {
        return gatherGrad(e, ops[0], ops[1], frontDim(g, type.getRank()), type);
      });
  addExport<m::OneHotOp>(p, [](m::OneHotOp, ValueRange ops, Emitter &e,
                               T type) { return oneHot(e, ops[0], type); });
}
