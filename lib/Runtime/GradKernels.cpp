//===- GradKernels.cpp - Backward f32 CPU kernels ---------------*- C++ -*-===//
//
// The derivatives of the forward kernels (Kernels.cpp, LossKernels.cpp,
// TransformerKernels.cpp) that a training step calls; see GradKernels.h.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/GradKernels.h"

#include "KernelUtils.h"
#include "tp/Runtime/FloatOps.h"
#include "tp/Runtime/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

using namespace mlir::tp::runtime;

using detail::Shape;
using detail::shapeError;

namespace {

/// Throws "op: what1 AxB does not match what2 CxD" unless the shapes agree.
void checkSame(const char *op, const char *what1, const Shape &s1,
               const char *what2, const Shape &s2) {
  if (s1 != s2)
    throw shapeError(op, std::string(what1) + " " + shapeToString(s1) +
                             " does not match " + what2 + " " +
                             shapeToString(s2));
}

const Shape *shapeOf(const Tensor *t) { return t ? &t->shape() : nullptr; }

/// acc[j] += src[r * n + j] over \p rows rows (vectorized clones): a bias's
/// gradient.
TP_VECTOR_CLONES static void sumRows(const float *src, int64_t rows, int64_t n,
                                     double *acc) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      acc[j] += src[r * n + j];
}

/// sumToShape for a gradient \p full known to have the broadcast shape;
/// \p full itself when no dimension is reduced.
Tensor reduceTo(Tensor full, const Shape &shape) {
  if (full.shape() == shape)
    return full;
  if (full.numel() == shapeNumel(shape))
    return full.reshaped(shape); // Only leading or size-1 dims differ.
  Tensor out(shape);
  int64_t n = out.numel();
  if (n == 0)
    return out;
  ScratchVector<double> acc(n, 0.0);
  const float *src = full.data();
  // The common case, a bias: shape (less leading 1s) is a suffix of full's,
  // so full is [rows, n] and the rows are summed.
  size_t lead = 0;
  while (lead < shape.size() && shape[lead] == 1)
    ++lead;
  Shape core(shape.begin() + lead, shape.end());
  const Shape &fs = full.shape();
  if (core.size() <= fs.size() &&
      std::equal(core.begin(), core.end(), fs.end() - core.size())) {
    sumRows(src, full.numel() / n, n, acc.data());
  } else {
    Shape strides = detail::broadcastStrides(shape, fs);
    Shape unit(fs.size(), 0);
    detail::forEachStrided(
        fs, strides, unit,
        [&](int64_t o, int64_t, int64_t i) { acc[o] += src[i]; });
  }
  float *dst = out.data();
  for (int64_t j = 0; j < n; ++j)
    dst[j] = static_cast<float>(acc[j]);
  return out;
}

/// The broadcast shape of \p a and \p b, which \p g must have.
void checkBinaryGrad(const char *op, const Tensor &g, const Tensor &a,
                     const Tensor &b) {
  Shape full = detail::broadcastOrThrow(op, a.shape(), b.shape());
  checkSame(op, "gradient", g.shape(), "the broadcast shape", full);
}

/// out[i] = f(g[i], v[i]) for the gradient \p g and the forward operand or
/// result \p v (named \p what in errors) of the same shape.
template <typename F>
Tensor pointwise(const char *op, const char *what, const Tensor &g,
                 const Tensor &v, F f) {
  checkSame(op, "gradient", g.shape(), what, v.shape());
  Tensor out = Tensor::uninitialized(g.shape());
  const float *pg = g.data(), *pv = v.data();
  float *po = out.data();
  for (int64_t i = 0, e = g.numel(); i < e; ++i)
    po[i] = f(pg[i], pv[i]);
  return out;
}

} // namespace

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::linearBackwardInput(const Tensor &g,
                                              const Tensor &w) {
  if (g.rank() < 1 || w.rank() != 2 || g.shape().back() != w.dim(0))
    throw shapeError("linearBackwardInput",
                     "gradient " + g.shapeString() + " does not match weight " +
                         w.shapeString() +
                         " (expected [..., out] and [out, in])");
  int64_t out = w.dim(0), in = w.dim(1);
  int64_t rows = shapeNumel(Shape(g.shape().begin(), g.shape().end() - 1));
  Shape shape = g.shape();
  shape.back() = in;
  Tensor gx = Tensor::uninitialized(shape);
  detail::gemmT(false, false, rows, in, out, 1.0f, g.data(), out, w.data(), in,
                0.0f, gx.data(), in);
  return gx;
}

