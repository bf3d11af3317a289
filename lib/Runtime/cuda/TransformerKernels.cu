//===- TransformerKernels.cu - Rotary and attention kernels --------------===//
//
// Simple, correct CUDA kernels with the semantics of the CPU kernels in
// lib/Runtime/TransformerKernels.cpp: Llama rotary embedding and
// grouped-query (optionally causal) attention, one warp per query row.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

#include "tp/Runtime/FloatOps.h"

#include <cuda_runtime.h>

#include <algorithm>

using namespace mlir::tp::runtime::gpu::detail;

namespace {
struct RotaryFreqs {
  float f[kMaxRotaryFreqs];
};

/// One thread per rotated pair of x[b, s, h, d].
__global__ void rotaryKernel(const float *x, float *out, int64_t b, int64_t s,
                             int64_t h, int64_t d, int64_t positionOffset,
                             float theta, bool haveFreqs, RotaryFreqs freqs) {
  int64_t half = d / 2;
  int64_t total = b * s * h * half;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       e < total; e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t i = e % half;
    int64_t t = (e / (half * h)) % s;
    // The CPU kernel computes the angle in f32 as Meta's
    // precompute_freqs_cis does. The frequencies normally come from the host
    // (computed there exactly like the CPU kernel); the angle is the same f32
    // product, and cos and sin evaluated in f64 round to (nearly always) the
    // same f32 values as the host's cosf and sinf, so long positions match.
    float freq;
    if (haveFreqs) {
      freq = freqs.f[i];
    } else {
      float exponent = static_cast<float>(2 * i) / static_cast<float>(d);
      freq = 1.0f / static_cast<float>(pow(static_cast<double>(theta),
                                           static_cast<double>(exponent)));
    }
    float angle = static_cast<float>(positionOffset + t) * freq;
    float c = static_cast<float>(cos(static_cast<double>(angle)));
    float sn = static_cast<float>(sin(static_cast<double>(angle)));
    int64_t base = (e / half) * d + 2 * i;
    float x0 = x[base], x1 = x[base + 1];
    out[base] = x0 * c - x1 * sn;
    out[base + 1] = x0 * sn + x1 * c;
  }
}

__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// scale * q_row . k[j] on every lane of the warp.
__device__ __forceinline__ float score(const float *qRow, const float *kRow,
                                       int64_t d, float scale) {
  float dot = 0.0f;
  for (int64_t c = threadIdx.x; c < d; c += 32)
    dot += qRow[c] * kRow[c];
  return warpSum(dot) * scale;
}

/// One warp (block of 32 threads) per (batch, query position, query head):
/// pass 1 finds the largest visible score, pass 2 accumulates
/// exp(score - max) and exp(score - max) * v in shared memory.
__global__ void attentionKernel(const float *q, const float *k, const float *v,
                                float *out, int64_t s, int64_t t, int64_t hq,
                                int64_t hkv, int64_t d, int64_t dv, bool causal,
                                float scale) {
  extern __shared__ float shared[];
  float *qRow = shared;
  float *acc = shared + d;
  int64_t row = blockIdx.x; // (bi * s + i) * hq + h
  int64_t h = row % hq;
  int64_t i = (row / hq) % s;
  int64_t bi = row / (hq * s);
  int64_t kh = h / (hq / hkv);
  const float *kBase = k + bi * t * hkv * d + kh * d;
  const float *vBase = v + bi * t * hkv * dv + kh * dv;
  for (int64_t c = threadIdx.x; c < d; c += 32)
    qRow[c] = q[row * d + c];
  for (int64_t c = threadIdx.x; c < dv; c += 32)
    acc[c] = 0.0f;
  __syncwarp();
  int64_t visible = causal ? i + 1 : t;
  float maxV = -INFINITY;
  for (int64_t j = 0; j < visible; ++j)
    maxV = mlir::tp::runtime::maxKeepNaN(
        maxV, score(qRow, kBase + j * hkv * d, d, scale));
  float sum = 0.0f;
  for (int64_t j = 0; j < visible; ++j) {
    float p = expf(score(qRow, kBase + j * hkv * d, d, scale) - maxV);
    sum += p;
    const float *vRow = vBase + j * hkv * dv;
    // Each lane owns the columns c = lane (mod 32) of acc.
    for (int64_t c = threadIdx.x; c < dv; c += 32)
      acc[c] += p * vRow[c];
  }
  float inv = 1.0f / sum;
  for (int64_t c = threadIdx.x; c < dv; c += 32)
    out[row * dv + c] = acc[c] * inv;
}
} // namespace

void mlir::tp::runtime::gpu::detail::launchRotary(
    const float *x, float *out, int64_t b, int64_t s, int64_t h, int64_t d,
    int64_t positionOffset, float theta, const float *freqs,
    cudaStream_t stream) {
  int64_t total = b * s * h * (d / 2);
  if (total == 0)
    return;
  RotaryFreqs table = {};
  bool haveFreqs = freqs && d / 2 <= kMaxRotaryFreqs;
  if (haveFreqs)
    for (int64_t i = 0; i < d / 2; ++i)
      table.f[i] = freqs[i];
  constexpr int threads = 256;
  int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 1 << 20);
  rotaryKernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      x, out, b, s, h, d, positionOffset, theta, haveFreqs, table);
  checkLaunch("rotary kernel");
}

void mlir::tp::runtime::gpu::detail::launchAttention(
    const float *q, const float *k, const float *v, float *out, int64_t b,
    int64_t s, int64_t t, int64_t hq, int64_t hkv, int64_t d, int64_t dv,
    bool causal, float scale, cudaStream_t stream) {
  int64_t rows = b * s * hq;
  if (rows == 0 || dv == 0)
    return;
  size_t sharedBytes = static_cast<size_t>(d + dv) * sizeof(float);
  if (sharedBytes > 48 * 1024)
    check(cudaErrorInvalidValue,
          "attention kernel (head dims above 12288 floats in total)");
  attentionKernel<<<static_cast<unsigned>(rows), 32, sharedBytes, stream>>>(
      q, k, v, out, s, t, hq, hkv, d, dv, causal, scale);
  checkLaunch("attention kernel");
}
