//===- ForwardOps.cpp - the model dialect's forward ops as linalg ---------===//
//
// One builder per forward model op, each with the numerics of the kernel
// tp-run executes (lib/Runtime/Kernels.cpp, TransformerKernels.cpp,
// LossKernels.cpp): where the runtime accumulates in double, so does the
// exported code, and where it rounds to float, the export rounds at the
// same step.
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

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

Value mlir::tp::linalg_export::sumAll(
    Emitter &e, Value input, Type accType,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> term) {
  unsigned n = shapeOf(input).size();
  SmallVector<unsigned> all;
  for (unsigned i = 0; i < n; ++i)
    all.push_back(i);
  Value acc = e.full({}, accType, 0.0);
  Value sum = e.generic(n, {input}, {identityMap(e.ctx(), n)}, {acc},
                        {AffineMap::get(n, 0, {}, e.ctx())}, iterators(n, all),
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          Value t = term(b, l, a[0]);
                          return SmallVector<Value>{
                              arith::AddFOp::create(b, l, a[1], t)};
                        })[0];
  return tensor::ExtractOp::create(e.builder(), e.location(), sum,
                                   ValueRange{});
}

Value mlir::tp::linalg_export::rowSumF64(Emitter &e, Value x) {
  int64_t last = shapeOf(x).size() - 1;
  return e.reduceDim(x, last, e.f64(), 0.0,
                     [](OpBuilder &b, Location l, Value acc, Value v) {
                       Value w = arith::ExtFOp::create(b, l, b.getF64Type(), v);
                       return arith::AddFOp::create(b, l, acc, w);
                     });
}

/// The map of a row statistic (shape of `x` without its last dim) from the
/// loops over `x`.
static AffineMap rowMap(MLIRContext *ctx, unsigned n) {
  SmallVector<unsigned> lead;
  for (unsigned i = 0; i + 1 < n; ++i)
    lead.push_back(i);
  return dimsMap(ctx, n, lead);
}

Value mlir::tp::linalg_export::rowCenteredSquaresF64(Emitter &e, Value x,
                                                     Value rowSum) {
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  double d = static_cast<double>(shape.back());
  SmallVector<int64_t> rows(shape.drop_back());
  Value acc = e.full(rows, e.f64(), 0.0);
  // (x - mean)^2 with x widened to double, as rowMoments.
  return e.generic(
      n, {x, rowSum}, {identityMap(e.ctx(), n), rowMap(e.ctx(), n)}, {acc},
      {rowMap(e.ctx(), n)}, iterators(n, {n - 1}),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value mean = arith::DivFOp::create(b, l, a[1], be.scalar(be.f64(), d));
        Value c = arith::SubFOp::create(b, l, be.extF64(a[0]), mean);
        Value sq = arith::MulFOp::create(b, l, c, c);
        return SmallVector<Value>{arith::AddFOp::create(b, l, a[2], sq)};
      })[0];
}

Value mlir::tp::linalg_export::rowSquaresF64(Emitter &e, Value x) {
  int64_t last = shapeOf(x).size() - 1;
  return e.reduceDim(x, last, e.f64(), 0.0,
                     [](OpBuilder &b, Location l, Value acc, Value v) {
                       Value w = arith::ExtFOp::create(b, l, b.getF64Type(), v);
                       Value sq = arith::MulFOp::create(b, l, w, w);
                       return arith::AddFOp::create(b, l, acc, sq);
                     });
}

Value mlir::tp::linalg_export::splitHeads(Emitter &e, Value q,
                                          int64_t kvHeads) {
  ArrayRef<int64_t> s = shapeOf(q);
  auto type = RankedTensorType::get({s[0], s[1], kvHeads, s[2] / kvHeads, s[3]},
                                    eltOf(q));
  return tensor::ExpandShapeOp::create(
      e.builder(), e.location(), type, q,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4}});
}

/// `mask ? v : 0` for the causal mask: key `j` is visible from query `i`
/// when `j <= i` (the runtime's `visible = i + 1`).
static Value causalVisible(OpBuilder &b, Location l, unsigned iDim,
                           unsigned jDim) {
  Value i = linalg::IndexOp::create(b, l, iDim);
  Value j = linalg::IndexOp::create(b, l, jDim);
  return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, j, i);
}

