//===- CUDA.h - Device tensors and CUDA kernels -----------------*- C++ -*-===//
//
// The GPU side of the runtime (library TPRuntimeCUDA, built when CMake finds
// CUDA and NCCL; TP_HAVE_CUDA is then defined to 1): an owning device
// tensor of any runtime dtype, float dtype conversion, cuBLAS GEMMs and own
// CUDA kernels with the semantics of the CPU kernels in Kernels.h, and the
// device memory flavour of the threads backend (several rank threads sharing
// one GPU).
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_CUDA_H
#define TP_RUNTIME_CUDA_H

#include "tp/Runtime/Tensor.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {

/// Whether a CUDA device can be used. If not, \p why (when given) receives
/// the reason, e.g. "no CUDA device: CUDA driver version is insufficient for
/// CUDA runtime version" on a machine without a GPU driver.
bool cudaAvailable(std::string *why = nullptr);

/// A failed CUDA, cuBLAS or NCCL call outside a collective; the message names
/// the call and the library's error string.
class CudaError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace gpu {

/// The stream every function below uses unless told otherwise: the calling
/// host thread's own default stream, so that rank threads sharing a GPU run
/// concurrently without any setup.
inline cudaStream_t defaultStream() { return cudaStreamPerThread; }

/// An owning, contiguous, row-major buffer of f32, bf16, f16, i64 or i32
/// elements (token ids upload and download as I64) in the memory of the
/// device that was current when it was allocated, with a
/// shape. Move-only.
///
/// Like Tensor, a rank-0 tensor holds one element and the default tensor has
/// shape {0} and dtype F32; data() is for F32 tensors only, raw() for any.
/// Allocation uses cudaMalloc and release cudaFree.
class DeviceTensor {
public:
  /// An empty tensor of shape {0} (no allocation).
  DeviceTensor();
  /// A zero-filled f32 tensor of \p shape.
  explicit DeviceTensor(std::vector<int64_t> shape,
                        cudaStream_t stream = defaultStream());
  /// A zero-filled tensor of \p shape and \p dtype.
  DeviceTensor(std::vector<int64_t> shape, DType dtype,
               cudaStream_t stream = defaultStream());
  /// A tensor of \p shape and \p dtype whose contents are undefined.
  static DeviceTensor empty(std::vector<int64_t> shape,
                            DType dtype = DType::F32);
  /// A device copy of \p host with its dtype; returns once the copy is done.
  static DeviceTensor upload(const Tensor &host,
                             cudaStream_t stream = defaultStream());

  ~DeviceTensor();
  DeviceTensor(DeviceTensor &&other) noexcept;
  DeviceTensor &operator=(DeviceTensor &&other) noexcept;
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;

