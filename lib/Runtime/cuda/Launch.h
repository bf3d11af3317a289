//===- Launch.h - Kernel launchers of TPRuntimeCUDA -------------*- C++ -*-===//
//
// Private to lib/Runtime/cuda: the raw-pointer entry points of the kernels in
// the .cu files (which nvcc compiles) for the shape-checking wrappers in the
// .cpp files (which the host compiler compiles), and the error helpers.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_LAUNCH_H
#define TP_LIB_RUNTIME_CUDA_LAUNCH_H

#include "tp/Runtime/Communicator.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mlir::tp {
namespace runtime {
namespace gpu {
namespace detail {

/// Throws CudaError("CUDA error in <what>: <message>") unless \p err is
/// cudaSuccess.
void check(cudaError_t err, const char *what);
/// check(cudaGetLastError(), what) after a kernel launch.
void checkLaunch(const char *what);

/// The most dimensions a broadcasting kernel handles.
constexpr int kMaxDims = 8;

/// Output shape and per-operand strides (0 on broadcast dimensions).
struct BroadcastIndex {
  int rank = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strideA[kMaxDims] = {};
  int64_t strideB[kMaxDims] = {};
};

enum class BinaryOp { Add, Sub, Mul, Div };
enum class UnaryOp { Relu, Gelu, GeluTanh, Silu, Neg, Exp, Scale };

/// out[i] = a[i] op b[i] over \p n elements of \p dtype (computed in f32 on
/// the widened operands, rounded once); with \p index, a and b are read
/// through its broadcast strides.
void launchBinary(BinaryOp op, DType dtype, const void *a, const void *b,
                  void *out, int64_t n, const BroadcastIndex *index,
                  cudaStream_t stream);
/// out[i] = f(x[i]) over \p n elements of \p dtype (computed in f32, rounded
/// once); \p param is the factor of Scale.
void launchUnary(UnaryOp op, DType dtype, const void *x, void *out, int64_t n,
                 float param, cudaStream_t stream);
/// out[r, c] += bias[c] for a [rows, cols] f32 matrix.
void launchBiasAdd(float *out, const float *bias, int64_t rows, int64_t cols,
                   cudaStream_t stream);
/// out[r, c] = row[c] for a [rows, cols] matrix of 16-bit elements (the
/// bias that a 16-bit GEMM then accumulates onto).
void launchBroadcastRows(void *out, const void *row, int64_t rows, int64_t cols,
                         cudaStream_t stream);
/// dst[i] = src[i] converted from \p from to \p to (which differ, both float
/// dtypes) for \p n elements, with the rounding and NaN bits of the host
/// conversions.
void launchConvert(const void *src, DType from, void *dst, DType to, int64_t n,
                   cudaStream_t stream);

/// Softmax of x viewed as [outer, extent, inner] along the middle dimension.
void launchSoftmax(const float *x, float *out, int64_t outer, int64_t extent,
                   int64_t inner, cudaStream_t stream);
/// Layer norm of \p rows rows of \p d floats; weight/bias may be null.
void launchLayerNorm(const float *x, const float *weight, const float *bias,
                     float *out, int64_t rows, int64_t d, float eps,
                     cudaStream_t stream);
/// RMS norm of \p rows rows of \p d floats; weight may be null.
void launchRmsNorm(const float *x, const float *weight, float *out,
                   int64_t rows, int64_t d, float eps, cudaStream_t stream);

/// Gathers rows of weight[rows, d] for the \p n ids of \p idType (I64, I32,
/// or F32 holding integers) at (id - offset); with \p mask, non-negative ids
/// outside the rows give zeros. *\p firstBad (a device uint64 initialised to
/// all ones by the caller) receives the smallest index of an id that is not
/// integral or not allowed.
void launchEmbedding(const void *ids, DType idType, const float *weight,
                     float *out, int64_t n, int64_t rows, int64_t d,
                     int64_t offset, bool mask, unsigned long long *firstBad,
                     cudaStream_t stream);

/// The most rotary frequencies passed by value (head dims up to 512).
constexpr int kMaxRotaryFreqs = 256;
/// Rotary embedding of x[b, s, h, d]. \p freqs (host memory, d/2 values, or
/// null to compute them on the device) are the per-pair frequencies.
void launchRotary(const float *x, float *out, int64_t b, int64_t s, int64_t h,
                  int64_t d, int64_t positionOffset, float theta,
                  const float *freqs, cudaStream_t stream);
/// out[b, s, hq, dv] = softmax(q k^T * scale [causal]) v per (batch, head).
void launchAttention(const float *q, const float *k, const float *v, float *out,
                     int64_t b, int64_t s, int64_t t, int64_t hq, int64_t hkv,
                     int64_t d, int64_t dv, bool causal, float scale,
                     cudaStream_t stream);

/// The most sources launchReduce takes.
constexpr int kMaxReduceSources = 64;
/// dst[i] = srcs[0][i] op ... op srcs[n-1][i] in order for \p count
/// elements of \p dtype, accumulating in f32 (Avg: sum / n); integers reduce
/// exactly in their type (sums wrap; Avg is cudaErrorInvalidValue, the
/// collectives reject it first); dst may alias a source. Returns the launch
/// error instead of throwing.
cudaError_t launchReduce(void *dst, const void *const *srcs, int n,
                         size_t count, DType dtype, ReduceOp op,
                         cudaStream_t stream);

} // namespace detail
} // namespace gpu
} // namespace runtime
} // namespace mlir::tp

#endif // TP_LIB_RUNTIME_CUDA_LAUNCH_H