Tensor mlir::tp::runtime::linearBackwardWeight(const Tensor &g,
                                               const Tensor &x) {
  if (g.rank() < 1 || g.rank() != x.rank() ||
      !std::equal(g.shape().begin(), g.shape().end() - 1, x.shape().begin()))
    throw shapeError("linearBackwardWeight",
                     "gradient " + g.shapeString() + " does not match input " +
                         x.shapeString() +
                         " (expected [..., out] and [..., in])");
  int64_t out = g.shape().back(), in = x.shape().back();
  int64_t rows = shapeNumel(Shape(g.shape().begin(), g.shape().end() - 1));
  Tensor gw = Tensor::uninitialized({out, in});
  // gw[out, in] = g[rows, out]^T @ x[rows, in]: BLAS reads g transposed.
  detail::gemmT(true, false, out, in, rows, 1.0f, g.data(), out, x.data(), in,
                0.0f, gw.data(), in);
  return gw;
}

Tensor mlir::tp::runtime::sumToShape(const Tensor &g,
                                     const std::vector<int64_t> &shape) {
  Shape full = detail::broadcastOrThrow("sumToShape", shape, g.shape());
  if (full != g.shape())
    throw shapeError("sumToShape", "shape " + shapeToString(shape) +
                                       " does not broadcast to gradient " +
                                       g.shapeString());
  if (g.dtype() != DType::F32)
    throw shapeError("sumToShape", std::string("gradient is a ") +
                                       dtypeName(g.dtype()) +
                                       " tensor; it must be F32");
  return reduceTo(g, shape);
}

BinaryGrads mlir::tp::runtime::matmulBackward(const Tensor &g, const Tensor &a,
                                              const Tensor &b) {
  detail::MatmulDims d;
  try {
    d = detail::checkMatmul(a.shape(), b.shape());
  } catch (const std::invalid_argument &e) {
    throw shapeError("matmulBackward", e.what());
  }
  checkSame("matmulBackward", "gradient", g.shape(), "the result shape",
            d.shape);
  int64_t m = d.m, k = d.k, n = d.n;
  BinaryGrads grads{Tensor(a.shape()), Tensor(b.shape())};
  const float *pg = g.data(), *pa = a.data(), *pb = b.data();
  float *ga = grads.a.data(), *gb = grads.b.data();
  if (d.batchB.empty()) {
    // b is shared by every batch of a: one GEMM each over all rows of a.
    int64_t rows = shapeNumel(d.batchA) * m;
    detail::gemmT(false, true, rows, k, n, 1.0f, pg, n, pb, n, 0.0f, ga, k);
    detail::gemmT(true, false, k, n, rows, 1.0f, pa, k, pg, n, 0.0f, gb, n);
    return grads;
  }
  // Per batch, accumulating (beta = 1) into the operand's batch that was
  // broadcast to it.
  detail::forEachStrided(
      d.batch, detail::broadcastStrides(d.batchA, d.batch),
      detail::broadcastStrides(d.batchB, d.batch),
      [&](int64_t ia, int64_t ib, int64_t io) {
        const float *gi = pg + io * m * n;
        detail::gemmT(false, true, m, k, n, 1.0f, gi, n, pb + ib * k * n, n,
                      1.0f, ga + ia * m * k, k);
        detail::gemmT(true, false, k, n, m, 1.0f, pa + ia * m * k, k, gi, n,
                      1.0f, gb + ib * k * n, n);
      });
  return grads;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::reluBackward(const Tensor &g, const Tensor &x) {
  return pointwise("reluBackward", "input", g, x, [](float gv, float xv) {
    return !(xv <= 0.0f) ? gv : 0.0f;
  });
}

/// out = g * gelu'(x) over \p n elements (vectorized clones: this loop
/// runs over the MLP's widest activation).
TP_VECTOR_CLONES static void geluBackwardLoop(const float *g, const float *x,
                                              float *out, int64_t n) {
  const float invSqrt2 = 0.70710678118654752f;
  const float invSqrt2Pi = 0.39894228040143268f;
  for (int64_t i = 0; i < n; ++i) {
    float xv = x[i];
    float cdf = 0.5f * (1.0f + detail::erfApprox(xv * invSqrt2));
    float pdf = invSqrt2Pi * detail::expApprox(-0.5f * xv * xv);
    out[i] = g[i] * (cdf + xv * pdf);
  }
}

Tensor mlir::tp::runtime::geluBackward(const Tensor &g, const Tensor &x) {
  checkSame("geluBackward", "gradient", g.shape(), "input", x.shape());
  Tensor out = Tensor::uninitialized(g.shape());
  geluBackwardLoop(g.data(), x.data(), out.data(), g.numel());
  return out;
}

Tensor mlir::tp::runtime::geluTanhBackward(const Tensor &g, const Tensor &x) {
  return pointwise("geluTanhBackward", "input", g, x, [](float gv, float xv) {
    const float c = 0.79788456080286536f; // sqrt(2 / pi)
    const float k = 0.044715f;
    float t = std::tanh(c * (xv + k * xv * xv * xv));
    float dInner = c * (1.0f + 3.0f * k * xv * xv);
    return gv * (0.5f * (1.0f + t) + 0.5f * xv * (1.0f - t * t) * dInner);
  });
}

/// out = g * silu'(x) over \p n elements (vectorized clones).
TP_VECTOR_CLONES static void siluBackwardLoop(const float *g, const float *x,
                                              float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float s = 1.0f / (1.0f + detail::expApprox(-x[i]));
    out[i] = g[i] * s * (1.0f + x[i] * (1.0f - s));
  }
}