Value mlir::tp::linalg_export::attentionProbs(Emitter &e, Value q, Value k,
                                              bool causal) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> qs = shapeOf(q), ks = shapeOf(k);
  int64_t b = qs[0], s = qs[1], hq = qs[2], d = qs[3];
  int64_t t = ks[1], hkv = ks[2], g = hq / hkv;
  Value q5 = splitHeads(e, q, hkv);
  // Scores [b, kh, g, i, j] = scale * sum_d q[b, i, kh, g, d] k[b, j, kh, d]:
  // the GEMM's alpha multiplies the finished dot product.
  SmallVector<int64_t> scoreShape{b, hkv, g, s, t};
  Value zero = e.full(scoreShape, e.f32(), 0.0);
  Value dots = e.generic(
      6, {q5, k},
      {dimsMap(ctx, 6, {0, 3, 1, 2, 5}), dimsMap(ctx, 6, {0, 4, 1, 5})}, {zero},
      {dimsMap(ctx, 6, {0, 1, 2, 3, 4})}, iterators(6, {5}),
      [](OpBuilder &bb, Location l, ValueRange a) {
        Value p = arith::MulFOp::create(bb, l, a[0], a[1]);
        return SmallVector<Value>{arith::AddFOp::create(bb, l, a[2], p)};
      })[0];
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  Value scores = e.elementwise(
      scoreShape, e.f32(), {dots},
      [&](OpBuilder &bb, Location l, ValueRange a) {
        Value c = Emitter(bb, l).scalar(bb.getF32Type(), scale);
        return SmallVector<Value>{arith::MulFOp::create(bb, l, a[0], c)};
      });
  // Row maximum over the visible keys.
  Value maxInit =
      e.full({b, hkv, g, s}, e.f32(), -std::numeric_limits<double>::infinity());
  AffineMap id5 = identityMap(ctx, 5);
  AffineMap row5 = dimsMap(ctx, 5, {0, 1, 2, 3});
  Value rowMax =
      e.generic(5, {scores}, {id5}, {maxInit}, {row5}, iterators(5, {4}),
                [&](OpBuilder &bb, Location l, ValueRange a) {
                  Value m = maxKeepNaN(bb, l, a[1], a[0]);
                  if (causal)
                    m = arith::SelectOp::create(
                        bb, l, causalVisible(bb, l, 3, 4), m, a[1]);
                  return SmallVector<Value>{m};
                })[0];
  // exp(x - max) rounded to float, 0 where masked.
  Value exps = e.generic(
      5, {scores, rowMax}, {id5, row5}, {e.empty(scoreShape, e.f32())}, {id5},
      iterators(5), [&](OpBuilder &bb, Location l, ValueRange a) {
        Emitter be(bb, l);
        Value diff = arith::SubFOp::create(bb, l, a[0], a[1]);
        Value ex = be.truncF32(math::ExpOp::create(bb, l, be.extF64(diff)));
        if (causal)
          ex = arith::SelectOp::create(bb, l, causalVisible(bb, l, 3, 4), ex,
                                       be.scalar(bb.getF32Type(), 0.0));
        return SmallVector<Value>{ex};
      })[0];
  Value sumInit = e.full({b, hkv, g, s}, e.f64(), 0.0);
  Value rowSum = e.generic(
      5, {exps}, {id5}, {sumInit}, {row5}, iterators(5, {4}),
      [](OpBuilder &bb, Location l, ValueRange a) {
        Value w = arith::ExtFOp::create(bb, l, bb.getF64Type(), a[0]);
        return SmallVector<Value>{arith::AddFOp::create(bb, l, a[1], w)};
      })[0];
  return e.generic(
      5, {exps, rowSum}, {id5, row5}, {e.empty(scoreShape, e.f32())}, {id5},
      iterators(5), [](OpBuilder &bb, Location l, ValueRange a) {
        Emitter be(bb, l);
        Value inv = be.truncF32(
            arith::DivFOp::create(bb, l, be.scalar(be.f64(), 1.0), a[1]));
        return SmallVector<Value>{arith::MulFOp::create(bb, l, a[0], inv)};
      })[0];
}

//===----------------------------------------------------------------------===//
// The ops
//===----------------------------------------------------------------------===//

static Value erfGelu(OpBuilder &b, Location l, Value x) {
  Emitter e(b, l);
  Value half = e.scalar(e.f32(), 0.5), one = e.scalar(e.f32(), 1.0);
  Value c = e.scalar(e.f32(), 0.70710678118654752);
  Value erf = math::ErfOp::create(b, l, arith::MulFOp::create(b, l, x, c));
  Value hx = arith::MulFOp::create(b, l, half, x);
  return arith::MulFOp::create(b, l, hx, arith::AddFOp::create(b, l, one, erf));
}

static Value linear(Emitter &e, Value x, Value w, Value bias,
                    RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  unsigned n = shapeOf(x).size();
  // Loops: the input's leading dims, the output feature o, the input
  // feature i (reduced): out[..., o] = sum_i x[..., i] * w[o, i].
  unsigned numDims = n + 1, o = n - 1, i = n;
  SmallVector<unsigned> xDims, outDims;
  for (unsigned d = 0; d + 1 < n; ++d) {
    xDims.push_back(d);
    outDims.push_back(d);
  }
  xDims.push_back(i);
  outDims.push_back(o);
  Value zero = e.full(type.getShape(), e.f32(), 0.0);
  Value y = e.generic(
      numDims, {x, w},
      {dimsMap(ctx, numDims, xDims), dimsMap(ctx, numDims, {o, i})}, {zero},
      {dimsMap(ctx, numDims, outDims)}, iterators(numDims, {i}),
      [](OpBuilder &b, Location l, ValueRange a) {
        Value p = arith::MulFOp::create(b, l, a[0], a[1]);
        return SmallVector<Value>{arith::AddFOp::create(b, l, a[2], p)};
      })[0];
  if (!bias)
    return y;
  return e.elementwise(type.getShape(), e.f32(), {y, bias},
                       [](OpBuilder &b, Location l, ValueRange a) {
                         return SmallVector<Value>{
                             arith::AddFOp::create(b, l, a[0], a[1])};
                       });
}

/// Clamps an integer id of any width to a valid `index` in [0, rows): the
/// runtime rejects out-of-range ids, the exported code reads a clamped row
/// rather than out of bounds.
static Value clampedIndex(OpBuilder &b, Location l, Value id, int64_t rows) {
  Value idx = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
  Emitter e(b, l);
  Value lo = e.index(0), hi = e.index(rows - 1);
  idx = arith::MaxSIOp::create(b, l, idx, lo);
  return arith::MinSIOp::create(b, l, idx, hi);
}

