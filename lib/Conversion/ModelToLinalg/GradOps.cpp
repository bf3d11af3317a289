//===- GradOps.cpp - the training step's ops as linalg --------------------===//
//
// The backward ops tp-differentiate emits and the gradient clipping of
// tp-optimizer-step, each with the numerics of its runtime kernel
// (lib/Runtime/GradKernels.cpp, TransformerGradKernels.cpp, Optimizers.cpp).
// The updates are in OptimizerOps.cpp, dropout_grad in DropoutOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "LinalgEmitter.h"

#include "mlir/IR/AffineMap.h"
#include "tp/Dialect/Model/IR/ModelOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::linalg_export;
namespace m = mlir::tp::model;

static SmallVector<Value> yield1(Value v) { return SmallVector<Value>{v}; }

/// Loops over `shape` less its last dim, for row statistics.
static AffineMap rowMap(MLIRContext *ctx, unsigned n) {
  SmallVector<unsigned> lead;
  for (unsigned i = 0; i + 1 < n; ++i)
    lead.push_back(i);
  return dimsMap(ctx, n, lead);
}

static Value linearGradInput(Emitter &e, Value g, Value w,
                             RankedTensorType type) {
  // gx[..., i] = sum_o g[..., o] w[o, i]: loops (..., i, o).
  MLIRContext *ctx = e.ctx();
  unsigned n = shapeOf(g).size(), numDims = n + 1, i = n - 1, o = n;
  SmallVector<unsigned> gDims, outDims;
  for (unsigned d = 0; d + 1 < n; ++d) {
    gDims.push_back(d);
    outDims.push_back(d);
  }
  gDims.push_back(o);
  outDims.push_back(i);
  return e.generic(
      numDims, {g, w},
      {dimsMap(ctx, numDims, gDims), dimsMap(ctx, numDims, {o, i})},
      {e.full(type.getShape(), e.f32(), 0.0)}, {dimsMap(ctx, numDims, outDims)},
      iterators(numDims, {o}), [](OpBuilder &b, Location l, ValueRange a) {
        Value p = arith::MulFOp::create(b, l, a[0], a[1]);
        return yield1(arith::AddFOp::create(b, l, a[2], p));
      })[0];
}

static Value linearGradWeight(Emitter &e, Value g, Value x,
                              RankedTensorType type) {
  // gw[o, i] = sum over the leading dims of g[..., o] x[..., i]: loops
  // (o, i, ...).
  MLIRContext *ctx = e.ctx();
  unsigned n = shapeOf(g).size(), lead = n - 1, numDims = lead + 2;
  SmallVector<unsigned> gDims, xDims, reductions;
  for (unsigned d = 0; d < lead; ++d) {
    gDims.push_back(2 + d);
    xDims.push_back(2 + d);
    reductions.push_back(2 + d);
  }
  gDims.push_back(0);
  xDims.push_back(1);
  return e.generic(numDims, {g, x},
                   {dimsMap(ctx, numDims, gDims), dimsMap(ctx, numDims, xDims)},
                   {e.full(type.getShape(), e.f32(), 0.0)},
                   {dimsMap(ctx, numDims, {0, 1})},
                   iterators(numDims, reductions),
                   [](OpBuilder &b, Location l, ValueRange a) {
                     Value p = arith::MulFOp::create(b, l, a[0], a[1]);
                     return yield1(arith::AddFOp::create(b, l, a[2], p));
                   })[0];
}

/// The adjoint of broadcasting: `g` summed (in double, as reduceTo) to
/// `type`'s shape.
static Value sumTo(Emitter &e, Value g, RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> gs = shapeOf(g), to = type.getShape();
  unsigned n = gs.size(), r = to.size();
  // The loops of g a result dim keeps (same extent): the rest are summed.
  SmallVector<unsigned> kept, reductions;
  SmallVector<int64_t> keptShape;
  for (unsigned d = 0; d < n; ++d) {
    bool keep = d + r >= n && to[d + r - n] == gs[d];
    if (keep) {
      kept.push_back(d);
      keptShape.push_back(gs[d]);
    } else {
      reductions.push_back(d);
    }
  }
  Value sums = e.generic(n, {g}, {identityMap(ctx, n)},
                         {e.full(keptShape, e.f64(), 0.0)},
                         {dimsMap(ctx, n, kept)}, iterators(n, reductions),
                         [](OpBuilder &b, Location l, ValueRange a) {
                           Value w = Emitter(b, l).extF64(a[0]);
                           return yield1(arith::AddFOp::create(b, l, a[1], w));
                         })[0];
  Value f = e.elementwise(keptShape, e.f32(), {sums},
                          [](OpBuilder &b, Location l, ValueRange a) {
                            return yield1(Emitter(b, l).truncF32(a[0]));
                          });
  return e.reshape(f, to);
}