Tensor mlir::tp::runtime::siluBackward(const Tensor &g, const Tensor &x) {
  checkSame("siluBackward", "gradient", g.shape(), "input", x.shape());
  Tensor out = Tensor::uninitialized(g.shape());
  siluBackwardLoop(g.data(), x.data(), out.data(), g.numel());
  return out;
}

Tensor mlir::tp::runtime::expBackward(const Tensor &g, const Tensor &y) {
  return pointwise("expBackward", "result", g, y,
                   [](float gv, float yv) { return gv * yv; });
}

Tensor mlir::tp::runtime::logBackward(const Tensor &g, const Tensor &x) {
  return pointwise("logBackward", "input", g, x,
                   [](float gv, float xv) { return gv / xv; });
}

BinaryGrads mlir::tp::runtime::mulBackward(const Tensor &g, const Tensor &a,
                                           const Tensor &b) {
  checkBinaryGrad("mulBackward", g, a, b);
  return {reduceTo(mul(g, b), a.shape()), reduceTo(mul(g, a), b.shape())};
}

BinaryGrads mlir::tp::runtime::divBackward(const Tensor &g, const Tensor &a,
                                           const Tensor &b) {
  checkBinaryGrad("divBackward", g, a, b);
  // d(a/b)/db = -(a/b)/b, so gb = -(g/b)(a/b) before the reduction.
  Tensor gOverB = div(g, b);
  Tensor gbFull = mul(gOverB, div(a, b));
  for (int64_t i = 0, e = gbFull.numel(); i < e; ++i)
    gbFull.data()[i] = -gbFull.data()[i];
  return {reduceTo(std::move(gOverB), a.shape()),
          reduceTo(std::move(gbFull), b.shape())};
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// The [d] f32 tensor of \p acc, or an empty tensor when \p present is false.
static Tensor vectorOrEmpty(bool present, const std::vector<double> &acc) {
  if (!present)
    return Tensor();
  Tensor out({static_cast<int64_t>(acc.size())});
  for (size_t j = 0; j < acc.size(); ++j)
    out.data()[j] = static_cast<float>(acc[j]);
  return out;
}

/// layerNormBackward over \p rows rows of \p d: the input's gradient into
/// \p gx, the weight's and bias's accumulated into \p gw and \p gb (f64).
/// The sums over a row in kSumLanes interleaved partial sums, so that the
/// loops vectorize (vectorized clones).
TP_VECTOR_CLONES static void
layerNormBackwardRows(const float *g, const float *x, const float *w, float *gx,
                      double *gw, double *gb, int64_t rows, int64_t d,
                      float eps) {
  constexpr int L = detail::kSumLanes;
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * d, *gr = g + r * d;
    float *out = gx + r * d;
    // The statistics as the forward computes them.
    auto [mean, var] = detail::rowMoments(xr, d);
    double rstd = 1.0 / std::sqrt(var + eps);
    double sDy[L] = {}, sDyXhat[L] = {};
    int64_t j = 0;
    auto term = [&](int64_t k, int l) {
      double xhat = (xr[k] - mean) * rstd;
      double dy = static_cast<double>(gr[k]) * w[k];
      sDy[l] += dy;
      sDyXhat[l] += dy * xhat;
      gw[k] += gr[k] * xhat;
      gb[k] += gr[k];
    };
    for (; j + L <= d; j += L)
      for (int l = 0; l < L; ++l)
        term(j + l, l);
    for (; j < d; ++j)
      term(j, 0);
    double sumDy = 0.0, sumDyXhat = 0.0;
    for (int l = 0; l < L; ++l) {
      sumDy += sDy[l];
      sumDyXhat += sDyXhat[l];
    }
    double meanDy = sumDy / d, meanDyXhat = sumDyXhat / d;
    for (j = 0; j < d; ++j) {
      double xhat = (xr[j] - mean) * rstd;
      double dy = static_cast<double>(gr[j]) * w[j];
      out[j] = static_cast<float>(rstd * (dy - meanDy - xhat * meanDyXhat));
    }
  }
}