static Value embedding(Emitter &e, Value ids, Value w, RankedTensorType type) {
  unsigned n = type.getRank();
  SmallVector<unsigned> lead;
  for (unsigned d = 0; d + 1 < n; ++d)
    lead.push_back(d);
  int64_t rows = shapeOf(w)[0];
  return e.generic(n, {ids}, {dimsMap(e.ctx(), n, lead)},
                   {e.empty(type.getShape(), e.f32())},
                   {identityMap(e.ctx(), n)}, iterators(n),
                   [&](OpBuilder &b, Location l, ValueRange a) {
                     Value row = clampedIndex(b, l, a[0], rows);
                     Value col = linalg::IndexOp::create(b, l, n - 1);
                     return SmallVector<Value>{tensor::ExtractOp::create(
                         b, l, w, ValueRange{row, col})};
                   })[0];
}

static Value layerNorm(Emitter &e, Value x, Value w, Value bias, double eps) {
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  double d = static_cast<double>(shape.back());
  Value sum = rowSumF64(e, x);
  Value sq = rowCenteredSquaresF64(e, x, sum);
  double epsF = static_cast<float>(eps);
  MLIRContext *ctx = e.ctx();
  SmallVector<Value> ins{x, sum, sq};
  SmallVector<AffineMap> maps{identityMap(ctx, n), rowMap(ctx, n),
                              rowMap(ctx, n)};
  for (Value v : {w, bias})
    if (v) {
      ins.push_back(v);
      maps.push_back(dimsMap(ctx, n, {n - 1}));
    }
  return e.generic(
      n, ins, maps, {e.empty(shape, e.f32())}, {identityMap(ctx, n)},
      iterators(n), [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value dd = be.scalar(be.f64(), d);
        Value mean = arith::DivFOp::create(b, l, a[1], dd);
        Value var = arith::DivFOp::create(b, l, a[2], dd);
        Value ve = arith::AddFOp::create(b, l, var, be.scalar(be.f64(), epsF));
        Value inv = be.truncF32(arith::DivFOp::create(
            b, l, be.scalar(be.f64(), 1.0), math::SqrtOp::create(b, l, ve)));
        Value v = arith::SubFOp::create(b, l, a[0], be.truncF32(mean));
        v = arith::MulFOp::create(b, l, v, inv);
        unsigned next = 3;
        if (w)
          v = arith::MulFOp::create(b, l, v, a[next++]);
        if (bias)
          v = arith::AddFOp::create(b, l, v, a[next++]);
        return SmallVector<Value>{v};
      })[0];
}

static Value rmsNorm(Emitter &e, Value x, Value w, double eps) {
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  double d = static_cast<double>(shape.back());
  Value sq = rowSquaresF64(e, x);
  double epsF = static_cast<float>(eps);
  MLIRContext *ctx = e.ctx();
  return e.generic(
      n, {x, sq, w},
      {identityMap(ctx, n), rowMap(ctx, n), dimsMap(ctx, n, {n - 1})},
      {e.empty(shape, e.f32())}, {identityMap(ctx, n)}, iterators(n),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value ms = arith::DivFOp::create(b, l, a[1], be.scalar(be.f64(), d));
        ms = arith::AddFOp::create(b, l, ms, be.scalar(be.f64(), epsF));
        Value inv = be.truncF32(arith::DivFOp::create(
            b, l, be.scalar(be.f64(), 1.0), math::SqrtOp::create(b, l, ms)));
        Value v = arith::MulFOp::create(b, l, a[0], inv);
        return SmallVector<Value>{arith::MulFOp::create(b, l, v, a[2])};
      })[0];
}

static Value softmax(Emitter &e, Value x, int64_t dim) {
  ArrayRef<int64_t> shape = shapeOf(x);
  unsigned n = shape.size();
  MLIRContext *ctx = e.ctx();
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
  // std::exp on the float difference, summed in double.
  Value exps =
      e.generic(n, {x, mx}, {id, red}, {e.empty(shape, e.f32())}, {id},
                iterators(n), [](OpBuilder &b, Location l, ValueRange a) {
                  Value diff = arith::SubFOp::create(b, l, a[0], a[1]);
                  return SmallVector<Value>{math::ExpOp::create(b, l, diff)};
                })[0];
  Value sum = e.reduceDim(exps, dim, e.f64(), 0.0,
                          [](OpBuilder &b, Location l, Value acc, Value v) {
                            Value w =
                                arith::ExtFOp::create(b, l, b.getF64Type(), v);
                            return arith::AddFOp::create(b, l, acc, w);
                          });
  return e.generic(
      n, {exps, sum}, {id, red}, {e.empty(shape, e.f32())}, {id}, iterators(n),
      [](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value inv = be.truncF32(
            arith::DivFOp::create(b, l, be.scalar(be.f64(), 1.0), a[1]));
        return SmallVector<Value>{arith::MulFOp::create(b, l, a[0], inv)};
      })[0];
}