static Value geluGrad(OpBuilder &b, Location l, Value g, Value x) {
  Emitter e(b, l);
  Type f32 = e.f32();
  Value xs = arith::MulFOp::create(b, l, x, e.scalar(f32, 0.70710678118654752));
  Value cdf = arith::MulFOp::create(
      b, l, e.scalar(f32, 0.5),
      arith::AddFOp::create(b, l, e.scalar(f32, 1.0),
                            math::ErfOp::create(b, l, xs)));
  // invSqrt2Pi * exp(double(-0.5f * x * x)), rounded to float.
  Value sq = arith::MulFOp::create(
      b, l, arith::MulFOp::create(b, l, e.scalar(f32, -0.5), x), x);
  Value ex = math::ExpOp::create(b, l, e.extF64(sq));
  double invSqrt2Pi = static_cast<float>(0.39894228040143268);
  Value pdf = e.truncF32(
      arith::MulFOp::create(b, l, e.scalar(e.f64(), invSqrt2Pi), ex));
  Value sum =
      arith::AddFOp::create(b, l, cdf, arith::MulFOp::create(b, l, x, pdf));
  return arith::MulFOp::create(b, l, g, sum);
}

static Value siluGrad(OpBuilder &b, Location l, Value g, Value x) {
  Emitter e(b, l);
  Type f32 = e.f32();
  // s = 1 / (1 + exp(-x)) in double, rounded to float.
  Value ex =
      math::ExpOp::create(b, l, arith::NegFOp::create(b, l, e.extF64(x)));
  Value s = e.truncF32(arith::DivFOp::create(
      b, l, e.scalar(e.f64(), 1.0),
      arith::AddFOp::create(b, l, e.scalar(e.f64(), 1.0), ex)));
  Value oneMinusS = arith::SubFOp::create(b, l, e.scalar(f32, 1.0), s);
  Value inner = arith::AddFOp::create(
      b, l, e.scalar(f32, 1.0), arith::MulFOp::create(b, l, x, oneMinusS));
  return arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, g, s), inner);
}

/// Row sums over the last dim of `terms(g, x, rowStats...)`, in double; one
/// output per value `terms` returns.
static SmallVector<Value> rowSums(
    Emitter &e, ValueRange inputs, ArrayRef<AffineMap> maps, unsigned numSums,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        terms) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(inputs[0]);
  unsigned n = shape.size();
  SmallVector<int64_t> rows(shape.drop_back());
  SmallVector<Value> inits;
  SmallVector<AffineMap> outMaps;
  for (unsigned i = 0; i < numSums; ++i) {
    inits.push_back(e.full(rows, e.f64(), 0.0));
    outMaps.push_back(rowMap(ctx, n));
  }
  unsigned numIn = inputs.size();
  return e.generic(n, inputs, maps, inits, outMaps, iterators(n, {n - 1}),
                   [&](OpBuilder &b, Location l, ValueRange a) {
                     SmallVector<Value> t = terms(b, l, a.take_front(numIn));
                     SmallVector<Value> out;
                     for (unsigned i = 0; i < numSums; ++i)
                       out.push_back(
                           arith::AddFOp::create(b, l, a[numIn + i], t[i]));
                     return out;
                   });
}

/// Sums over every row (all dims but the last) of `term`, in double,
/// rounded to a float `[D]`.
static Value
columnSums(Emitter &e, ValueRange inputs, ArrayRef<AffineMap> maps,
           llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(inputs[0]);
  unsigned n = shape.size();
  SmallVector<unsigned> lead;
  for (unsigned i = 0; i + 1 < n; ++i)
    lead.push_back(i);
  unsigned numIn = inputs.size();
  Value sums =
      e.generic(n, inputs, maps, {e.full({shape.back()}, e.f64(), 0)},
                {dimsMap(ctx, n, {n - 1})}, iterators(n, lead),
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value t = term(b, l, a.take_front(numIn));
                  return yield1(arith::AddFOp::create(b, l, a[numIn], t));
                })[0];
  return e.elementwise({shape.back()}, e.f32(), {sums},
                       [](OpBuilder &b, Location l, ValueRange a) {
                         return yield1(Emitter(b, l).truncF32(a[0]));
                       });
}

/// mean and rstd = 1 / sqrt(var + eps) of a row, in double (rowMoments).
static std::pair<Value, Value> layerNormStats(OpBuilder &b, Location l,
                                              Value sum, Value sq, double d,
                                              double eps) {
  Emitter e(b, l);
  Value dd = e.scalar(e.f64(), d);
  Value mean = arith::DivFOp::create(b, l, sum, dd);
  Value var = arith::DivFOp::create(b, l, sq, dd);
  Value ve = arith::AddFOp::create(b, l, var,
                                   e.scalar(e.f64(), static_cast<float>(eps)));
  Value rstd = arith::DivFOp::create(b, l, e.scalar(e.f64(), 1.0),
                                     math::SqrtOp::create(b, l, ve));
  return {mean, rstd};
}