LayerNormGrads mlir::tp::runtime::layerNormBackward(const Tensor &g,
                                                    const Tensor &x,
                                                    const Tensor *weight,
                                                    const Tensor *bias,
                                                    float eps) {
  auto [rows, d] = detail::checkNorm("layerNormBackward", x.shape(),
                                     shapeOf(weight), shapeOf(bias));
  checkSame("layerNormBackward", "gradient", g.shape(), "input", x.shape());
  Tensor gx = Tensor::uninitialized(x.shape());
  std::vector<double> gw(d, 0.0), gb(d, 0.0);
  // Without a weight dy is the gradient: a weight of ones (an exact
  // multiply in f64).
  std::vector<float> ones;
  if (!weight)
    ones.assign(d, 1.0f);
  layerNormBackwardRows(g.data(), x.data(),
                        weight ? weight->data() : ones.data(), gx.data(),
                        gw.data(), gb.data(), rows, d, eps);
  return {std::move(gx), vectorOrEmpty(weight, gw), vectorOrEmpty(bias, gb)};
}

RMSNormGrads mlir::tp::runtime::rmsNormBackward(const Tensor &g,
                                                const Tensor &x,
                                                const Tensor *weight,
                                                float eps) {
  auto [rows, d] =
      detail::checkNorm("rmsNormBackward", x.shape(), shapeOf(weight), nullptr);
  checkSame("rmsNormBackward", "gradient", g.shape(), "input", x.shape());
  Tensor gx = Tensor::uninitialized(x.shape());
  std::vector<double> gw(d, 0.0);
  const float *w = weight ? weight->data() : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x.data() + r * d, *gr = g.data() + r * d;
    float *out = gx.data() + r * d;
    double sumSq = 0.0;
    for (int64_t j = 0; j < d; ++j)
      sumSq += static_cast<double>(xr[j]) * xr[j];
    double inv = 1.0 / std::sqrt(sumSq / d + eps);
    double dot = 0.0;
    for (int64_t j = 0; j < d; ++j) {
      double dy = w ? static_cast<double>(gr[j]) * w[j] : gr[j];
      dot += dy * xr[j];
      gw[j] += gr[j] * (xr[j] * inv);
    }
    double k = inv * inv * inv * dot / d;
    for (int64_t j = 0; j < d; ++j) {
      double dy = w ? static_cast<double>(gr[j]) * w[j] : gr[j];
      out[j] = static_cast<float>(inv * dy - k * xr[j]);
    }
  }
  return {std::move(gx), vectorOrEmpty(weight, gw)};
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// Adds row i of g[..., D] to row ids[i] - offset of a [rows, D] result;
/// with \p mask, non-negative ids outside the shard are skipped (as
/// embeddingMasked gives them zero rows), otherwise they throw.
static Tensor scatterRows(const char *op, const Tensor &g, const Tensor &ids,
                          int64_t rows, int64_t offset, bool mask) {
  const Shape &gs = g.shape();
  if (g.rank() != ids.rank() + 1 ||
      !std::equal(ids.shape().begin(), ids.shape().end(), gs.begin()))
    throw shapeError(op, "gradient " + g.shapeString() +
                             " does not match ids " + ids.shapeString() +
                             " (expected the ids' shape plus [dim])");
  if (rows < 0)
    throw shapeError(op, "negative number of rows " + std::to_string(rows));
  int64_t d = gs.back();
  std::vector<int64_t> values = detail::readIds(ids, op, "ids");
  Tensor out({rows, d});
  const float *src = g.data();
  float *dst = out.data();
  for (int64_t i = 0, e = ids.numel(); i < e; ++i) {
    int64_t row = detail::tableRow(op, values[i], offset, rows, mask);
    if (row < 0)
      continue;
    for (int64_t j = 0; j < d; ++j)
      dst[row * d + j] += src[i * d + j];
  }
  return out;
}