static Value matmul(Emitter &e, Value lhs, Value rhs, RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> out = type.getShape();
  unsigned r = out.size(), numDims = r + 1;
  unsigned mDim = r - 2, nDim = r - 1, kDim = r;
  // A batch dim of an operand reads its aligned output batch dim, or 0 where
  // the operand broadcasts it from size 1.
  auto operandMap = [&](Value v, unsigned rowDim, unsigned colDim) {
    ArrayRef<int64_t> s = shapeOf(v);
    unsigned batch = s.size() - 2;
    SmallVector<AffineExpr> exprs;
    for (unsigned i = 0; i < batch; ++i) {
      unsigned d = (r - 2) - batch + i;
      if (s[i] == 1 && out[d] != 1)
        exprs.push_back(getAffineConstantExpr(0, ctx));
      else
        exprs.push_back(getAffineDimExpr(d, ctx));
    }
    exprs.push_back(getAffineDimExpr(rowDim, ctx));
    exprs.push_back(getAffineDimExpr(colDim, ctx));
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  SmallVector<unsigned> outDims;
  for (unsigned i = 0; i < r; ++i)
    outDims.push_back(i);
  Value zero = e.full(out, e.f32(), 0.0);
  return e.generic(
      numDims, {lhs, rhs},
      {operandMap(lhs, mDim, kDim), operandMap(rhs, kDim, nDim)}, {zero},
      {dimsMap(ctx, numDims, outDims)}, iterators(numDims, {kDim}),
      [](OpBuilder &b, Location l, ValueRange a) {
        Value p = arith::MulFOp::create(b, l, a[0], a[1]);
        return SmallVector<Value>{arith::AddFOp::create(b, l, a[2], p)};
      })[0];
}

static Value transpose(Emitter &e, Value x, ArrayRef<int64_t> perm,
                       RankedTensorType type) {
  unsigned n = perm.size();
  // Output dim i reads input dim perm[i]: the input's map sends input dim
  // perm[i] to loop i.
  SmallVector<unsigned> inDims(n);
  for (unsigned i = 0; i < n; ++i)
    inDims[perm[i]] = i;
  return e.generic(n, {x}, {dimsMap(e.ctx(), n, inDims)},
                   {e.empty(type.getShape(), e.f32())},
                   {identityMap(e.ctx(), n)}, iterators(n),
                   [](OpBuilder &, Location, ValueRange a) {
                     return SmallVector<Value>{a[0]};
                   })[0];
}

Value mlir::tp::linalg_export::rotate(Emitter &e, Value x, double theta,
                                      bool inverse) {
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t d = shape[3];
  float thetaF = static_cast<float>(theta);
  return e.generic(
      4, {}, {}, {e.empty(shape, e.f32())}, {identityMap(e.ctx(), 4)},
      iterators(4), [&](OpBuilder &b, Location l, ValueRange) {
        Emitter be(b, l);
        Type f32 = be.f32(), i64 = b.getI64Type();
        Value bi = linalg::IndexOp::create(b, l, 0);
        Value t = linalg::IndexOp::create(b, l, 1);
        Value h = linalg::IndexOp::create(b, l, 2);
        Value j = linalg::IndexOp::create(b, l, 3);
        Value two = be.index(2);
        Value pair = arith::DivUIOp::create(b, l, j, two);
        Value even = arith::MulIOp::create(b, l, pair, two);
        Value odd = arith::AddIOp::create(b, l, even, be.index(1));
        Value isOdd =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, j, even);
        // exponent = float(2i) / float(d); freq = 1 / theta^exponent.
        auto toF32 = [&](Value idx) {
          Value v = arith::IndexCastUIOp::create(b, l, i64, idx);
          return arith::UIToFPOp::create(b, l, f32, v).getResult();
        };
        Value exponent = arith::DivFOp::create(
            b, l, toF32(even), be.scalar(f32, static_cast<double>(d)));
        Value pw = math::PowFOp::create(b, l, be.scalar(f32, thetaF), exponent);
        Value freq = arith::DivFOp::create(b, l, be.scalar(f32, 1.0), pw);
        Value angle = arith::MulFOp::create(b, l, toF32(t), freq);
        Value c = math::CosOp::create(b, l, angle);
        Value sn = math::SinOp::create(b, l, angle);
        if (inverse)
          sn = arith::NegFOp::create(b, l, sn);
        Value x0 =
            tensor::ExtractOp::create(b, l, x, ValueRange{bi, t, h, even});
        Value x1 =
            tensor::ExtractOp::create(b, l, x, ValueRange{bi, t, h, odd});
        Value first =
            arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, x0, c),
                                  arith::MulFOp::create(b, l, x1, sn));
        Value second =
            arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, x0, sn),
                                  arith::MulFOp::create(b, l, x1, c));
        return SmallVector<Value>{
            arith::SelectOp::create(b, l, isOdd, second, first)};
      })[0];
}

static Value attention(Emitter &e, Value q, Value k, Value v, bool causal,
                       RankedTensorType type) {
  MLIRContext *ctx = e.ctx();
  ArrayRef<int64_t> qs = shapeOf(q), vs = shapeOf(v);
  int64_t b = qs[0], s = qs[1], hkv = vs[2], g = qs[2] / hkv, dv = vs[3];
  Value probs = attentionProbs(e, q, k, causal);
  // out[b, i, kh, g, e] = sum_j p[b, kh, g, i, j] v[b, j, kh, e].
  Value zero = e.full({b, s, hkv, g, dv}, e.f32(), 0.0);
  Value out = e.generic(
      6, {probs, v},
      {dimsMap(ctx, 6, {0, 2, 3, 1, 5}), dimsMap(ctx, 6, {0, 5, 2, 4})}, {zero},
      {dimsMap(ctx, 6, {0, 1, 2, 3, 4})}, iterators(6, {5}),
      [](OpBuilder &bb, Location l, ValueRange a) {
        Value p = arith::MulFOp::create(bb, l, a[0], a[1]);
        return SmallVector<Value>{arith::AddFOp::create(bb, l, a[2], p)};
      })[0];
  return tensor::CollapseShapeOp::create(
      e.builder(), e.location(), type, out,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4}});
}