static Value layerNormGradInput(Emitter &e, Value g, Value x, Value w,
                                double eps) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  double d = static_cast<double>(shape.back());
  Value sum = rowSumF64(e, x);
  Value sq = rowCenteredSquaresF64(e, x, sum);
  AffineMap id = identityMap(ctx, n), row = rowMap(ctx, n),
            col = dimsMap(ctx, n, {n - 1});
  // sum(dy) and sum(dy * xhat), dy = double(g) * w.
  SmallVector<Value> sums = rowSums(
      e, {g, x, w, sum, sq}, {id, id, col, row, row}, 2,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        auto [mean, rstd] = layerNormStats(b, l, a[3], a[4], d, eps);
        Value xhat = arith::MulFOp::create(
            b, l, arith::SubFOp::create(b, l, be.extF64(a[1]), mean), rstd);
        Value dy =
            arith::MulFOp::create(b, l, be.extF64(a[0]), be.extF64(a[2]));
        return SmallVector<Value>{dy, arith::MulFOp::create(b, l, dy, xhat)};
      });
  return e.generic(
      n, {g, x, w, sum, sq, sums[0], sums[1]},
      {id, id, col, row, row, row, row}, {e.empty(shape, e.f32())}, {id},
      iterators(n), [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        auto [mean, rstd] = layerNormStats(b, l, a[3], a[4], d, eps);
        Value xhat = arith::MulFOp::create(
            b, l, arith::SubFOp::create(b, l, be.extF64(a[1]), mean), rstd);
        Value dy =
            arith::MulFOp::create(b, l, be.extF64(a[0]), be.extF64(a[2]));
        Value dd = be.scalar(be.f64(), d);
        Value meanDy = arith::DivFOp::create(b, l, a[5], dd);
        Value meanDyXhat = arith::DivFOp::create(b, l, a[6], dd);
        Value v = arith::SubFOp::create(b, l, dy, meanDy);
        v = arith::SubFOp::create(
            b, l, v, arith::MulFOp::create(b, l, xhat, meanDyXhat));
        return yield1(be.truncF32(arith::MulFOp::create(b, l, rstd, v)));
      })[0];
}

static Value layerNormGradWeight(Emitter &e, Value g, Value x, double eps) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  double d = static_cast<double>(shape.back());
  Value sum = rowSumF64(e, x);
  Value sq = rowCenteredSquaresF64(e, x, sum);
  AffineMap id = identityMap(ctx, n), row = rowMap(ctx, n);
  return columnSums(
      e, {g, x, sum, sq}, {id, id, row, row},
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        auto [mean, rstd] = layerNormStats(b, l, a[2], a[3], d, eps);
        Value xhat = arith::MulFOp::create(
            b, l, arith::SubFOp::create(b, l, be.extF64(a[1]), mean), rstd);
        return arith::MulFOp::create(b, l, be.extF64(a[0]), xhat).getResult();
      });
}

/// inv = 1 / sqrt(sumSq / d + eps) in double.
static Value rmsInv(OpBuilder &b, Location l, Value sumSq, double d,
                    double eps) {
  Emitter e(b, l);
  Value ms = arith::DivFOp::create(b, l, sumSq, e.scalar(e.f64(), d));
  ms = arith::AddFOp::create(b, l, ms,
                             e.scalar(e.f64(), static_cast<float>(eps)));
  return arith::DivFOp::create(b, l, e.scalar(e.f64(), 1.0),
                               math::SqrtOp::create(b, l, ms));
}

static Value rmsNormGradInput(Emitter &e, Value g, Value x, Value w,
                              double eps) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  double d = static_cast<double>(shape.back());
  Value sq = rowSquaresF64(e, x);
  AffineMap id = identityMap(ctx, n), row = rowMap(ctx, n),
            col = dimsMap(ctx, n, {n - 1});
  // dot = sum(dy * x), dy = double(g) * w.
  Value dot = rowSums(e, {g, x, w}, {id, id, col}, 1,
                      [](OpBuilder &b, Location l, ValueRange a) {
                        Emitter be(b, l);
                        Value dy = arith::MulFOp::create(b, l, be.extF64(a[0]),
                                                         be.extF64(a[2]));
                        return SmallVector<Value>{
                            arith::MulFOp::create(b, l, dy, be.extF64(a[1]))};
                      })[0];
  return e.generic(
      n, {g, x, w, sq, dot}, {id, id, col, row, row}, {e.empty(shape, e.f32())},
      {id}, iterators(n), [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value inv = rmsInv(b, l, a[3], d, eps);
        Value dy =
            arith::MulFOp::create(b, l, be.extF64(a[0]), be.extF64(a[2]));
        Value inv3 = arith::MulFOp::create(
            b, l, arith::MulFOp::create(b, l, inv, inv), inv);
        Value k =
            arith::DivFOp::create(b, l, arith::MulFOp::create(b, l, inv3, a[4]),
                                  be.scalar(be.f64(), d));
        Value v = arith::SubFOp::create(
            b, l, arith::MulFOp::create(b, l, inv, dy),
            arith::MulFOp::create(b, l, k, be.extF64(a[1])));
        return yield1(be.truncF32(v));
      })[0];
}

