//===- Kernels.cu - Element-wise, normalization, embedding kernels -------===//
//
// Simple, correct CUDA kernels with the semantics of the CPU kernels in
// lib/Runtime/Kernels.cpp, the f32/bf16/f16 conversions, and the rank-ordered
// reduction that the threads backend uses on device memory. Kept small: every
// kernel is instantiated for each architecture in CMAKE_CUDA_ARCHITECTURES
// (and the element-wise ones for each storage type).
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

#include "tp/Runtime/CUDA.h"
#include "tp/Runtime/FloatOps.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <type_traits>

using namespace mlir::tp::runtime;
using namespace mlir::tp::runtime::gpu::detail;

void mlir::tp::runtime::gpu::detail::check(cudaError_t err, const char *what) {
  if (err != cudaSuccess)
    throw CudaError(std::string("CUDA error in ") + what + ": " +
                    cudaGetErrorString(err));
}

void mlir::tp::runtime::gpu::detail::checkLaunch(const char *what) {
  check(cudaGetLastError(), what);
}

namespace {
constexpr int kThreads = 256;

/// Blocks for a grid-stride loop over \p n elements.
unsigned gridFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, 1 << 20)));
}

#define GRID_STRIDE(i, n)                                                      \
  for (int64_t i =                                                             \
           blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;        \
       i < (n); i += static_cast<int64_t>(gridDim.x) * blockDim.x)

__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warpMax(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = maxKeepNaN(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/// Sum of \p v over the block; every thread gets the result. \p scratch
/// holds 32 floats.
__device__ float blockSum(float v, float *scratch) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warpSum(v);
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int warps = (blockDim.x + 31) >> 5;
    v = warpSum(lane < warps ? scratch[lane] : 0.0f);
    if (lane == 0)
      scratch[0] = v;
  }
  __syncthreads();
  float total = scratch[0];
  __syncthreads();
  return total;
}

//===----------------------------------------------------------------------===//
// Storage types: float, __nv_bfloat16, __half
//===----------------------------------------------------------------------===//

// Loads widen exactly; stores round to nearest even. NaNs are handled here
// rather than by the PTX conversions, which return a canonical NaN, so that
// every result is bitwise identical to the host conversions of Tensor.cpp
// (bf16: quieted, top payload bits kept; f16: quieted, payload bits 13-22
// kept, and the widening keeps the f16 payload).

__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ float widen(__nv_bfloat16 v) {
  return __uint_as_float(static_cast<unsigned>(__bfloat16_as_ushort(v)) << 16);
}
__device__ __forceinline__ float widen(__half v) {
  unsigned h = __half_as_ushort(v);
  if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0)
    return __uint_as_float(((h & 0x8000u) << 16) | 0x7f800000u |
                           ((h & 0x3ffu) << 13));
  return __half2float(v);
}

template <typename T> __device__ T narrow(float v);
template <> __device__ __forceinline__ float narrow<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float v) {
  unsigned u = __float_as_uint(v);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return __ushort_as_bfloat16(static_cast<unsigned short>((u >> 16) | 0x40u));
  return __float2bfloat16_rn(v);
}
template <> __device__ __forceinline__ __half narrow<__half>(float v) {
  unsigned u = __float_as_uint(v), ax = u & 0x7fffffffu;
  if (ax > 0x7f800000u)
    return __ushort_as_half(static_cast<unsigned short>(
        ((u >> 16) & 0x8000u) | 0x7e00u | ((ax >> 13) & 0x3ffu)));
  return __float2half_rn(v);
}

/// Calls \p fn with a null pointer of the storage type of \p dtype.
template <typename Fn> void withStorageType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    fn(static_cast<float *>(nullptr));
    return;
  case DType::BF16:
    fn(static_cast<__nv_bfloat16 *>(nullptr));
    return;
  case DType::F16:
    fn(static_cast<__half *>(nullptr));
    return;
  case DType::I64:
  case DType::I32:
  case DType::Bool:
    break; // callers reject integers (DeviceKernels.cpp, convert)
  }
}

template <typename S, typename D>
__global__ void convertKernel(const S *src, D *dst, int64_t n) {
  GRID_STRIDE(i, n) dst[i] = narrow<D>(widen(src[i]));
}