static Value arange(Emitter &e, RankedTensorType type) {
  Type elt = type.getElementType();
  return e.generic(
      1, {}, {}, {e.empty(type.getShape(), elt)}, {identityMap(e.ctx(), 1)},
      iterators(1), [&](OpBuilder &b, Location l, ValueRange) {
        Value i = linalg::IndexOp::create(b, l, 0);
        Value v = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
        if (isa<FloatType>(elt))
          v = arith::SIToFPOp::create(b, l, elt, v);
        else if (elt != b.getI64Type())
          v = arith::TruncIOp::create(b, l, elt, v);
        return SmallVector<Value>{v};
      })[0];
}

/// A rank-0 f32 tensor of the scalar `v`.
static Value scalarTensor(Emitter &e, Value v) {
  return tensor::FromElementsOp::create(e.builder(), e.location(),
                                        RankedTensorType::get({}, v.getType()),
                                        ValueRange{v});
}

/// tp-run's overCount: a loss over `own` elements of a shard scaled to the
/// global `count`.
static Value overCount(Emitter &e, Value loss, int64_t own,
                       std::optional<int64_t> count) {
  if (!count || *count == 0 || *count == own)
    return loss;
  float f = static_cast<float>(static_cast<double>(own) /
                               static_cast<double>(*count));
  return arith::MulFOp::create(e.builder(), e.location(), loss,
                               e.scalar(e.f32(), f));
}

static Value mean(Emitter &e, Value x, std::optional<int64_t> count) {
  int64_t numel = cast<RankedTensorType>(x.getType()).getNumElements();
  Value sum = sumAll(e, x, e.f64(), [](OpBuilder &b, Location l, Value v) {
    return arith::ExtFOp::create(b, l, b.getF64Type(), v).getResult();
  });
  Value m = e.truncF32(
      arith::DivFOp::create(e.builder(), e.location(), sum,
                            e.scalar(e.f64(), static_cast<double>(numel))));
  return scalarTensor(e, overCount(e, m, numel, count));
}

Value mlir::tp::linalg_export::idAsI64(OpBuilder &b, Location l, Value id) {
  if (id.getType() == b.getI64Type())
    return id;
  return arith::ExtSIOp::create(b, l, b.getI64Type(), id);
}

Value mlir::tp::linalg_export::countNotIgnored(Emitter &e, Value targets) {
  return sumAll(e, targets, e.f64(), [](OpBuilder &b, Location l, Value t) {
    Emitter be(b, l);
    Value keep =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, idAsI64(b, l, t),
                              be.scalar(b.getI64Type(), -100));
    return arith::SelectOp::create(b, l, keep, be.scalar(be.f64(), 1.0),
                                   be.scalar(be.f64(), 0.0))
        .getResult();
  });
}

static Value targetLogit(Emitter &e, Value logits, Value targets,
                         RankedTensorType type) {
  int64_t c = shapeOf(logits)[1];
  MLIRContext *ctx = e.ctx();
  return e.generic(
      2, {targets}, {dimsMap(ctx, 2, {0})}, {e.empty(type.getShape(), e.f32())},
      {identityMap(ctx, 2)}, iterators(2),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value t = idAsI64(b, l, a[0]);
        Value zero = be.scalar(b.getI64Type(), 0);
        Value geZero =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, t, zero);
        Value ltC = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t,
                                          be.scalar(b.getI64Type(), c));
        Value mine = arith::AndIOp::create(b, l, geZero, ltC);
        Value col = clampedIndex(b, l, t, c);
        Value row = linalg::IndexOp::create(b, l, 0);
        Value x = tensor::ExtractOp::create(b, l, logits, ValueRange{row, col});
        return SmallVector<Value>{
            arith::SelectOp::create(b, l, mine, x, be.scalar(be.f32(), 0.0))};
      })[0];
}

/// `valid`, when given, is the divisor (tp-run's crossEntropy with one):
/// the rows not ignored on every rank.
static Value crossEntropy(Emitter &e, Value logits, Value targets, Value valid,
                          std::optional<int64_t> count) {
  MLIRContext *ctx = e.ctx();
  int64_t n = shapeOf(logits)[0], c = shapeOf(logits)[1];
  Value mx =
      e.reduceDim(logits, 1, e.f32(), -std::numeric_limits<double>::infinity(),
                  [](OpBuilder &b, Location l, Value acc, Value v) {
                    return maxKeepNaN(b, l, acc, v);
                  });
  // sum_j exp(double(x) - max) in double (rowLogSumExp).
  Value sumInit = e.full({n}, e.f64(), 0.0);
  Value sumExp = e.generic(
      2, {logits, mx}, {identityMap(ctx, 2), dimsMap(ctx, 2, {0})}, {sumInit},
      {dimsMap(ctx, 2, {0})}, iterators(2, {1}),
      [](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value diff =
            arith::SubFOp::create(b, l, be.extF64(a[0]), be.extF64(a[1]));
        Value ex = math::ExpOp::create(b, l, diff);
        return SmallVector<Value>{arith::AddFOp::create(b, l, a[2], ex)};
      })[0];
  // total += max + log(sum) - x[target] over the rows whose target is not
  // ignore_index (-100), in double; counted rows in double too.
  Value totalInit = e.full({}, e.f64(), 0.0);
  Value countInit = e.full({}, e.f64(), 0.0);
  AffineMap row = identityMap(ctx, 1), scalar = AffineMap::get(1, 0, {}, ctx);
  SmallVector<Value> sums = e.generic(
      1, {targets, mx, sumExp}, {row, row, row}, {totalInit, countInit},
      {scalar, scalar}, iterators(1, {0}),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Emitter be(b, l);
        Value t = idAsI64(b, l, a[0]);
        Value counted = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, t,
                                              be.scalar(b.getI64Type(), -100));
        Value r = linalg::IndexOp::create(b, l, 0);
        Value x = tensor::ExtractOp::create(
            b, l, logits, ValueRange{r, clampedIndex(b, l, t, c)});
        Value term = arith::AddFOp::create(b, l, be.extF64(a[1]),
                                           math::LogOp::create(b, l, a[2]));
        term = arith::SubFOp::create(b, l, term, be.extF64(x));
        Value total = arith::AddFOp::create(b, l, a[3], term);
        Value cnt = arith::AddFOp::create(b, l, a[4], be.scalar(be.f64(), 1.0));
        return SmallVector<Value>{
            arith::SelectOp::create(b, l, counted, total, a[3]),
            arith::SelectOp::create(b, l, counted, cnt, a[4])};
      });
  OpBuilder &b = e.builder();
  Location l = e.location();
  Value total = tensor::ExtractOp::create(b, l, sums[0], ValueRange{});
  Value counted = tensor::ExtractOp::create(b, l, sums[1], ValueRange{});
  // No counted row: 0 / 0, NaN, as the runtime.
  Value own = arith::DivFOp::create(b, l, total, counted);
  if (valid) {
    // A shard's part of the mean over every rank's rows not ignored: 0
    // where it counts none, NaN where no rank does (a divisor of 0).
    Value divisor =
        e.extF64(tensor::ExtractOp::create(b, l, valid, ValueRange{}));
    Value zero = e.scalar(e.f64(), 0.0);
    Value part = arith::SelectOp::create(
        b, l,
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, counted, zero),
        arith::DivFOp::create(b, l, total, divisor), zero);
    own = arith::SelectOp::create(
        b, l,
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, divisor, zero),
        part, own);
    return scalarTensor(e, e.truncF32(own));
  }
  return scalarTensor(e, overCount(e, e.truncF32(own), n, count));
}