static Value rmsNormGradWeight(Emitter &e, Value g, Value x, double eps) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  double d = static_cast<double>(shape.back());
  Value sq = rowSquaresF64(e, x);
  AffineMap id = identityMap(ctx, n), row = rowMap(ctx, n);
  // g * (x * inv), x * inv in double.
  return columnSums(
      e, {g, x, sq}, {id, id, row},
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value inv = rmsInv(b, l, a[2], d, eps);
        Value xi = arith::MulFOp::create(b, l, be.extF64(a[1]), inv);
        return arith::MulFOp::create(b, l, be.extF64(a[0]), xi).getResult();
      });
}

static Value embeddingGrad(Emitter &e, Value g, Value ids,
                           RankedTensorType type) {
  // out[v, j] = sum over positions p with ids[p] == v of g[p, j], in float
  // and in the positions' order, as the runtime's scatter-add. Loops
  // (v, j, p...).
  MLIRContext *ctx = e.ctx();
  unsigned r = shapeOf(ids).size(), numDims = r + 2;
  SmallVector<unsigned> idDims, gDims, reductions;
  for (unsigned d = 0; d < r; ++d) {
    idDims.push_back(2 + d);
    gDims.push_back(2 + d);
    reductions.push_back(2 + d);
  }
  gDims.push_back(1);
  return e.generic(
      numDims, {ids, g},
      {dimsMap(ctx, numDims, idDims), dimsMap(ctx, numDims, gDims)},
      {e.full(type.getShape(), e.f32(), 0.0)}, {dimsMap(ctx, numDims, {0, 1})},
      iterators(numDims, reductions),
      [](OpBuilder &b, Location l, ValueRange a) {
        Value v = linalg::IndexOp::create(b, l, 0);
        Value id = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
        Value hit =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, id, v);
        Value sum = arith::AddFOp::create(b, l, a[2], a[1]);
        return yield1(arith::SelectOp::create(b, l, hit, sum, a[2]));
      })[0];
}

static Value softmaxGrad(Emitter &e, Value g, Value y, int64_t dim) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(y);
  unsigned n = shape.size();
  SmallVector<unsigned> kept;
  SmallVector<int64_t> keptShape;
  for (unsigned i = 0; i < n; ++i)
    if (i != dim) {
      kept.push_back(i);
      keptShape.push_back(shape[i]);
    }
  AffineMap id = identityMap(ctx, n), red = dimsMap(ctx, n, kept);
  Value dot = e.generic(n, {g, y}, {id, id}, {e.full(keptShape, e.f64(), 0.0)},
                        {red}, iterators(n, {static_cast<unsigned>(dim)}),
                        [](OpBuilder &b, Location l, ValueRange a) {
                          Emitter be(b, l);
                          Value p = arith::MulFOp::create(b, l, be.extF64(a[0]),
                                                          be.extF64(a[1]));
                          return yield1(arith::AddFOp::create(b, l, a[2], p));
                        })[0];
  return e.generic(n, {g, y, dot}, {id, id, red}, {e.empty(shape, e.f32())},
                   {id}, iterators(n),
                   [](OpBuilder &b, Location l, ValueRange a) {
                     Value dotF = Emitter(b, l).truncF32(a[2]);
                     Value diff = arith::SubFOp::create(b, l, a[0], dotF);
                     return yield1(arith::MulFOp::create(b, l, a[1], diff));
                   })[0];
}

/// The attention backward's score gradient `p * (dP - dot(p, dP))`, dP =
/// g v^T, as `[b, kh, g, i, j]`.
static Value attentionScoreGrad(Emitter &e, Value probs, Value g, Value v) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> ps = shapeOf(probs);
  int64_t hkv = ps[1];
  Value g5 = splitHeads(e, g, hkv);
  // dP[b, kh, gi, i, j] = sum_e g[b, i, kh, gi, e] v[b, j, kh, e].
  Value dp = e.generic(
      6, {g5, v},
      {dimsMap(ctx, 6, {0, 3, 1, 2, 5}), dimsMap(ctx, 6, {0, 4, 1, 5})},
      {e.full(ps, e.f32(), 0.0)}, {dimsMap(ctx, 6, {0, 1, 2, 3, 4})},
      iterators(6, {5}), [](OpBuilder &b, Location l, ValueRange a) {
        Value p = arith::MulFOp::create(b, l, a[0], a[1]);
        return yield1(arith::AddFOp::create(b, l, a[2], p));
      })[0];
  AffineMap id5 = identityMap(ctx, 5), row5 = dimsMap(ctx, 5, {0, 1, 2, 3});
  Value dot = e.generic(
      5, {probs, dp}, {id5, id5}, {e.full(ps.drop_back(), e.f64(), 0.0)},
      {row5}, iterators(5, {4}), [](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value p = arith::MulFOp::create(b, l, be.extF64(a[0]), be.extF64(a[1]));
        return yield1(arith::AddFOp::create(b, l, a[2], p));
      })[0];
  return e.generic(5, {probs, dp, dot}, {id5, id5, row5},
                   {e.empty(ps, e.f32())}, {id5}, iterators(5),
                   [](OpBuilder &b, Location l, ValueRange a) {
                     Value dotF = Emitter(b, l).truncF32(a[2]);
                     Value diff = arith::SubFOp::create(b, l, a[1], dotF);
                     return yield1(arith::MulFOp::create(b, l, a[0], diff));
                   })[0];
}

