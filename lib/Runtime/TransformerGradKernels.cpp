//===- TransformerGradKernels.cpp - Transformer backward --------*- C++ -*-===//
//
// Softmax, rotary and grouped-query attention backward on the CPU. Attention
// recomputes its probabilities per (batch, head) and runs its four products
// on BLAS; the forward's shape checks are reused, renamed after the backward
// kernel.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/TransformerGradKernels.h"

#include "KernelUtils.h"
#include "tp/Runtime/FloatOps.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

using namespace mlir::tp::runtime;

/// \p e, thrown by the forward check of \p forward ("forward: ..."), as the
/// error of \p backward ("backward: ...").
static std::invalid_argument renamed(const std::invalid_argument &e,
                                     const char *forward,
                                     const char *backward) {
  std::string message = e.what();
  size_t n = std::strlen(forward);
  if (message.compare(0, n, forward) == 0)
    message = backward + message.substr(n);
  else
    message = std::string(backward) + ": " + message;
  return std::invalid_argument(message);
}

static void requireF32(const char *op, const char *what, const Tensor &t) {
  if (t.dtype() != DType::F32)
    throw detail::shapeError(op, std::string(what) + " is a " +
                                     dtypeName(t.dtype()) +
                                     " tensor; it takes F32");
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::softmaxBackward(const Tensor &g, const Tensor &y,
                                          int64_t dim) {
  requireF32("softmaxBackward", "g", g);
  requireF32("softmaxBackward", "y", y);
  if (g.shape() != y.shape())
    throw detail::shapeError("softmaxBackward",
                             "gradient " + g.shapeString() + " and output " +
                                 y.shapeString() + " have different shapes");
  auto [outer, extent, inner] =
      splitAround(y.shape(), normalizeDim(dim, y.rank()));
  Tensor out = Tensor::uninitialized(y.shape());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * extent * inner + in;
      const float *gp = g.data() + base, *yp = y.data() + base;
      float *dst = out.data() + base;
      double dot = 0.0;
      for (int64_t j = 0; j < extent; ++j)
        dot += static_cast<double>(gp[j * inner]) * yp[j * inner];
      float dotF = static_cast<float>(dot);
      for (int64_t j = 0; j < extent; ++j)
        dst[j * inner] = yp[j * inner] * (gp[j * inner] - dotF);
    }
  return out;
}

//===----------------------------------------------------------------------===//
// Rotary
//===----------------------------------------------------------------------===//

Tensor mlir::tp::runtime::rotaryBackward(const Tensor &g,
                                         int64_t positionOffset, float theta) {
  requireF32("rotaryBackward", "g", g);
  try {
    detail::checkRotary(g.shape());
  } catch (const std::invalid_argument &e) {
    throw renamed(e, "rotary", "rotaryBackward");
  }
  // The transpose of the rotation: the same f32 angles, negated.
  return detail::rotate(g, positionOffset, theta, /*inverse=*/true);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

AttentionGrads mlir::tp::runtime::attentionBackward(const Tensor &g,
                                                    const Tensor &q,
                                                    const Tensor &k,
                                                    const Tensor &v,
                                                    bool causal) {
  const char *op = "attentionBackward";
  requireF32(op, "g", g);
  requireF32(op, "q", q);
  requireF32(op, "k", k);
  requireF32(op, "v", v);
  detail::AttentionDims dims;
  try {
    dims = detail::checkAttention(q.shape(), k.shape(), v.shape(), causal);
  } catch (const std::invalid_argument &e) {
    throw renamed(e, "attention", op);
  }
  auto [b, s, t, hq, hkv, d, dv] = dims;
  if (g.shape() != std::vector<int64_t>{b, s, hq, dv})
    throw detail::shapeError(
        op, "gradient " + g.shapeString() + " does not match the output [" +
                std::to_string(b) + ", " + std::to_string(s) + ", " +
                std::to_string(hq) + ", " + std::to_string(dv) +
                "] of attention (q " + q.shapeString() + ", k " +
                k.shapeString() + ", v " + v.shapeString() + ")");
  AttentionGrads grads{Tensor(q.shape()), Tensor(k.shape()), Tensor(v.shape())};
  // No keys: the output is zeros whatever q is, so every gradient is zero.
  if (t == 0 || s == 0 || b == 0 || hq == 0)
    return grads;
  int64_t group = hq / hkv;
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  // probs: P = softmax(scale Q K^T) [s, t]; dScores: first dP = dO V^T, then
  // dS = P * (dP - rowsum(P * dP)), the softmax backward row by row.
  ScratchVector<float> probs(s * t), dScores(s * t);
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t h = 0; h < hq; ++h) {
      int64_t kh = h / group;
      int64_t qOff = bi * s * hq * d + h * d;
      int64_t kOff = bi * t * hkv * d + kh * d;
      int64_t vOff = bi * t * hkv * dv + kh * dv;
      int64_t oOff = bi * s * hq * dv + h * dv;
      const float *qp = q.data() + qOff, *kp = k.data() + kOff,
                  *vp = v.data() + vOff, *gp = g.data() + oOff;
      // Recompute the forward's probabilities exactly as attention() does.
      detail::gemm(/*transB=*/true, s, t, d, scale, qp, hq * d, kp, hkv * d,
                   0.0f, probs.data(), t);
      detail::attentionSoftmax(probs.data(), s, t, causal);
      // dP[s, t] = dO[s, dv] V[t, dv]^T.
      detail::gemm(/*transB=*/true, s, t, dv, 1.0f, gp, hq * dv, vp, hkv * dv,
                   0.0f, dScores.data(), t);
      for (int64_t i = 0; i < s; ++i) {
        const float *p = probs.data() + i * t;
        float *ds = dScores.data() + i * t;
        double dot = 0.0;
        for (int64_t j = 0; j < t; ++j)
          dot += static_cast<double>(p[j]) * ds[j];
        float dotF = static_cast<float>(dot);
        // Masked keys have p = 0 and so get no gradient.
        for (int64_t j = 0; j < t; ++j)
          ds[j] = p[j] * (ds[j] - dotF);
      }
      // dQ_h[s, d] = scale dS K_kh.
      detail::gemm(/*transB=*/false, s, d, t, scale, dScores.data(), t, kp,
                   hkv * d, 0.0f, grads.gq.data() + qOff, hq * d);
      // dK_kh[t, d] += scale dS^T Q_h and dV_kh[t, dv] += P^T dO_h: the
      // query heads of a group accumulate into their kv head (beta = 1 on
      // the zero-initialized gradients).
      if (d > 0)
        detail::gemmT(/*transA=*/true, /*transB=*/false, t, d, s, scale,
                      dScores.data(), t, qp, hq * d, 1.0f,
                      grads.gk.data() + kOff, hkv * d);
      if (dv > 0)
        detail::gemmT(/*transA=*/true, /*transB=*/false, t, dv, s, 1.0f,
                      probs.data(), t, gp, hq * dv, 1.0f,
                      grads.gv.data() + vOff, hkv * dv);
    }
  }
  return grads;
}