static Value unary(Emitter &e, Value x, RankedTensorType type,
                   llvm::function_ref<Value(OpBuilder &, Location, Value)> fn) {
  return e.elementwise(type.getShape(), type.getElementType(), {x},
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         return SmallVector<Value>{fn(b, l, a[0])};
                       });
}

static Value
binary(Emitter &e, Value x, Value y, RankedTensorType type,
       llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> fn) {
  return e.elementwise(type.getShape(), type.getElementType(), {x, y},
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         return SmallVector<Value>{fn(b, l, a[0], a[1])};
                       });
}

/// The element functions of the pointwise math ops.
static Value tanhFn(OpBuilder &b, Location l, Value x) {
  return math::TanhOp::create(b, l, x);
}
static Value sigmoidFn(OpBuilder &b, Location l, Value x) {
  Value one = Emitter(b, l).scalar(x.getType(), 1.0);
  Value ex = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, ex));
}
static Value sqrtFn(OpBuilder &b, Location l, Value x) {
  return math::SqrtOp::create(b, l, x);
}

static Value erfFn(OpBuilder &b, Location l, Value x) {
  return math::ErfOp::create(b, l, x);
}
static Value reciprocalFn(OpBuilder &b, Location l, Value x) {
  return arith::DivFOp::create(b, l, Emitter(b, l).scalar(x.getType(), 1.0), x);
}
static Value absFn(OpBuilder &b, Location l, Value x) {
  return math::AbsFOp::create(b, l, x);
}
static Value rsqrtFn(OpBuilder &b, Location l, Value x) {
  // 1 / sqrt(x), not math.rsqrt: libm has no rsqrtf for
  // convert-math-to-libm to call.
  return reciprocalFn(b, l, sqrtFn(b, l, x));
}

/// The export of a pointwise math op: `Fn` on each element.
template <typename OpT, Value (*Fn)(OpBuilder &, Location, Value)>
static void addMathExport(RewritePatternSet &p) {
  addExport<OpT>(p, [](OpT, ValueRange ops, Emitter &e, RankedTensorType type) {
    return unary(e, ops[0], type, Fn);
  });
}

/// The operands one after another along `dim`: each inserted at its offset
/// into an empty tensor.
static Value concatAlong(Emitter &e, ValueRange parts, int64_t dim,
                         RankedTensorType type) {
  Value out = e.empty(type.getShape(), type.getElementType());
  int64_t offset = 0;
  for (Value part : parts) {
    out = e.insertAlong(part, out, dim, offset, 1);
    offset += cast<RankedTensorType>(part.getType()).getDimSize(dim);
  }
  return out;
}

/// Keepdim max or sum along the op's `dim`.
template <typename OpT>
static Value keepdimReduce(OpT op, Value x, Emitter &e, RankedTensorType type,
                           bool isMax) {
  int64_t dim = op.getDimAttr().getInt();
  if (dim < 0)
    dim += type.getRank();
  Value red = e.reduceDim(
      x, dim, e.f32(), isMax ? -std::numeric_limits<double>::infinity() : 0.0,
      [&](OpBuilder &b, Location l, Value acc, Value v) -> Value {
        if (isMax)
          return maxKeepNaN(b, l, acc, v);
        return arith::AddFOp::create(b, l, acc, v);
      });
  return e.insertUnitDim(red, dim);
}