/// `x` `[b, t, kh, gi, e]` summed over the heads of a group into
/// `[b, t, kh, e]` (float, head by head, as the runtime accumulates).
static Value sumGroups(Emitter &e, Value x) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> s = shapeOf(x);
  return e.generic(5, {x}, {identityMap(ctx, 5)},
                   {e.full({s[0], s[1], s[2], s[4]}, e.f32(), 0.0)},
                   {dimsMap(ctx, 5, {0, 1, 2, 4})}, iterators(5, {3}),
                   [](OpBuilder &b, Location l, ValueRange a) {
                     return yield1(arith::AddFOp::create(b, l, a[1], a[0]));
                   })[0];
}

static Value attentionGrad(Emitter &e, Operation *op, Value g, Value q, Value k,
                           Value v, bool causal, RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> qs = shapeOf(q), ks = shapeOf(k), vs = shapeOf(v);
  int64_t b = qs[0], s = qs[1], d = qs[3], t = ks[1], hkv = ks[2];
  int64_t grp = qs[2] / hkv, dv = vs[3];
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  Value probs = attentionProbs(e, q, k, causal);
  auto scaled = [&](Value x) {
    return e.elementwise(
        shapeOf(x), e.f32(), {x}, [&](OpBuilder &bb, Location l, ValueRange a) {
          Value c = Emitter(bb, l).scalar(bb.getF32Type(), scale);
          return yield1(arith::MulFOp::create(bb, l, a[0], c));
        });
  };
  auto contract = [&](Value lhs, AffineMap lm, Value rhs, AffineMap rm,
                      ArrayRef<int64_t> outShape) {
    return e.generic(6, {lhs, rhs}, {lm, rm}, {e.full(outShape, e.f32(), 0.0)},
                     {dimsMap(ctx, 6, {0, 1, 2, 3, 4})}, iterators(6, {5}),
                     [](OpBuilder &bb, Location l, ValueRange a) {
                       Value p = arith::MulFOp::create(bb, l, a[0], a[1]);
                       return yield1(arith::AddFOp::create(bb, l, a[2], p));
                     })[0];
  };
  SmallVector<ReassociationIndices> heads{{0}, {1}, {2, 3}, {4}};
  OpBuilder &bld = e.builder();
  if (isa<m::AttentionGradVOp>(op)) {
    // gv[b, j, kh, gi, e] = sum_i p[b, kh, gi, i, j] g[b, i, kh, gi, e].
    Value g5 = splitHeads(e, g, hkv);
    Value perHead =
        contract(probs, dimsMap(ctx, 6, {0, 2, 3, 5, 1}), g5,
                 dimsMap(ctx, 6, {0, 5, 2, 3, 4}), {b, t, hkv, grp, dv});
    return sumGroups(e, perHead);
  }
  Value ds = attentionScoreGrad(e, probs, g, v);
  if (isa<m::AttentionGradQOp>(op)) {
    // gq[b, i, kh, gi, dd] = scale * sum_j ds[b, kh, gi, i, j] k[b, j, kh, dd].
    Value gq = contract(ds, dimsMap(ctx, 6, {0, 2, 3, 1, 5}), k,
                        dimsMap(ctx, 6, {0, 5, 2, 4}), {b, s, hkv, grp, d});
    return tensor::CollapseShapeOp::create(bld, e.location(), type, scaled(gq),
                                           heads);
  }
  // gk[b, j, kh, gi, dd] = scale * sum_i ds[b, kh, gi, i, j] q[b, i, kh, gi,
  // dd], then summed over the group.
  Value q5 = splitHeads(e, q, hkv);
  Value perHead =
      contract(ds, dimsMap(ctx, 6, {0, 2, 3, 5, 1}), q5,
               dimsMap(ctx, 6, {0, 5, 2, 3, 4}), {b, t, hkv, grp, d});
  return sumGroups(e, scaled(perHead));
}