Tensor mlir::tp::runtime::embeddingBackward(const Tensor &g, const Tensor &ids,
                                            int64_t numEmbeddings) {
  return scatterRows("embeddingBackward", g, ids, numEmbeddings, 0,
                     /*mask=*/false);
}

Tensor mlir::tp::runtime::embeddingMaskedBackward(const Tensor &g,
                                                  const Tensor &ids,
                                                  int64_t rows,
                                                  int64_t vocabOffset) {
  return scatterRows("embeddingMaskedBackward", g, ids, rows, vocabOffset,
                     /*mask=*/true);
}

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

/// The value of the rank-0 gradient \p g of a scalar loss.
static float scalarGrad(const char *op, const Tensor &g) {
  if (g.rank() != 0)
    throw shapeError(op, "gradient of shape [" + g.shapeString() +
                             "] must be rank-0");
  return g.data()[0];
}

Tensor mlir::tp::runtime::crossEntropyBackward(const Tensor &logits,
                                               const Tensor &targets,
                                               const Tensor &gLoss,
                                               std::optional<double> divisor) {
  const char *op = "crossEntropyBackward";
  if (logits.rank() != 2 || targets.rank() != 1 ||
      targets.dim(0) != logits.dim(0))
    throw shapeError(op, "logits " + logits.shapeString() + " and targets " +
                             targets.shapeString() + " must be [N, C] and [N]");
  float gv = scalarGrad(op, gLoss);
  int64_t n = logits.dim(0), c = logits.dim(1);
  constexpr int64_t ignoreIndex = -100;
  std::vector<int64_t> ids = detail::readIds(targets, op, "targets");
  int64_t counted = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] == ignoreIndex)
      continue;
    if (ids[i] < 0 || ids[i] >= c)
      throw shapeError(op, "target " + std::to_string(ids[i]) + " of row " +
                               std::to_string(i) + " out of range [0, " +
                               std::to_string(c) + ")");
    ++counted;
  }
  Tensor out({n, c});
  if (counted == 0)
    return out;
  double scale = static_cast<double>(gv) /
                 (divisor ? *divisor : static_cast<double>(counted));
  ScratchVector<double> exps(c);
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] == ignoreIndex)
      continue;
    const float *row = logits.data() + i * c;
    float *dst = out.data() + i * c;
    double sum = detail::rowLogSumExp(row, c, exps.data()).sumExp;
    // (p - onehot) * scale: p * scale, then the target's element again.
    for (int64_t j = 0; j < c; ++j)
      dst[j] = static_cast<float>(exps[j] / sum * scale);
    int64_t t = ids[i];
    dst[t] = static_cast<float>((exps[t] / sum - 1.0) * scale);
  }
  return out;
}