__global__ void broadcastRowsKernel(unsigned short *out,
                                    const unsigned short *row, int64_t rows,
                                    int64_t cols) {
  GRID_STRIDE(i, rows * cols) out[i] = row[i % cols];
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

template <BinaryOp Op>
__device__ __forceinline__ float binary(float x, float y) {
  switch (Op) {
  case BinaryOp::Add:
    return x + y;
  case BinaryOp::Sub:
    return x - y;
  case BinaryOp::Mul:
    return x * y;
  case BinaryOp::Div:
    return x / y;
  }
  return 0.0f;
}

template <BinaryOp Op, typename T>
__global__ void binaryKernel(const T *a, const T *b, T *out, int64_t n) {
  GRID_STRIDE(i, n) out[i] = narrow<T>(binary<Op>(widen(a[i]), widen(b[i])));
}

template <BinaryOp Op, typename T>
__global__ void binaryBroadcastKernel(const T *a, const T *b, T *out, int64_t n,
                                      BroadcastIndex index) {
  GRID_STRIDE(i, n) {
    int64_t rem = i, offA = 0, offB = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      int64_t c = rem % index.shape[d];
      rem /= index.shape[d];
      offA += c * index.strideA[d];
      offB += c * index.strideB[d];
    }
    out[i] = narrow<T>(binary<Op>(widen(a[offA]), widen(b[offB])));
  }
}

template <BinaryOp Op, typename T>
void binaryLaunch(const T *a, const T *b, T *out, int64_t n,
                  const BroadcastIndex *index, cudaStream_t stream) {
  if (index)
    binaryBroadcastKernel<Op, T>
        <<<gridFor(n), kThreads, 0, stream>>>(a, b, out, n, *index);
  else
    binaryKernel<Op, T><<<gridFor(n), kThreads, 0, stream>>>(a, b, out, n);
}

template <UnaryOp Op> __device__ __forceinline__ float unary(float v, float p) {
  switch (Op) {
  case UnaryOp::Relu:
    return !(v <= 0.0f) ? v : 0.0f; // NaN stays NaN, as on the host
  case UnaryOp::Gelu:
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  case UnaryOp::GeluTanh: {
    const float c = 0.79788456080286536f; // sqrt(2 / pi)
    return 0.5f * v * (1.0f + tanhf(c * (v + 0.044715f * v * v * v)));
  }
  case UnaryOp::Silu:
    return v / (1.0f + expf(-v));
  case UnaryOp::Neg:
    return -v;
  case UnaryOp::Exp:
    return expf(v);
  case UnaryOp::Scale:
    return v * p;
  }
  return 0.0f;
}

template <UnaryOp Op, typename T>
__global__ void unaryKernel(const T *x, T *out, int64_t n, float p) {
  GRID_STRIDE(i, n) out[i] = narrow<T>(unary<Op>(widen(x[i]), p));
}

template <typename T>
void unaryLaunch(UnaryOp op, const T *x, T *out, int64_t n, float p,
                 cudaStream_t stream) {
  unsigned grid = gridFor(n);
  switch (op) {
  case UnaryOp::Relu:
    unaryKernel<UnaryOp::Relu, T><<<grid, kThreads, 0, stream>>>(x, out, n, p);
    break;
  case UnaryOp::Gelu:
    unaryKernel<UnaryOp::Gelu, T><<<grid, kThreads, 0, stream>>>(x, out, n, p);
    break;
  case UnaryOp::GeluTanh:
    unaryKernel<UnaryOp::GeluTanh, T>
        <<<grid, kThreads, 0, stream>>>(x, out, n, p);
    break;
  case UnaryOp::Silu:
    unaryKernel<UnaryOp::Silu, T><<<grid, kThreads, 0, stream>>>(x, out, n, p);
    break;
  case UnaryOp::Neg:
    unaryKernel<UnaryOp::Neg, T><<<grid, kThreads, 0, stream>>>(x, out, n, p);
    break;
  case UnaryOp::Exp:
    unaryKernel<UnaryOp::Exp, T><<<grid, kThreads, 0, stream>>>(x, out, n, p);
    break;
  case UnaryOp::Scale:
    unaryKernel<UnaryOp::Scale, T><<<grid, kThreads, 0, stream>>>(x, out, n, p);
    break;
  }
}