static Value reduceMaxGrad(Emitter &e, Value g, Value x, int64_t dim) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  SmallVector<unsigned> kept;
  for (unsigned i = 0; i < n; ++i)
    if (i != dim)
      kept.push_back(i);
  AffineMap id = identityMap(ctx, n), red = dimsMap(ctx, n, kept);
  Value mx =
      e.reduceDim(x, dim, e.f32(), -std::numeric_limits<double>::infinity(),
                  [](OpBuilder &b, Location l, Value acc, Value v) {
                    return maxKeepNaN(b, l, acc, v);
                  });
  Value ties = e.generic(
      n, {x, mx}, {id, red}, {e.full(shapeOf(mx), e.f32(), 0.0)}, {red},
      iterators(n, {static_cast<unsigned>(dim)}),
      [](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value eq =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
        Value inc = arith::AddFOp::create(b, l, a[2], be.scalar(be.f32(), 1));
        return yield1(arith::SelectOp::create(b, l, eq, inc, a[2]));
      })[0];
  // g has x's shape with 1 at `dim`.
  return e.generic(
      n, {x, mx, ties, g}, {id, red, red, e.broadcastMap(shapeOf(g), shape)},
      {e.empty(shape, e.f32())}, {id}, iterators(n),
      [](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value zero = be.scalar(be.f32(), 0.0);
        Value none =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[2], zero);
        Value nan =
            be.scalar(be.f32(), std::numeric_limits<double>::quiet_NaN());
        Value share = arith::SelectOp::create(
            b, l, none, nan, arith::DivFOp::create(b, l, a[3], a[2]));
        Value eq =
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
        Value take = arith::OrIOp::create(b, l, none, eq);
        return yield1(arith::SelectOp::create(b, l, take, share, zero));
      })[0];
}

/// `valid`, when given, is the divisor (the rows not ignored on every
/// rank), as tp-run's crossEntropyBackward with one.
static Value crossEntropyGrad(Emitter &e, Value grad, Value logits,
                              Value targets, Value valid,
                              std::optional<int64_t> count) {
  MLIRContext *ctx = e.ctx();
  OpBuilder &bld = e.builder();
  Location loc = e.location();
  ArrayRef<int64_t> shape = shapeOf(logits);
  int64_t n = shape[0];
  Value mx =
      e.reduceDim(logits, 1, e.f32(), -std::numeric_limits<double>::infinity(),
                  [](OpBuilder &b, Location l, Value acc, Value v) {
                    return maxKeepNaN(b, l, acc, v);
                  });
  AffineMap id = identityMap(ctx, 2), row = dimsMap(ctx, 2, {0});
  auto shiftedExp = [](OpBuilder &b, Location l, Value x, Value m) {
    Emitter be(b, l);
    return math::ExpOp::create(
               b, l, arith::SubFOp::create(b, l, be.extF64(x), be.extF64(m)))
        .getResult();
  };
  Value sumExp =
      e.generic(2, {logits, mx}, {id, row}, {e.full({n}, e.f64(), 0.0)}, {row},
                iterators(2, {1}), [&](OpBuilder &b, Location l, ValueRange a) {
                  Value ex = shiftedExp(b, l, a[0], a[1]);
                  return yield1(arith::AddFOp::create(b, l, a[2], ex));
                })[0];
  Value counted =
      valid ? e.extF64(tensor::ExtractOp::create(bld, loc, valid, ValueRange{}))
            : countNotIgnored(e, targets);
  Value gv = tensor::ExtractOp::create(bld, loc, grad, ValueRange{});
  // scale = double(g) / counted (no counted row: every row is ignored).
  Value scale = arith::DivFOp::create(bld, loc, e.extF64(gv), counted);
  Value out = e.generic(
      2, {logits, mx, sumExp, targets}, {id, row, row, row},
      {e.empty(shape, e.f32())}, {id}, iterators(2),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value t = idAsI64(b, l, a[3]);
        Value j = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                             linalg::IndexOp::create(b, l, 1));
        Value p =
            arith::DivFOp::create(b, l, shiftedExp(b, l, a[0], a[1]), a[2]);
        Value isTarget =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, j, t);
        p = arith::SelectOp::create(
            b, l, isTarget,
            arith::SubFOp::create(b, l, p, be.scalar(be.f64(), 1.0)), p);
        Value v = be.truncF32(arith::MulFOp::create(b, l, p, scale));
        Value ignored = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, t,
                                              be.scalar(b.getI64Type(), -100));
        return yield1(arith::SelectOp::create(b, l, ignored,
                                              be.scalar(be.f32(), 0.0), v));
      })[0];
  if (!count || *count == 0 || *count == n)
    return out;
  float f =
      static_cast<float>(static_cast<double>(n) / static_cast<double>(*count));
  return e.elementwise(shape, e.f32(), {out},
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         Value c = Emitter(b, l).scalar(b.getF32Type(), f);
                         return yield1(arith::MulFOp::create(b, l, a[0], c));
                       });
}

