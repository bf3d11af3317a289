//===- TransformerKernels.cpp - Rotary, attention, loss ---------*- C++ -*-===//
//
// The transformer-specific CPU kernels: Llama rotary embedding, grouped-query
// scaled dot-product attention on BLAS, and cross-entropy.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Kernels.h"

#include "KernelUtils.h"
#include "tp/Runtime/FloatOps.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

using namespace mlir::tp::runtime;

Tensor mlir::tp::runtime::rotary(const Tensor &x, int64_t positionOffset,
                                 float theta) {
  detail::checkRotary(x.shape());
  return detail::rotate(x, positionOffset, theta, /*inverse=*/false);
}

Tensor mlir::tp::runtime::detail::rotate(const Tensor &x,
                                         int64_t positionOffset, float theta,
                                         bool inverse) {
  int64_t b = x.dim(0), s = x.dim(1), h = x.dim(2), d = x.dim(3);
  int64_t half = d / 2;
  // Angles in f32 exactly as Meta's precompute_freqs_cis, so long positions
  // round the same way as the PyTorch reference.
  std::vector<float> cosT(s * half), sinT(s * half);
  for (int64_t i = 0; i < half; ++i) {
    float exponent = static_cast<float>(2 * i) / static_cast<float>(d);
    float freq = 1.0f / std::pow(theta, exponent);
    for (int64_t t = 0; t < s; ++t) {
      float angle = static_cast<float>(positionOffset + t) * freq;
      cosT[t * half + i] = std::cos(angle);
      sinT[t * half + i] = std::sin(angle);
    }
  }
  Tensor out = Tensor::uninitialized(x.shape());
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t t = 0; t < s; ++t)
      for (int64_t hi = 0; hi < h; ++hi) {
        int64_t base = ((bi * s + t) * h + hi) * d;
        const float *src = x.data() + base;
        float *dst = out.data() + base;
        for (int64_t i = 0; i < half; ++i) {
          float c = cosT[t * half + i], sn = sinT[t * half + i];
          if (inverse)
            sn = -sn;
          float x0 = src[2 * i], x1 = src[2 * i + 1];
          dst[2 * i] = x0 * c - x1 * sn;
          dst[2 * i + 1] = x0 * sn + x1 * c;
        }
      }
  return out;
}

Tensor mlir::tp::runtime::attention(const Tensor &q, const Tensor &k,
                                    const Tensor &v, bool causal) {
  auto [b, s, t, hq, hkv, d, dv] =
      detail::checkAttention(q.shape(), k.shape(), v.shape(), causal);
  // No keys: the output is zeros; otherwise every head's rows are written.
  if (t == 0)
    return Tensor({b, s, hq, dv});
  Tensor out = Tensor::uninitialized({b, s, hq, dv});
  int64_t group = hq / hkv;
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  ScratchVector<float> scores(s * t);
  for (int64_t bi = 0; bi < b; ++bi) {
    for (int64_t h = 0; h < hq; ++h) {
      int64_t kh = h / group;
      const float *qp = q.data() + bi * s * hq * d + h * d;
      const float *kp = k.data() + bi * t * hkv * d + kh * d;
      const float *vp = v.data() + bi * t * hkv * dv + kh * dv;
      float *op = out.data() + bi * s * hq * dv + h * dv;
      // scores[s, t] = scale * Q_h K_kh^T, rows strided by the head layout.
      detail::gemm(/*transB=*/true, s, t, d, scale, qp, hq * d, kp, hkv * d,
                   0.0f, scores.data(), t);
      detail::attentionSoftmax(scores.data(), s, t, causal);
      detail::gemm(/*transB=*/false, s, dv, t, 1.0f, scores.data(), t, vp,
                   hkv * dv, 0.0f, op, hq * dv);
    }
  }
  return out;
}

Tensor mlir::tp::runtime::crossEntropy(const Tensor &logits,
                                       const Tensor &targets,
                                       std::optional<double> divisor) {
  if (logits.rank() != 2 || targets.rank() != 1 ||
      targets.dim(0) != logits.dim(0))
    throw std::invalid_argument("crossEntropy: logits " + logits.shapeString() +
                                " and targets " + targets.shapeString() +
                                " must be [N, C] and [N]");
  int64_t n = logits.dim(0), c = logits.dim(1);
  constexpr int64_t ignoreIndex = -100;
  double total = 0.0;
  int64_t counted = 0;
  std::vector<int64_t> ids =
      detail::readIds(targets, "crossEntropy", "targets");
  for (int64_t i = 0; i < n; ++i) {
    int64_t target = ids[i];
    if (target == ignoreIndex)
      continue;
    if (target < 0 || target >= c)
      throw std::invalid_argument(
          "crossEntropy: target " + std::to_string(target) + " of row " +
          std::to_string(i) + " out of range [0, " + std::to_string(c) + ")");
    const float *row = logits.data() + i * c;
    auto [maxV, sum] = detail::rowLogSumExp(row, c);
    total += maxV + std::log(sum) - row[target];
    ++counted;
  }
  if (divisor && *divisor > 0)
    // A shard's part of the mean: nothing when it holds no counted row.
    return Tensor::scalar(counted ? static_cast<float>(total / *divisor)
                                  : 0.0f);
  // No counted row anywhere (a divisor of 0) or here: NaN, as PyTorch.
  float loss = counted ? static_cast<float>(total / counted)
                       : std::numeric_limits<float>::quiet_NaN();
  return Tensor::scalar(loss);
}

/// exps[j] = exp(row[j] - shift) in f64 for j < n (vectorized clones).
TP_VECTOR_CLONES static void expShiftedWide(const float *row, int64_t n,
                                            float shift, double *exps) {
  for (int64_t j = 0; j < n; ++j)
    exps[j] = detail::expApprox(static_cast<double>(row[j]) - shift);
}

detail::RowLogSumExp mlir::tp::runtime::detail::rowLogSumExp(const float *row,
                                                             int64_t n,
                                                             double *exps) {
  float maxV = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j)
    maxV = maxKeepNaN(maxV, row[j]);
  std::vector<double> own;
  if (!exps) {
    own.resize(n);
    exps = own.data();
  }
  // The terms first, in a loop that vectorizes, then their sum in order.
  expShiftedWide(row, n, maxV, exps);
  double sum = 0.0;
  for (int64_t j = 0; j < n; ++j)
    sum += exps[j];
  return {maxV, sum};
}

/// row[j] = exp(row[j] - shift) for j < n (vectorized clones).
TP_VECTOR_CLONES static void expShifted(float *row, int64_t n, float shift) {
  for (int64_t j = 0; j < n; ++j)
    row[j] = detail::expApprox(row[j] - shift);
}

void mlir::tp::runtime::detail::attentionSoftmax(float *scores, int64_t s,
                                                 int64_t t, bool causal) {
  for (int64_t i = 0; i < s; ++i) {
    float *row = scores + i * t;
    int64_t visible = causal ? i + 1 : t;
    float maxV = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < visible; ++j)
      maxV = maxKeepNaN(maxV, row[j]);
    // The exponentials first, in a loop that vectorizes, then their sum in
    // order.
    expShifted(row, visible, maxV);
    double sum = 0.0;
    for (int64_t j = 0; j < visible; ++j)
      sum += row[j];
    float inv = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < visible; ++j)
      row[j] *= inv;
    std::fill(row + visible, row + t, 0.0f);
  }
}