__global__ void biasAddKernel(float *out, const float *bias, int64_t rows,
                              int64_t cols) {
  GRID_STRIDE(i, rows * cols) out[i] += bias[i % cols];
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// One warp per row [o, :, in] of the [outer, extent, inner] view.
__global__ void softmaxKernel(const float *x, float *out, int64_t outer,
                              int64_t extent, int64_t inner) {
  int64_t row =
      blockIdx.x * static_cast<int64_t>(blockDim.x >> 5) + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (row >= outer * inner)
    return;
  int64_t base = (row / inner) * extent * inner + row % inner;
  const float *src = x + base;
  float *dst = out + base;
  float maxV = -INFINITY;
  for (int64_t j = lane; j < extent; j += 32)
    maxV = maxKeepNaN(maxV, src[j * inner]);
  maxV = warpMax(maxV);
  // A row of -inf (fully masked) yields NaN like PyTorch and the CPU kernel.
  float sum = 0.0f;
  for (int64_t j = lane; j < extent; j += 32) {
    float e = expf(src[j * inner] - maxV);
    dst[j * inner] = e;
    sum += e;
  }
  float inv = 1.0f / warpSum(sum);
  for (int64_t j = lane; j < extent; j += 32)
    dst[j * inner] *= inv;
}

/// One block per row.
__global__ void layerNormKernel(const float *x, const float *weight,
                                const float *bias, float *out, int64_t d,
                                float eps) {
  __shared__ float scratch[32];
  const float *src = x + blockIdx.x * d;
  float *dst = out + blockIdx.x * d;
  float s = 0.0f;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x)
    s += src[j];
  float mean = blockSum(s, scratch) / static_cast<float>(d);
  float sq = 0.0f;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    float c = src[j] - mean;
    sq += c * c;
  }
  float var = blockSum(sq, scratch) / static_cast<float>(d);
  float inv = 1.0f / sqrtf(var + eps);
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    float v = (src[j] - mean) * inv;
    if (weight)
      v *= weight[j];
    if (bias)
      v += bias[j];
    dst[j] = v;
  }
}

/// One block per row.
__global__ void rmsNormKernel(const float *x, const float *weight, float *out,
                              int64_t d, float eps) {
  __shared__ float scratch[32];
  const float *src = x + blockIdx.x * d;
  float *dst = out + blockIdx.x * d;
  float sq = 0.0f;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x)
    sq += src[j] * src[j];
  float total = blockSum(sq, scratch);
  float inv = 1.0f / sqrtf(total / static_cast<float>(d) + eps);
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x)
    dst[j] = src[j] * inv * (weight ? weight[j] : 1.0f);
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// Whether id \p v is an integer (always, for integer types), and its value.
__device__ __forceinline__ bool idValue(float v, int64_t &id) {
  // Past 1e18 (or at +-inf) the conversion would be undefined.
  if (!(floorf(v) == v && !(fabsf(v) > 1.0e18f)))
    return false;
  id = static_cast<int64_t>(v);
  return true;
}
__device__ __forceinline__ bool idValue(int64_t v, int64_t &id) {
  id = v;
  return true;
}
__device__ __forceinline__ bool idValue(int32_t v, int64_t &id) {
  id = v;
  return true;
}

/// One thread per output element (per id when d == 0, to validate only).
template <typename Id>
__global__ void embeddingKernel(const Id *ids, const float *weight, float *out,
                                int64_t n, int64_t rows, int64_t d,
                                int64_t offset, bool mask,
                                unsigned long long *firstBad) {
  int64_t cols = d > 0 ? d : 1;
  GRID_STRIDE(e, n * cols) {
    int64_t i = e / cols, c = e % cols;
    int64_t id = 0;
    bool integral = idValue(ids[i], id);
    float value = 0.0f;
    bool bad = !integral;
    if (integral) {
      // id >= offset first, so that id - offset cannot overflow.
      if (id >= offset && id - offset < rows)
        value = d > 0 ? weight[(id - offset) * d + c] : 0.0f;
      else
        bad = !(mask && id >= 0);
    }
    if (bad && c == 0)
      atomicMin(firstBad, static_cast<unsigned long long>(i));
    if (d > 0)
      out[e] = value;
  }
}

//===----------------------------------------------------------------------===//
// Rank-ordered reduction (threads backend on device memory)
//===----------------------------------------------------------------------===//

struct ReduceSources {
  const void *p[kMaxReduceSources];
};