Tensor mlir::tp::runtime::targetLogitBackward(const Tensor &g,
                                              const Tensor &targets,
                                              int64_t numClassesLocal,
                                              int64_t classOffset) {
  const char *op = "targetLogitBackward";
  if (g.rank() != 2 || g.dim(1) != 1 || targets.rank() != 1 ||
      targets.dim(0) != g.dim(0))
    throw shapeError(op, "gradient " + g.shapeString() + " and targets " +
                             targets.shapeString() + " must be [N, 1] and [N]");
  if (classOffset < 0 || numClassesLocal < 0)
    throw shapeError(op, "negative class offset " +
                             std::to_string(classOffset) + " or class count " +
                             std::to_string(numClassesLocal));
  int64_t n = g.dim(0), c = numClassesLocal;
  std::vector<int64_t> ids = detail::readIds(targets, op, "targets");
  Tensor out({n, c});
  for (int64_t i = 0; i < n; ++i) {
    int64_t t = ids[i];
    if (t >= classOffset && t - classOffset < c)
      out.data()[i * c + (t - classOffset)] = g.data()[i];
  }
  return out;
}

Tensor mlir::tp::runtime::meanBackward(const Tensor &g,
                                       const std::vector<int64_t> &shape) {
  float gv = scalarGrad("meanBackward", g);
  int64_t n = shapeNumel(shape);
  return Tensor::full(shape, n ? static_cast<float>(static_cast<double>(gv) / n)
                               : 0.0f);
}

/// The result shape of a keepdim reduction of \p shape along \p dim, which
/// \p g must have; \p dim normalized.
static DimSplit checkKeepDim(const char *op, const Tensor &g,
                             const Shape &shape, int64_t &dim) {
  dim = normalizeDim(dim, static_cast<int64_t>(shape.size()));
  Shape kept = shape;
  kept[dim] = 1;
  checkSame(op, "gradient", g.shape(), "the reduced shape", kept);
  return splitAround(shape, dim);
}

Tensor mlir::tp::runtime::reduceSumBackward(const Tensor &g,
                                            const std::vector<int64_t> &shape,
                                            int64_t dim) {
  auto [outer, n, inner] = checkKeepDim("reduceSumBackward", g, shape, dim);
  Tensor out(shape);
  const float *src = g.data();
  float *dst = out.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      std::copy_n(src + o * inner, inner, dst + (o * n + k) * inner);
  return out;
}

Tensor mlir::tp::runtime::reduceMaxBackward(const Tensor &g, const Tensor &x,
                                            int64_t dim) {
  const char *op = "reduceMaxBackward";
  auto [outer, n, inner] = checkKeepDim(op, g, x.shape(), dim);
  if (n == 0)
    throw shapeError(op, "cannot reduce an empty dim");
  Tensor out(x.shape());
  const float *src = x.data(), *pg = g.data();
  float *dst = out.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float *xs = src + o * n * inner + i;
      float *ds = dst + o * n * inner + i;
      float maxV = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < n; ++k)
        maxV = maxKeepNaN(maxV, xs[k * inner]);
      int64_t ties = 0;
      for (int64_t k = 0; k < n; ++k)
        ties += xs[k * inner] == maxV;
      // No element equals a NaN maximum: PyTorch's g / 0 * 0 is NaN.
      float share = ties ? pg[o * inner + i] / static_cast<float>(ties)
                         : std::numeric_limits<float>::quiet_NaN();
      for (int64_t k = 0; k < n; ++k)
        ds[k * inner] = !ties || xs[k * inner] == maxV ? share : 0.0f;
    }
  return out;
}

double mlir::tp::runtime::sumOfSquares(const Tensor &x) {
  const float *p = x.data();
  double sum = 0.0;
  for (int64_t i = 0, e = x.numel(); i < e; ++i)
    sum += static_cast<double>(p[i]) * p[i];
  return sum;
}