static Value targetLogitGrad(Emitter &e, Value g, Value targets,
                             RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  return e.generic(
      2, {g, targets}, {dimsMap(ctx, 2, {0}), dimsMap(ctx, 2, {0})},
      {e.empty(type.getShape(), e.f32())}, {identityMap(ctx, 2)}, iterators(2),
      [](OpBuilder &b, Location l, ValueRange a) {
        Value j = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                             linalg::IndexOp::create(b, l, 1));
        Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, j,
                                          idAsI64(b, l, a[1]));
        return yield1(arith::SelectOp::create(
            b, l, hit, a[0], Emitter(b, l).scalar(b.getF32Type(), 0.0)));
      })[0];
}

/// `g[...]` reshaped from `[N, 1]` to `[N]` for targetLogitGrad's map.
static Value dropLastUnit(Emitter &e, Value g) {
  return e.reshape(g, shapeOf(g).drop_back());
}

static Value meanGrad(Emitter &e, Value g, RankedTensorType type) {
  int64_t n = type.getNumElements();
  OpBuilder &b = e.builder();
  Location l = e.location();
  Value gv = tensor::ExtractOp::create(b, l, g, ValueRange{});
  Value v =
      n ? e.truncF32(arith::DivFOp::create(
              b, l, e.extF64(gv), e.scalar(e.f64(), static_cast<double>(n))))
        : e.scalar(e.f32(), 0.0);
  return e.fullOf(type.getShape(), v);
}

static Value sumSquares(Emitter &e, ValueRange inputs) {
  OpBuilder &b = e.builder();
  Location l = e.location();
  Value total = e.scalar(e.f64(), 0.0);
  for (Value in : inputs) {
    Value s = sumAll(e, in, e.f64(), [](OpBuilder &bb, Location ll, Value v) {
      Value w = Emitter(bb, ll).extF64(v);
      return arith::MulFOp::create(bb, ll, w, w).getResult();
    });
    total = arith::AddFOp::create(b, l, total, s);
  }
  return e.fullOf({}, e.truncF32(total));
}

static Value clipCoefficient(Emitter &e, Value sumSq, double maxNorm) {
  OpBuilder &b = e.builder();
  Location l = e.location();
  Value s = e.extF64(tensor::ExtractOp::create(b, l, sumSq, ValueRange{}));
  Value norm = arith::AddFOp::create(b, l, math::SqrtOp::create(b, l, s),
                                     e.scalar(e.f64(), 1e-6));
  Value coef = arith::DivFOp::create(
      b, l, e.scalar(e.f64(), static_cast<float>(maxNorm)), norm);
  // coef > 1 ? 1 : coef keeps a NaN coefficient NaN.
  Value one = e.scalar(e.f64(), 1.0);
  Value above =
      arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, coef, one);
  return e.fullOf({},
                  e.truncF32(arith::SelectOp::create(b, l, above, one, coef)));
}

/// An element-wise backward op (grad, input): `fn(g, x)` per element.
static Value
pointwise(Emitter &e, ValueRange ops, RankedTensorType type,
          llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> fn) {
  return e.elementwise(type.getShape(), e.f32(), {ops[0], ops[1]},
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         return yield1(fn(b, l, a[0], a[1]));
                       });
}