/// The same operation sequence as the host reduceBuffers of
/// Communicator.cpp (f32 accumulation, maxKeepNaN/minKeepNaN, one
/// rounding to T at the end), so results are bitwise identical to the host
/// backend's.
template <typename T>
__global__ void reduceKernel(T *dst, ReduceSources srcs, int n, int64_t count,
                             int op) {
  GRID_STRIDE(i, count) {
    float acc = widen(static_cast<const T *>(srcs.p[0])[i]);
    for (int p = 1; p < n; ++p) {
      float v = widen(static_cast<const T *>(srcs.p[p])[i]);
      switch (static_cast<ReduceOp>(op)) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        acc = __fadd_rn(acc, v);
        break;
      case ReduceOp::Max:
        acc = maxKeepNaN(acc, v);
        break;
      case ReduceOp::Min:
        acc = minKeepNaN(acc, v);
        break;
      }
    }
    if (static_cast<ReduceOp>(op) == ReduceOp::Avg)
      acc = __fdiv_rn(acc, static_cast<float>(n));
    dst[i] = narrow<T>(acc);
  }
}

/// The integer form of reduceKernel, as the host's reduceInts: exact, sums
/// wrapping modulo 2^bits (U is the unsigned type of T).
template <typename T, typename U>
__global__ void reduceIntKernel(T *dst, ReduceSources srcs, int n,
                                int64_t count, int op) {
  GRID_STRIDE(i, count) {
    T acc = static_cast<const T *>(srcs.p[0])[i];
    for (int p = 1; p < n; ++p) {
      T v = static_cast<const T *>(srcs.p[p])[i];
      switch (static_cast<ReduceOp>(op)) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: // rejected by launchReduce
        acc = static_cast<T>(static_cast<U>(acc) + static_cast<U>(v));
        break;
      case ReduceOp::Max:
        acc = v > acc ? v : acc;
        break;
      case ReduceOp::Min:
        acc = v < acc ? v : acc;
        break;
      }
    }
    dst[i] = acc;
  }
}
} // namespace

void mlir::tp::runtime::gpu::detail::launchBinary(BinaryOp op, DType dtype,
                                                  const void *a, const void *b,
                                                  void *out, int64_t n,
                                                  const BroadcastIndex *index,
                                                  cudaStream_t stream) {
  if (n == 0)
    return;
  withStorageType(dtype, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *x = static_cast<const T *>(a), *y = static_cast<const T *>(b);
    T *z = static_cast<T *>(out);
    switch (op) {
    case BinaryOp::Add:
      binaryLaunch<BinaryOp::Add>(x, y, z, n, index, stream);
      break;
    case BinaryOp::Sub:
      binaryLaunch<BinaryOp::Sub>(x, y, z, n, index, stream);
      break;
    case BinaryOp::Mul:
      binaryLaunch<BinaryOp::Mul>(x, y, z, n, index, stream);
      break;
    case BinaryOp::Div:
      binaryLaunch<BinaryOp::Div>(x, y, z, n, index, stream);
      break;
    }
  });
  checkLaunch("binary kernel");
}

void mlir::tp::runtime::gpu::detail::launchUnary(UnaryOp op, DType dtype,
                                                 const void *x, void *out,
                                                 int64_t n, float param,
                                                 cudaStream_t stream) {
  if (n == 0)
    return;
  withStorageType(dtype, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    unaryLaunch(op, static_cast<const T *>(x), static_cast<T *>(out), n, param,
                stream);
  });
  checkLaunch("unary kernel");
}

void mlir::tp::runtime::gpu::detail::launchBiasAdd(float *out,
                                                   const float *bias,
                                                   int64_t rows, int64_t cols,
                                                   cudaStream_t stream) {
  if (rows * cols == 0)
    return;
  biasAddKernel<<<gridFor(rows * cols), kThreads, 0, stream>>>(out, bias, rows,
                                                               cols);
  checkLaunch("bias kernel");
}

void mlir::tp::runtime::gpu::detail::launchBroadcastRows(void *out,
                                                         const void *row,
                                                         int64_t rows,
                                                         int64_t cols,
                                                         cudaStream_t stream) {
  if (rows * cols == 0)
    return;
  broadcastRowsKernel<<<gridFor(rows * cols), kThreads, 0, stream>>>(
      static_cast<unsigned short *>(out),
      static_cast<const unsigned short *>(row), rows, cols);
  checkLaunch("broadcast rows kernel");
}

void mlir::tp::runtime::gpu::detail::launchConvert(const void *src, DType from,
                                                   void *dst, DType to,
                                                   int64_t n,
                                                   cudaStream_t stream) {
  if (n == 0)
    return;
  withStorageType(from, [&](auto *fromTag) {
    using S = std::remove_pointer_t<decltype(fromTag)>;
    withStorageType(to, [&](auto *toTag) {
      using D = std::remove_pointer_t<decltype(toTag)>;
      convertKernel<<<gridFor(n), kThreads, 0, stream>>>(
          static_cast<const S *>(src), static_cast<D *>(dst), n);
    });
  });
  checkLaunch("convert kernel");
}