namespace {
/// model.generic is linalg.generic on model tensors: the same maps,
/// iterators and body, its init the output operand.
struct GenericExport : public OpConversionPattern<m::GenericOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(m::GenericOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange operands = adaptor.getOperands();
    SmallVector<utils::IteratorType> iterators;
    for (Attribute t : op.getIteratorTypes())
      iterators.push_back(cast<StringAttr>(t).getValue() == "reduction"
                              ? utils::IteratorType::reduction
                              : utils::IteratorType::parallel);
    SmallVector<AffineMap> maps;
    for (Attribute map : op.getIndexingMaps())
      maps.push_back(cast<AffineMapAttr>(map).getValue());
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{op.getResult().getType()},
        operands.drop_back(), operands.back(), maps, iterators);
    rewriter.inlineRegionBefore(op.getBody(), generic.getRegion(),
                                generic.getRegion().end());
    Operation *yield = generic.getRegion().front().getTerminator();
    rewriter.setInsertionPoint(yield);
    linalg::YieldOp::create(rewriter, yield->getLoc(), yield->getOperands());
    rewriter.eraseOp(yield);
    return replaceExported(op, generic.getResult(0), rewriter);
  }
};
} // namespace

void mlir::tp::linalg_export::populateForwardExportPatterns(
    RewritePatternSet &p) {
  using T = RankedTensorType;
  p.add<GenericExport>(p.getContext());
  addExport<m::LinearOp>(p, [](m::LinearOp, ValueRange ops, Emitter &e,
                               T type) {
    return linear(e, ops[0], ops[1], ops.size() > 2 ? ops[2] : Value(), type);
  });
  addExport<m::EmbeddingOp>(
      p, [](m::EmbeddingOp, ValueRange ops, Emitter &e, T type) {
        return embedding(e, ops[0], ops[1], type);
      });
  addExport<m::LayerNormOp>(p, [](m::LayerNormOp n, ValueRange ops, Emitter &e,
                                  T) {
    return layerNorm(e, ops[0], ops[1], ops[2], n.getEps().convertToDouble());
  });
  addExport<m::RMSNormOp>(p, [](m::RMSNormOp n, ValueRange ops, Emitter &e, T) {
    return rmsNorm(e, ops[0], ops[1], n.getEps().convertToDouble());
  });
  addExport<m::DetachOp>(
      p, [](m::DetachOp, ValueRange ops, Emitter &, T) { return ops[0]; });
  addExport<m::ReluOp>(p, [](m::ReluOp, ValueRange ops, Emitter &e, T type) {
    return unary(e, ops[0], type, [](OpBuilder &b, Location l, Value x) {
      // !(x <= 0) ? x : 0: a NaN stays NaN.
      Value le = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, x,
                                       Emitter(b, l).scalar(x.getType(), 0));
      return arith::SelectOp::create(b, l, le,
                                     Emitter(b, l).scalar(x.getType(), 0), x)
          .getResult();
    });
  });
  addExport<m::GeluOp>(p, [](m::GeluOp, ValueRange ops, Emitter &e, T type) {
    return unary(e, ops[0], type, erfGelu);
  });
  addExport<m::SiluOp>(p, [](m::SiluOp, ValueRange ops, Emitter &e, T type) {
    // x / (1 + exp(-x)) with the exponential and the quotient in double.
    return unary(e, ops[0], type, [](OpBuilder &b, Location l, Value x) {
      Emitter be(b, l);
      Value xd = be.extF64(x);
      Value ex = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, xd));
      Value den = arith::AddFOp::create(b, l, be.scalar(be.f64(), 1.0), ex);
      return be.truncF32(arith::DivFOp::create(b, l, xd, den));
    });
  });
  addExport<m::ExpOp>(p, [](m::ExpOp, ValueRange ops, Emitter &e, T type) {
    return unary(e, ops[0], type, [](OpBuilder &b, Location l, Value x) {
      return math::ExpOp::create(b, l, x).getResult();
    });
  });
  addExport<m::LogOp>(p, [](m::LogOp, ValueRange ops, Emitter &e, T type) {
    return unary(e, ops[0], type, [](OpBuilder &b, Location l, Value x) {
      return math::LogOp::create(b, l, x).getResult();
    });
  });
  addMathExport<m::TanhOp, tanhFn>(p);
  addMathExport<m::SigmoidOp, sigmoidFn>(p);
  addMathExport<m::SqrtOp, sqrtFn>(p);
  addMathExport<m::RsqrtOp, rsqrtFn>(p);
  addMathExport<m::ErfOp, erfFn>(p);
  addMathExport<m::ReciprocalOp, reciprocalFn>(p);
  addMathExport<m::AbsOp, absFn>(p);
  addExport<m::PowOp>(p, [](m::PowOp op, ValueRange ops, Emitter &e, T type) {
    double exponent = op.getExponent().convertToDouble();
    return unary(e, ops[0], type, [&](OpBuilder &b, Location l, Value x) {
      return math::PowFOp::create(b, l, x,
                                  Emitter(b, l).scalar(x.getType(), exponent))
          .getResult();
    });
  });
  addExport<m::CastOp>(p, [](m::CastOp, ValueRange ops, Emitter &e, T type) {
    return unary(e, ops[0], type, [&](OpBuilder &b, Location l, Value x) {
      Type to = type.getElementType(), from = x.getType();
      if (from == to)
        return x;
      if (to.isInteger(1)) {
        // `.bool()`: nonzero is true (NaN too: unordered-or-unequal).
        Value zero = Emitter(b, l).scalar(from, 0.0);
        if (isa<IntegerType>(from))
          return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x, zero)
              .getResult();
        return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, x, zero)
            .getResult();
      }
      if (from.isInteger(1))
        return arith::UIToFPOp::create(b, l, to, x).getResult();
      if (isa<IntegerType>(from))
        return arith::SIToFPOp::create(b, l, to, x).getResult();
      if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(b, l, to, x).getResult();
      return arith::TruncFOp::create(b, l, to, x).getResult();
    });
  });
  addExport<m::DivOp>(p, [](m::DivOp, ValueRange ops, Emitter &e, T type) {
    return binary(e, ops[0], ops[1], type,
                  [](OpBuilder &b, Location l, Value x, Value y) {
                    return arith::DivFOp::create(b, l, x, y).getResult();
                  });
  });
  addExport<m::NegOp>(p, [](m::NegOp, ValueRange ops, Emitter &e, T type) {
    return unary(e, ops[0], type, [](OpBuilder &b, Location l, Value x) {
      return arith::NegFOp::create(b, l, x).getResult();
    });
  });
  addExport<m::AddOp>(p, [](m::AddOp, ValueRange ops, Emitter &e, T type) {
    return binary(e, ops[0], ops[1], type,
                  [](OpBuilder &b, Location l, Value x, Value y) {
                    return arith::AddFOp::create(b, l, x, y).getResult();
                  });
  });
  addExport<m::SubOp>(p, [](m::SubOp, ValueRange ops, Emitter &e, T type) {
    return binary(e, ops[0], ops[1], type,
                  [](OpBuilder &b, Location l, Value x, Value y) {
                    return arith::SubFOp::create(b, l, x, y).getResult();
                  });
  });
  addExport<m::MulOp>(p, [](m::MulOp, ValueRange ops, Emitter &e, T type) {
    return binary(e, ops[0], ops[1], type,
                  [](OpBuilder &b, Location l, Value x, Value y) {
                    return arith::MulFOp::create(b, l, x, y).getResult();
                  });
  });
  addExport<m::MatmulOp>(p,
                         [](m::MatmulOp, ValueRange ops, Emitter &e, T type) {
                           return matmul(e, ops[0], ops[1], type);
                         });
  addExport<m::SoftmaxOp>(
      p, [](m::SoftmaxOp s, ValueRange ops, Emitter &e, T type) {
        return softmax(e, ops[0], frontDim(s, type.getRank()));
      });
  addExport<m::ReshapeOp>(p,
                          [](m::ReshapeOp, ValueRange ops, Emitter &e, T type) {
                            return e.reshape(ops[0], type.getShape());
                          });
  addExport<m::TransposeOp>(
      p, [](m::TransposeOp t, ValueRange ops, Emitter &e, T type) {
        return transpose(e, ops[0], t.getPermutation(), type);
      });
  addExport<m::ExpandOp>(
      p, [](m::ExpandOp, ValueRange ops, Emitter &e, T type) {
        // The element-wise generic broadcasts its input: a copy.
        return e.elementwise(type.getShape(), type.getElementType(), {ops[0]},
                             [](OpBuilder &, Location, ValueRange a) {
                               return SmallVector<Value>{a[0]};
                             });
      });
  addExport<m::SliceOp>(
      p, [](m::SliceOp s, ValueRange ops, Emitter &e, T type) {
        return e.extractAlong(ops[0], frontDim(s, type.getRank()), s.getStart(),
                              s.getStep(), type);
      });
  addExport<m::ConcatOp>(
      p, [](m::ConcatOp c, ValueRange ops, Emitter &e, T type) {
        return concatAlong(e, ops, frontDim(c, type.getRank()), type);
      });
  addExport<m::RotaryOp>(p, [](m::RotaryOp r, ValueRange ops, Emitter &e, T) {
    return rotate(e, ops[0], r.getTheta().convertToDouble(), false);
  });
  addExport<m::AttentionOp>(
      p, [](m::AttentionOp a, ValueRange ops, Emitter &e, T type) {
        return attention(e, ops[0], ops[1], ops[2], a.getCausal(), type);
      });
  addExport<m::ConstantOp>(p, [](m::ConstantOp c, ValueRange, Emitter &e, T) {
    return arith::ConstantOp::create(e.builder(), e.location(),
                                     cast<TypedAttr>(c.getElements()))
        .getResult();
  });
  addExport<m::ArangeOp>(p, [](m::ArangeOp, ValueRange, Emitter &e, T type) {
    return arange(e, type);
  });
  addExport<m::ReduceMaxOp>(
      p, [](m::ReduceMaxOp r, ValueRange ops, Emitter &e, T type) {
        return keepdimReduce(r, ops[0], e, type, /*isMax=*/true);
      });
  addExport<m::ReduceSumOp>(
      p, [](m::ReduceSumOp r, ValueRange ops, Emitter &e, T type) {
        return keepdimReduce(r, ops[0], e, type, /*isMax=*/false);
      });
  addExport<m::MeanOp>(p, [](m::MeanOp mo, ValueRange ops, Emitter &e, T) {
    return mean(e, ops[0], mo.getCount());
  });
  addExport<m::ValidRowsOp>(
      p, [](m::ValidRowsOp, ValueRange ops, Emitter &e, T) {
        return scalarTensor(e, e.truncF32(countNotIgnored(e, ops[0])));
      });
  addExport<m::TargetLogitOp>(
      p, [](m::TargetLogitOp, ValueRange ops, Emitter &e, T type) {
        return targetLogit(e, ops[0], ops[1], type);
      });
  addExport<m::CrossEntropyOp>(
      p, [](m::CrossEntropyOp c, ValueRange ops, Emitter &e, T) {
        return crossEntropy(e, ops[0], ops[1], c.getValid() ? ops[2] : Value(),
                            c.getCount());
      });
  addExport<m::FullOp>(p, [](m::FullOp f, ValueRange, Emitter &e, T type) {
    return e.full(type.getShape(), type.getElementType(),
                  f.getValue().convertToDouble());
  });
}