void mlir::tp::linalg_export::populateGradExportPatterns(RewritePatternSet &p) {
  using T = RankedTensorType;
  addExport<m::SliceGradOp>(
      p, [](m::SliceGradOp s, ValueRange ops, Emitter &e, T type) {
        // grad inserted with the slice's strides into zeros.
        Value zeros = e.full(type.getShape(), type.getElementType(), 0.0);
        return e.insertAlong(ops[0], zeros, frontDim(s, type.getRank()),
                             s.getStart(), s.getStep());
      });
  addExport<m::LinearGradInputOp>(
      p, [](m::LinearGradInputOp, ValueRange ops, Emitter &e, T type) {
        return linearGradInput(e, ops[0], ops[1], type);
      });
  addExport<m::LinearGradWeightOp>(
      p, [](m::LinearGradWeightOp, ValueRange ops, Emitter &e, T type) {
        return linearGradWeight(e, ops[0], ops[1], type);
      });
  addExport<m::SumToOp>(p, [](m::SumToOp, ValueRange ops, Emitter &e, T type) {
    return sumTo(e, ops[0], type);
  });
  addExport<m::ReluGradOp>(p, [](m::ReluGradOp, ValueRange ops, Emitter &e,
                                 T type) {
    return pointwise(
        e, ops, type, [](OpBuilder &b, Location l, Value g, Value x) {
          Value zero = Emitter(b, l).scalar(b.getF32Type(), 0.0);
          Value le =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, x, zero);
          return arith::SelectOp::create(b, l, le, zero, g).getResult();
        });
  });
  addExport<m::GeluGradOp>(
      p, [](m::GeluGradOp, ValueRange ops, Emitter &e, T type) {
        return pointwise(e, ops, type, geluGrad);
      });
  addExport<m::SiluGradOp>(
      p, [](m::SiluGradOp, ValueRange ops, Emitter &e, T type) {
        return pointwise(e, ops, type, siluGrad);
      });
  addExport<m::LogGradOp>(
      p, [](m::LogGradOp, ValueRange ops, Emitter &e, T type) {
        return pointwise(e, ops, type,
                         [](OpBuilder &b, Location l, Value g, Value x) {
                           return arith::DivFOp::create(b, l, g, x).getResult();
                         });
      });
  addExport<m::LayerNormGradInputOp>(
      p, [](m::LayerNormGradInputOp n, ValueRange ops, Emitter &e, T) {
        return layerNormGradInput(e, ops[0], ops[1], ops[2],
                                  n.getEps().convertToDouble());
      });
  addExport<m::LayerNormGradWeightOp>(p, [](m::LayerNormGradWeightOp n,
                                            ValueRange ops, Emitter &e, T) {
    return layerNormGradWeight(e, ops[0], ops[1], n.getEps().convertToDouble());
  });
  addExport<m::RMSNormGradInputOp>(
      p, [](m::RMSNormGradInputOp n, ValueRange ops, Emitter &e, T) {
        return rmsNormGradInput(e, ops[0], ops[1], ops[2],
                                n.getEps().convertToDouble());
      });
  addExport<m::RMSNormGradWeightOp>(p, [](m::RMSNormGradWeightOp n,
                                          ValueRange ops, Emitter &e, T) {
    return rmsNormGradWeight(e, ops[0], ops[1], n.getEps().convertToDouble());
  });
  addExport<m::EmbeddingGradOp>(
      p, [](m::EmbeddingGradOp, ValueRange ops, Emitter &e, T type) {
        return embeddingGrad(e, ops[0], ops[1], type);
      });
  addExport<m::SoftmaxGradOp>(
      p, [](m::SoftmaxGradOp s, ValueRange ops, Emitter &e, T type) {
        return softmaxGrad(e, ops[0], ops[1], frontDim(s, type.getRank()));
      });
  addExport<m::RotaryGradOp>(
      p, [](m::RotaryGradOp r, ValueRange ops, Emitter &e, T) {
        return rotate(e, ops[0], r.getTheta().convertToDouble(), true);
      });
  addExport<m::AttentionGradQOp>(
      p, [](m::AttentionGradQOp a, ValueRange ops, Emitter &e, T type) {
        return attentionGrad(e, a, ops[0], ops[1], ops[2], ops[3],
                             a.getCausal(), type);
      });
  addExport<m::AttentionGradKOp>(
      p, [](m::AttentionGradKOp a, ValueRange ops, Emitter &e, T type) {
        return attentionGrad(e, a, ops[0], ops[1], ops[2], ops[3],
                             a.getCausal(), type);
      });
  addExport<m::AttentionGradVOp>(
      p, [](m::AttentionGradVOp a, ValueRange ops, Emitter &e, T type) {
        return attentionGrad(e, a, ops[0], ops[1], ops[2], ops[3],
                             a.getCausal(), type);
      });
  addExport<m::ReduceSumGradOp>(
      p, [](m::ReduceSumGradOp, ValueRange ops, Emitter &e, T type) {
        return e.elementwise(
            type.getShape(), e.f32(), {ops[0]},
            [](OpBuilder &, Location, ValueRange a) { return yield1(a[0]); });
      });
  addExport<m::ReduceMaxGradOp>(
      p, [](m::ReduceMaxGradOp r, ValueRange ops, Emitter &e, T type) {
        return reduceMaxGrad(e, ops[0], ops[1], frontDim(r, type.getRank()));
      });
  addExport<m::CrossEntropyGradOp>(
      p, [](m::CrossEntropyGradOp c, ValueRange ops, Emitter &e, T) {
        return crossEntropyGrad(e, ops[0], ops[1], ops[2],
                                c.getValid() ? ops[3] : Value(), c.getCount());
      });
  addExport<m::TargetLogitGradOp>(
      p, [](m::TargetLogitGradOp, ValueRange ops, Emitter &e, T type) {
        return targetLogitGrad(e, dropLastUnit(e, ops[0]), ops[2], type);
      });
  addExport<m::MeanGradOp>(p, [](m::MeanGradOp, ValueRange ops, Emitter &e,
                                 T type) { return meanGrad(e, ops[0], type); });
  addExport<m::SumSquaresOp>(p, [](m::SumSquaresOp, ValueRange ops, Emitter &e,
                                   T) { return sumSquares(e, ops); });
  addExport<m::ClipCoefficientOp>(
      p, [](m::ClipCoefficientOp c, ValueRange ops, Emitter &e, T) {
        return clipCoefficient(e, ops[0], c.getMaxNorm().convertToDouble());
      });
}