void mlir::tp::runtime::gpu::detail::launchSoftmax(const float *x, float *out,
                                                   int64_t outer,
                                                   int64_t extent,
                                                   int64_t inner,
                                                   cudaStream_t stream) {
  int64_t rows = outer * inner;
  if (rows == 0 || extent == 0)
    return;
  constexpr int warpsPerBlock = kThreads / 32;
  int64_t blocks = (rows + warpsPerBlock - 1) / warpsPerBlock;
  softmaxKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      x, out, outer, extent, inner);
  checkLaunch("softmax kernel");
}

void mlir::tp::runtime::gpu::detail::launchLayerNorm(
    const float *x, const float *weight, const float *bias, float *out,
    int64_t rows, int64_t d, float eps, cudaStream_t stream) {
  if (rows == 0 || d == 0)
    return;
  layerNormKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
      x, weight, bias, out, d, eps);
  checkLaunch("layer_norm kernel");
}

void mlir::tp::runtime::gpu::detail::launchRmsNorm(const float *x,
                                                   const float *weight,
                                                   float *out, int64_t rows,
                                                   int64_t d, float eps,
                                                   cudaStream_t stream) {
  if (rows == 0 || d == 0)
    return;
  rmsNormKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
      x, weight, out, d, eps);
  checkLaunch("rms_norm kernel");
}

void mlir::tp::runtime::gpu::detail::launchEmbedding(
    const void *ids, DType idType, const float *weight, float *out, int64_t n,
    int64_t rows, int64_t d, int64_t offset, bool mask,
    unsigned long long *firstBad, cudaStream_t stream) {
  if (n == 0)
    return;
  int64_t total = n * (d > 0 ? d : 1);
  auto launch = [&](auto *typed) {
    embeddingKernel<<<gridFor(total), kThreads, 0, stream>>>(
        typed, weight, out, n, rows, d, offset, mask, firstBad);
  };
  switch (idType) {
  case DType::I64:
    launch(static_cast<const int64_t *>(ids));
    break;
  case DType::I32:
    launch(static_cast<const int32_t *>(ids));
    break;
  default: // F32 (DeviceKernels.cpp checked the dtype)
    launch(static_cast<const float *>(ids));
    break;
  }
  checkLaunch("embedding kernel");
}

cudaError_t
mlir::tp::runtime::gpu::detail::launchReduce(void *dst, const void *const *srcs,
                                             int n, size_t count, DType dtype,
                                             ReduceOp op, cudaStream_t stream) {
  if (count == 0)
    return cudaSuccess;
  if (n < 1 || n > kMaxReduceSources)
    return cudaErrorInvalidValue;
  ReduceSources s = {};
  for (int p = 0; p < n; ++p)
    s.p[p] = srcs[p];
  int64_t c = static_cast<int64_t>(count);
  int o = static_cast<int>(op);
  switch (dtype) {
  case DType::F32:
    reduceKernel<<<gridFor(c), kThreads, 0, stream>>>(static_cast<float *>(dst),
                                                      s, n, c, o);
    break;
  case DType::BF16:
    reduceKernel<<<gridFor(c), kThreads, 0, stream>>>(
        static_cast<__nv_bfloat16 *>(dst), s, n, c, o);
    break;
  case DType::F16:
    reduceKernel<<<gridFor(c), kThreads, 0, stream>>>(
        static_cast<__half *>(dst), s, n, c, o);
    break;
  case DType::I64:
    if (op == ReduceOp::Avg)
      return cudaErrorInvalidValue;
    reduceIntKernel<int64_t, uint64_t><<<gridFor(c), kThreads, 0, stream>>>(
        static_cast<int64_t *>(dst), s, n, c, o);
    break;
  case DType::I32:
    if (op == ReduceOp::Avg)
      return cudaErrorInvalidValue;
    reduceIntKernel<int32_t, uint32_t><<<gridFor(c), kThreads, 0, stream>>>(
        static_cast<int32_t *>(dst), s, n, c, o);
    break;
  case DType::Bool:
    return cudaErrorInvalidValue; // masks are gathered, never reduced
  }
  return cudaGetLastError();
}