  /// A host copy of the same dtype; waits for \p stream (the work that wrote
  /// this tensor).
  Tensor download(cudaStream_t stream = defaultStream()) const;
  /// Overwrites the contents with \p host, whose shape and dtype must be
  /// equal.
  void copyFrom(const Tensor &host, cudaStream_t stream = defaultStream());
  /// A device copy, ordered on \p stream.
  DeviceTensor clone(cudaStream_t stream = defaultStream()) const;

  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  /// Extent of dimension \p i; a negative \p i counts from the end.
  int64_t dim(int64_t i) const;
  int64_t numel() const { return numel_; }
  /// Element type.
  DType dtype() const { return dtype_; }
  /// Size of the element buffer in bytes (numel * dtypeSize).
  size_t bytes() const {
    return static_cast<size_t>(numel_) * dtypeSize(dtype_);
  }
  /// Device pointer to the first element of an F32 tensor (null when empty);
  /// throws std::invalid_argument for other dtypes, like Tensor::data().
  float *data() {
    requireF32();
    return static_cast<float *>(data_);
  }
  const float *data() const {
    requireF32();
    return static_cast<const float *>(data_);
  }
  /// Device pointer to the element buffer of any dtype (null when empty).
  void *raw() { return data_; }
  const void *raw() const { return data_; }
  /// Changes the shape in place (same number of elements).
  void reshape(std::vector<int64_t> shape);
  /// The shape as "4x16".
  std::string shapeString() const { return shapeToString(shape_); }

private:
  void requireF32() const;

  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  DType dtype_ = DType::F32;
  void *data_ = nullptr;
};

/// A copy of \p x converted to \p dtype, computed on \p stream: widening is
/// exact, narrowing rounds to nearest even, with results bitwise identical to
/// the host conversions of Tensor.h (floatToBF16, floatToF16, ...): values
/// beyond the range become infinities, NaN stays NaN with the host's payload.
/// Between bf16 and f16 the value goes through f32, as on the host. A plain
/// copy when \p x already has \p dtype. Conversions to or from an integer
/// dtype throw std::invalid_argument (Tensor::to does them, with its checks,
/// on the host).
DeviceTensor convert(const DeviceTensor &x, DType dtype,
                     cudaStream_t stream = defaultStream());

// The kernels below mirror the CPU kernels of Kernels.h one to one (same
// shapes, same checks and error messages, same semantics; results agree up
// to floating-point rounding). Each returns a new tensor computed
// asynchronously on \p stream, and throws std::invalid_argument for operands
// that do not fit. Token ids are I64 or I32 (or F32 holding integers), as on
// the CPU; the embedding kernels validate them on the device and wait for
// \p stream to report a bad id with the CPU kernel's message.
//
// Dtypes: linear, matmul and the element-wise ops (add ... scale) take f32,
// bf16 or f16 operands, all of one dtype (mixed dtypes throw
// std::invalid_argument naming both), and return that dtype; they compute in
// f32 and round each result once; integer operands throw. The other kernels
// take f32 only (besides the ids of the embeddings) and throw
// std::invalid_argument for 16-bit operands (convert() them first).

/// x[..., in] @ w[out, in]^T + bias[out] -> [..., out] (cuBLAS, f32 math; for
/// bf16/f16 operands cublasGemmEx with f32 accumulation, the bias added
/// before the one rounding of each result); \p bias may be null.
DeviceTensor linear(const DeviceTensor &x, const DeviceTensor &w,
                    const DeviceTensor *bias,
                    cudaStream_t stream = defaultStream());
/// Batched a[..., m, k] @ b[..., k, n] with broadcast batch dimensions
/// (cuBLAS, f32 math; f32 accumulation for bf16/f16 operands).
DeviceTensor matmul(const DeviceTensor &a, const DeviceTensor &b,
                    cudaStream_t stream = defaultStream());

/// Element-wise binary ops with numpy broadcasting (up to 8 dimensions); on
/// 16-bit operands each result is the f32 operation on the widened operands,
/// rounded once, so equal to the host kernel on Tensor::to(DType::F32)
/// followed by to(dtype).
DeviceTensor add(const DeviceTensor &a, const DeviceTensor &b,
                 cudaStream_t stream = defaultStream());
DeviceTensor sub(const DeviceTensor &a, const DeviceTensor &b,
                 cudaStream_t stream = defaultStream());
DeviceTensor mul(const DeviceTensor &a, const DeviceTensor &b,
                 cudaStream_t stream = defaultStream());
DeviceTensor div(const DeviceTensor &a, const DeviceTensor &b,
                 cudaStream_t stream = defaultStream());

/// max(x, 0).
DeviceTensor relu(const DeviceTensor &x, cudaStream_t stream = defaultStream());
/// The exact (erf) GELU.
DeviceTensor gelu(const DeviceTensor &x, cudaStream_t stream = defaultStream());
/// The tanh approximation of GELU.
DeviceTensor geluTanh(const DeviceTensor &x,
                      cudaStream_t stream = defaultStream());
/// x * sigmoid(x).
DeviceTensor silu(const DeviceTensor &x, cudaStream_t stream = defaultStream());
/// -x.
DeviceTensor neg(const DeviceTensor &x, cudaStream_t stream = defaultStream());
/// e^x.
DeviceTensor exp(const DeviceTensor &x, cudaStream_t stream = defaultStream());
/// x * factor.
DeviceTensor scale(const DeviceTensor &x, float factor,
                   cudaStream_t stream = defaultStream());

/// Numerically stable softmax along \p dim.
DeviceTensor softmax(const DeviceTensor &x, int64_t dim,
                     cudaStream_t stream = defaultStream());
/// Layer norm over the last dimension (biased variance); \p weight and
/// \p bias are [D] or null.
DeviceTensor layerNorm(const DeviceTensor &x, const DeviceTensor *weight,
                       const DeviceTensor *bias, float eps,
                       cudaStream_t stream = defaultStream());
/// RMS norm over the last dimension; \p weight is [D] or null.
DeviceTensor rmsNorm(const DeviceTensor &x, const DeviceTensor *weight,
                     float eps, cudaStream_t stream = defaultStream());

/// weight[ids]: ids[...], weight[V, D] -> [..., D]; a bad id throws.
DeviceTensor embedding(const DeviceTensor &ids, const DeviceTensor &weight,
                       cudaStream_t stream = defaultStream());
/// Row-sharded embedding: rows [vocabOffset, vocabOffset + R) of the table;
/// other non-negative ids give zero rows.
DeviceTensor embeddingMasked(const DeviceTensor &ids,
                             const DeviceTensor &weightShard,
                             int64_t vocabOffset,
                             cudaStream_t stream = defaultStream());

/// Rotary embedding on x[b, s, h, d] with interleaved pairs (Meta Llama).
DeviceTensor rotary(const DeviceTensor &x, int64_t positionOffset, float theta,
                    cudaStream_t stream = defaultStream());
/// Grouped-query scaled dot-product attention, optionally causal:
/// q[b, s, hq, d], k[b, t, hkv, d], v[b, t, hkv, dv] -> [b, s, hq, dv]. A
/// simple kernel (one warp per query row, two passes over the keys), not a
/// flash-attention kernel.
DeviceTensor attention(const DeviceTensor &q, const DeviceTensor &k,
                       const DeviceTensor &v, bool causal,
                       cudaStream_t stream = defaultStream());

//===----------------------------------------------------------------------===//
// Layout and tensor collectives on device tensors
//===----------------------------------------------------------------------===//

// The device forms of the layout helpers of Tensor.h and the tensor
// collectives of Communicator.h, for tensors of any dtype: same arguments,
// checks and results. Copies are cudaMemcpy2DAsync on \p stream. The
// collectives take a communicator whose buffers are device memory (the nccl
// backend or runDeviceRanks), which orders itself after the work already
// queued on defaultStream().

/// A copy of \p x with \p shape (same number of elements).
DeviceTensor reshape(const DeviceTensor &x, std::vector<int64_t> shape,
                     cudaStream_t stream = defaultStream());
/// `x[..., start:start+size, ...]` along \p dim.
DeviceTensor sliceDim(const DeviceTensor &x, int64_t dim, int64_t start,
                      int64_t size, cudaStream_t stream = defaultStream());
/// torch.chunk piece \p i of \p k along \p dim.
DeviceTensor chunkDim(const DeviceTensor &x, int64_t dim, int64_t k, int64_t i,
                      cudaStream_t stream = defaultStream());
/// \p parts (one dtype, equal extents off \p dim) concatenated along \p dim.
DeviceTensor concatDim(const std::vector<DeviceTensor> &parts, int64_t dim,
                       cudaStream_t stream = defaultStream());
/// Every rank's \p local concatenated along \p dim in rank order.
DeviceTensor allGatherDim(Communicator &comm, const DeviceTensor &local,
                          int64_t dim);
/// This rank's piece of the reduction of \p x over ranks, split along \p dim.
DeviceTensor reduceScatterDim(Communicator &comm, const DeviceTensor &x,
                              int64_t dim, ReduceOp op);
/// \p x split along \p splitDim, exchanged, concatenated along \p concatDim.
DeviceTensor allToAllDims(Communicator &comm, const DeviceTensor &x,
                          int64_t splitDim, int64_t concatDim);
/// All-reduces \p x in place.
void allReduceInPlace(Communicator &comm, DeviceTensor &x, ReduceOp op);
/// Rank \p root's \p x on every rank.
DeviceTensor broadcastTensor(Communicator &comm, const DeviceTensor &x,
                             int root);
/// The uneven (torch.chunk) collectives of tp/Runtime/UnevenCollectives.h
/// on device tensors: same arguments, checks and results.
DeviceTensor padDim(const DeviceTensor &x, int64_t dim, int64_t size);
DeviceTensor allGatherUneven(Communicator &comm, const DeviceTensor &x,
                             int64_t dim, int64_t total);
DeviceTensor reduceScatterUneven(Communicator &comm, const DeviceTensor &x,
                                 int64_t dim, ReduceOp op);

//===----------------------------------------------------------------------===//
// Several ranks on one GPU: the threads backend over device memory
//===----------------------------------------------------------------------===//

/// Buffer operations for ThreadGroup/runRanks on device memory: the ranks are
/// threads of one process whose collective buffers are device pointers (on
/// one GPU, or on GPUs with peer access to each other); data moves with
/// cudaMemcpyAsync (peer copies) and a reduction kernel (f32 accumulation
/// for floats, exact for integers, as on the host) on the calling thread's
/// default stream, which the collective synchronizes before it
/// returns. On entry each collective synchronizes the calling thread's
/// default stream, so inputs written by kernels on defaultStream() are
/// complete. At most 64 ranks per group. Everything else (mismatch
/// detection, timeouts, failure propagation, split) is the threads backend's.
std::shared_ptr<ThreadBufferOps> deviceBufferOps();

/// runRanks with deviceBufferOps(): rank r's thread first makes \p device
/// current (cudaSetDevice), then calls \p fn with its communicator, whose
/// buffers are device pointers. Throws std::invalid_argument for more than
/// 64 ranks.
void runDeviceRanks(
    int n, const std::function<void(Communicator &)> &fn, int device = 0,
    std::chrono::milliseconds timeout = std::chrono::seconds(60));

} // namespace gpu
} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_CUDA_H
