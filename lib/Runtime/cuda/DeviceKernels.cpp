//===- DeviceKernels.cpp - Shape checks, cuBLAS GEMMs, launches -*- C++ -*-===//
//
// The host side of the device kernels: the CPU kernels' operand checks
// (KernelUtils.h, shared with them), the dtype checks, output allocation,
// cuBLAS for the GEMMs (row-major operands handled by computing C^T = op(B)^T
// A^T in cuBLAS's column-major convention; cublasGemmEx with f32 accumulation
// for bf16/f16), and the launches of the kernels in the .cu files.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CUDA.h"

#include "../KernelUtils.h"
#include "Launch.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <map>
#include <stdexcept>

using namespace mlir::tp::runtime;
using namespace mlir::tp::runtime::gpu;
using namespace mlir::tp::runtime::gpu::detail;

using mlir::tp::runtime::detail::broadcastOrThrow;
using mlir::tp::runtime::detail::broadcastStrides;
using mlir::tp::runtime::detail::shapeError;
namespace checks = mlir::tp::runtime::detail;

namespace {

/// Operands of one kernel must share a dtype: nothing converts implicitly.
void requireSameDType(const char *op, const char *nameA, const DeviceTensor &a,
                      const char *nameB, const DeviceTensor &b) {
  if (a.dtype() != b.dtype())
    throw shapeError(op, std::string("operands of different dtypes: ") + nameA +
                             " is " + dtypeName(a.dtype()) + ", " + nameB +
                             " is " + dtypeName(b.dtype()));
}

/// For the kernels that only exist in f32 on the GPU.
void requireF32(const char *op, const char *name, const DeviceTensor *t) {
  if (t && t->dtype() != DType::F32)
    throw shapeError(op, std::string(name) + " is a " + dtypeName(t->dtype()) +
                             " tensor, but this GPU kernel takes F32 only "
                             "(gpu::convert it first)");
}

/// For the kernels that compute on floats of any width (GEMMs, element-wise):
/// integer tensors hold ids, which no arithmetic kernel takes.
void requireFloat(const char *op, const char *name, const DeviceTensor &t) {
  if (isIntegerDType(t.dtype()))
    throw shapeError(op, std::string(name) + " is a " + dtypeName(t.dtype()) +
                             " tensor, but this GPU kernel takes F32, BF16 "
                             "or F16");
}

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

const char *cublasStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  default:
    return "unknown cuBLAS status";
  }
}

void checkBlas(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string("cuBLAS error in ") + what + ": " +
                    cublasStatusName(status));
}

/// One cuBLAS handle per (host thread, device), destroyed at thread exit.
class BlasHandles {
public:
  ~BlasHandles() {
    for (auto &entry : handles)
      (void)cublasDestroy(entry.second);
  }
  cublasHandle_t get() {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    auto it = handles.find(device);
    if (it != handles.end())
      return it->second;
    cublasHandle_t handle = nullptr;
    checkBlas(cublasCreate(&handle), "cublasCreate");
    // Full f32 math (no TF32), to match the CPU kernels; with 16-bit
    // outputs, split-K partial sums stay in f32 too (cuBLAS may otherwise
    // reduce them in the output type).
    checkBlas(
        cublasSetMathMode(
            handle, static_cast<cublasMath_t>(
                        CUBLAS_DEFAULT_MATH |
                        CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
        "cublasSetMathMode");
    handles[device] = handle;
    return handle;
  }

private:
  std::map<int, cublasHandle_t> handles;
};

cublasHandle_t blasHandle(cudaStream_t stream) {
  thread_local BlasHandles handles;
  cublasHandle_t handle = handles.get();
  checkBlas(cublasSetStream(handle, stream), "cublasSetStream");
  return handle;
}

int blasInt(int64_t v) {
  if (v > INT_MAX)
    throw std::invalid_argument("gemm extent " + std::to_string(v) +
                                " exceeds the cuBLAS integer range");
  return static_cast<int>(v);
}

cudaDataType blasType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return CUDA_R_32F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::F16:
    return CUDA_R_16F;
  case DType::I64:
  case DType::I32:
  case DType::Bool:
    break; // rejected by requireFloat
  }
  return CUDA_R_32F;
}

/// Row-major C[m, n] = A[m, k] @ op(B) (+ C when \p accumulate) for \p batch
/// GEMMs on elements of \p dtype whose operands are \p strideA, \p strideB,
/// \p strideC elements apart (a stride of 0 reuses the operand); op(B) is
/// B[k, n], or B[n, k] transposed when \p transB. Leading dimensions are the
/// row lengths (k, n or k, n). f32 uses cublasSgemm; bf16 and f16 use
/// cublasGemmEx with CUBLAS_COMPUTE_32F, which accumulates in f32 and rounds
/// each result (including the accumulated C) once.
void gemm(DType dtype, bool transB, int64_t m, int64_t n, int64_t k,
          const void *a, const void *b, void *c, int64_t batch, int64_t strideA,
          int64_t strideB, int64_t strideC, bool accumulate,
          cudaStream_t stream) {
  if (m == 0 || n == 0 || batch == 0)
    return;
  if (k == 0) {
    // C is contiguous here (strideC == m*n for every caller).
    if (!accumulate)
      check(cudaMemsetAsync(c, 0, dtypeSize(dtype) * m * n * batch, stream),
            "cudaMemsetAsync");
    return;
  }
  cublasHandle_t handle = blasHandle(stream);
  const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  // Row-major X[r, c] is column-major X^T, so C^T[n, m] = op(B)^T A^T: pass
  // B first (transposed again when transB) and A second, untransposed.
  cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int ldb = blasInt(transB ? k : n);
  if (dtype == DType::F32) {
    const auto *fa = static_cast<const float *>(a);
    const auto *fb = static_cast<const float *>(b);
    auto *fc = static_cast<float *>(c);
    if (batch == 1) {
      checkBlas(cublasSgemm(handle, opB, CUBLAS_OP_N, blasInt(n), blasInt(m),
                            blasInt(k), &one, fb, ldb, fa, blasInt(k), &beta,
                            fc, blasInt(n)),
                "cublasSgemm");
      return;
    }
    checkBlas(cublasSgemmStridedBatched(
                  handle, opB, CUBLAS_OP_N, blasInt(n), blasInt(m), blasInt(k),
                  &one, fb, ldb, strideB, fa, blasInt(k), strideA, &beta, fc,
                  blasInt(n), strideC, blasInt(batch)),
              "cublasSgemmStridedBatched");
    return;
  }
  cudaDataType type = blasType(dtype);
  if (batch == 1) {
    checkBlas(cublasGemmEx(handle, opB, CUBLAS_OP_N, blasInt(n), blasInt(m),
                           blasInt(k), &one, b, type, ldb, a, type, blasInt(k),
                           &beta, c, type, blasInt(n), CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
    return;
  }
  checkBlas(cublasGemmStridedBatchedEx(
                handle, opB, CUBLAS_OP_N, blasInt(n), blasInt(m), blasInt(k),
                &one, b, type, ldb, strideB, a, type, blasInt(k), strideA,
                &beta, c, type, blasInt(n), strideC, blasInt(batch),
                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
}

/// \p p advanced by \p elements elements of \p dtype.
const void *offset(const void *p, int64_t elements, DType dtype) {
  return static_cast<const char *>(p) + elements * dtypeSize(dtype);
}
void *offset(void *p, int64_t elements, DType dtype) {
  return static_cast<char *>(p) + elements * dtypeSize(dtype);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

DeviceTensor binary(const char *name, BinaryOp op, const DeviceTensor &a,
                    const DeviceTensor &b, cudaStream_t stream) {
  requireSameDType(name, "lhs", a, "rhs", b);
  requireFloat(name, "lhs", a);
  DType dtype = a.dtype();
  if (a.shape() == b.shape()) {
    DeviceTensor out = DeviceTensor::empty(a.shape(), dtype);
    launchBinary(op, dtype, a.raw(), b.raw(), out.raw(), out.numel(), nullptr,
                 stream);
    return out;
  }
  std::vector<int64_t> shape = broadcastOrThrow(name, a.shape(), b.shape());
  if (shape.size() > static_cast<size_t>(kMaxDims))
    throw shapeError(
        name, "broadcasting supports at most " + std::to_string(kMaxDims) +
                  " dimensions on the GPU, got " + shapeToString(shape));
  BroadcastIndex index;
  index.rank = static_cast<int>(shape.size());
  std::vector<int64_t> sa = broadcastStrides(a.shape(), shape);
  std::vector<int64_t> sb = broadcastStrides(b.shape(), shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    index.shape[d] = shape[d];
    index.strideA[d] = sa[d];
    index.strideB[d] = sb[d];
  }
  DeviceTensor out = DeviceTensor::empty(shape, dtype);
  launchBinary(op, dtype, a.raw(), b.raw(), out.raw(), out.numel(), &index,
               stream);
  return out;
}

DeviceTensor unary(const char *name, UnaryOp op, const DeviceTensor &x,
                   float param, cudaStream_t stream) {
  requireFloat(name, "input", x);
  DeviceTensor out = DeviceTensor::empty(x.shape(), x.dtype());
  launchUnary(op, x.dtype(), x.raw(), out.raw(), x.numel(), param, stream);
  return out;
}

/// The optional operand's shape, for the checks.
const std::vector<int64_t> *shapeOf(const DeviceTensor *t) {
  return t ? &t->shape() : nullptr;
}

/// Frees a cudaMallocAsync'ed block on scope exit.
struct AsyncBlock {
  AsyncBlock(size_t bytes, cudaStream_t stream) : stream(stream) {
    check(cudaMallocAsync(&ptr, bytes, stream), "cudaMallocAsync");
  }
  ~AsyncBlock() { (void)cudaFreeAsync(ptr, stream); }
  void *ptr = nullptr;
  cudaStream_t stream;
};

DeviceTensor gatherRows(const char *op, const DeviceTensor &ids,
                        const DeviceTensor &weight, int64_t offset, bool mask,
                        cudaStream_t stream) {
  checks::checkIdDType(op, "ids", ids.dtype());
  requireF32(op, "weight", &weight);
  auto [rows, d] = checks::checkEmbeddingWeight(op, weight.shape());
  std::vector<int64_t> shape = ids.shape();
  shape.push_back(d);
  DeviceTensor out = DeviceTensor::empty(shape);
  if (ids.numel() == 0)
    return out;
  AsyncBlock firstBad(sizeof(unsigned long long), stream);
  auto *slot = static_cast<unsigned long long *>(firstBad.ptr);
  check(cudaMemsetAsync(slot, 0xff, sizeof(unsigned long long), stream),
        "cudaMemsetAsync");
  launchEmbedding(ids.raw(), ids.dtype(), weight.data(), out.data(),
                  ids.numel(), rows, d, offset, mask, slot, stream);
  unsigned long long bad = 0;
  check(
      cudaMemcpyAsync(&bad, slot, sizeof(bad), cudaMemcpyDeviceToHost, stream),
      "cudaMemcpyAsync (device to host)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (bad == ~0ull)
    return out;
  // Rebuild the CPU kernel's message for the first bad id.
  size_t es = dtypeSize(ids.dtype());
  Tensor value({1}, ids.dtype());
  check(cudaMemcpy(value.raw(), static_cast<const char *>(ids.raw()) + bad * es,
                   es, cudaMemcpyDeviceToHost),
        "cudaMemcpy (device to host)");
  int64_t id = checks::readIds(value, op, "ids")[0];
  throw checks::idOutOfRange(op, id, offset, rows);
}
} // namespace

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

DeviceTensor mlir::tp::runtime::gpu::linear(const DeviceTensor &x,
                                            const DeviceTensor &w,
                                            const DeviceTensor *bias,
                                            cudaStream_t stream) {
  checks::LinearDims l =
      checks::checkLinear(x.shape(), w.shape(), shapeOf(bias));
  int64_t in = l.in, outF = l.out, rows = l.rows;
  requireSameDType("linear", "input", x, "weight", w);
  requireFloat("linear", "input", x);
  if (bias)
    requireSameDType("linear", "input", x, "bias", *bias);
  DType dtype = x.dtype();
  DeviceTensor out = DeviceTensor::empty(l.shape, dtype);
  if (dtype == DType::F32) {
    gemm(dtype, /*transB=*/true, rows, outF, in, x.raw(), w.raw(), out.raw(), 1,
         0, 0, 0, /*accumulate=*/false, stream);
    if (bias)
      launchBiasAdd(out.data(), bias->data(), rows, outF, stream);
    return out;
  }
  // 16 bits: the GEMM accumulates onto the bias rows in f32, so that each
  // result is rounded once.
  if (bias)
    launchBroadcastRows(out.raw(), bias->raw(), rows, outF, stream);
  gemm(dtype, /*transB=*/true, rows, outF, in, x.raw(), w.raw(), out.raw(), 1,
       0, 0, 0, /*accumulate=*/bias != nullptr, stream);
  return out;
}

DeviceTensor mlir::tp::runtime::gpu::matmul(const DeviceTensor &a,
                                            const DeviceTensor &b,
                                            cudaStream_t stream) {
  checks::MatmulDims dims = checks::checkMatmul(a.shape(), b.shape());
  requireSameDType("matmul", "lhs", a, "rhs", b);
  requireFloat("matmul", "lhs", a);
  DType dtype = a.dtype();
  int64_t m = dims.m, k = dims.k, n = dims.n;
  const std::vector<int64_t> &batchA = dims.batchA, &batchB = dims.batchB,
                             &batch = dims.batch;
  DeviceTensor out = DeviceTensor::empty(dims.shape, dtype);
  int64_t numA = shapeNumel(batchA), numB = shapeNumel(batchB);
  int64_t numOut = shapeNumel(batch);
  if (batchB.empty()) {
    // Every batch of a shares b: one GEMM over all rows.
    gemm(dtype, false, numA * m, n, k, a.raw(), b.raw(), out.raw(), 1, 0, 0, 0,
         false, stream);
    return out;
  }
  bool fullA = numA == numOut, fullB = numB == numOut;
  if ((fullA || numA == 1) && (fullB || numB == 1)) {
    // Equal batches, or one operand shared by all: one strided batched GEMM.
    gemm(dtype, false, m, n, k, a.raw(), b.raw(), out.raw(), numOut,
         fullA ? m * k : 0, fullB ? k * n : 0, m * n, false, stream);
    return out;
  }
  // General broadcast of the batch dimensions: one GEMM per output batch.
  std::vector<int64_t> sa = broadcastStrides(batchA, batch);
  std::vector<int64_t> sb = broadcastStrides(batchB, batch);
  for (int64_t o = 0; o < numOut; ++o) {
    int64_t rem = o, ia = 0, ib = 0;
    for (size_t d = batch.size(); d-- > 0;) {
      int64_t c = rem % batch[d];
      rem /= batch[d];
      ia += c * sa[d];
      ib += c * sb[d];
    }
    gemm(dtype, false, m, n, k, offset(a.raw(), ia * m * k, dtype),
         offset(b.raw(), ib * k * n, dtype),
         offset(out.raw(), o * m * n, dtype), 1, 0, 0, 0, false, stream);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

// The element-wise kernels are one launch each; the macros spell out their
// definitions, which differ only in the name and the operation.
#define TP_GPU_BINARY(NAME, OP)                                                \
  DeviceTensor mlir::tp::runtime::gpu::NAME(                                   \
      const DeviceTensor &a, const DeviceTensor &b, cudaStream_t stream) {     \
    return binary(#NAME, BinaryOp::OP, a, b, stream);                          \
  }
#define TP_GPU_UNARY(NAME, OP)                                                 \
  DeviceTensor mlir::tp::runtime::gpu::NAME(const DeviceTensor &x,             \
                                            cudaStream_t stream) {             \
    return unary(#NAME, UnaryOp::OP, x, 0.0f, stream);                         \
  }
TP_GPU_BINARY(add, Add)
TP_GPU_BINARY(sub, Sub)
TP_GPU_BINARY(mul, Mul)
TP_GPU_BINARY(div, Div)
TP_GPU_UNARY(relu, Relu)
TP_GPU_UNARY(gelu, Gelu)
TP_GPU_UNARY(geluTanh, GeluTanh)
TP_GPU_UNARY(silu, Silu)
TP_GPU_UNARY(neg, Neg)
TP_GPU_UNARY(exp, Exp)
#undef TP_GPU_BINARY
#undef TP_GPU_UNARY

DeviceTensor mlir::tp::runtime::gpu::scale(const DeviceTensor &x, float factor,
                                           cudaStream_t stream) {
  return unary("scale", UnaryOp::Scale, x, factor, stream);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

DeviceTensor mlir::tp::runtime::gpu::softmax(const DeviceTensor &x, int64_t dim,
                                             cudaStream_t stream) {
  requireF32("softmax", "input", &x);
  auto [outer, extent, inner] =
      splitAround(x.shape(), normalizeDim(dim, x.rank()));
  DeviceTensor out = DeviceTensor::empty(x.shape());
  launchSoftmax(x.data(), out.data(), outer, extent, inner, stream);
  return out;
}

DeviceTensor mlir::tp::runtime::gpu::layerNorm(const DeviceTensor &x,
                                               const DeviceTensor *weight,
                                               const DeviceTensor *bias,
                                               float eps, cudaStream_t stream) {
  requireF32("layerNorm", "input", &x);
  requireF32("layerNorm", "weight", weight);
  requireF32("layerNorm", "bias", bias);
  auto [rows, d] =
      checks::checkNorm("layerNorm", x.shape(), shapeOf(weight), shapeOf(bias));
  DeviceTensor out = DeviceTensor::empty(x.shape());
  launchLayerNorm(x.data(), weight ? weight->data() : nullptr,
                  bias ? bias->data() : nullptr, out.data(), rows, d, eps,
                  stream);
  return out;
}

DeviceTensor mlir::tp::runtime::gpu::rmsNorm(const DeviceTensor &x,
                                             const DeviceTensor *weight,
                                             float eps, cudaStream_t stream) {
  requireF32("rmsNorm", "input", &x);
  requireF32("rmsNorm", "weight", weight);
  auto [rows, d] =
      checks::checkNorm("rmsNorm", x.shape(), shapeOf(weight), nullptr);
  DeviceTensor out = DeviceTensor::empty(x.shape());
  launchRmsNorm(x.data(), weight ? weight->data() : nullptr, out.data(), rows,
                d, eps, stream);
  return out;
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

DeviceTensor mlir::tp::runtime::gpu::embedding(const DeviceTensor &ids,
                                               const DeviceTensor &weight,
                                               cudaStream_t stream) {
  return gatherRows("embedding", ids, weight, 0, /*mask=*/false, stream);
}

DeviceTensor mlir::tp::runtime::gpu::embeddingMasked(
    const DeviceTensor &ids, const DeviceTensor &weightShard,
    int64_t vocabOffset, cudaStream_t stream) {
  return gatherRows("embeddingMasked", ids, weightShard, vocabOffset,
                    /*mask=*/true, stream);
}

//===----------------------------------------------------------------------===//
// Transformer blocks
//===----------------------------------------------------------------------===//

DeviceTensor mlir::tp::runtime::gpu::rotary(const DeviceTensor &x,
                                            int64_t positionOffset, float theta,
                                            cudaStream_t stream) {
  requireF32("rotary", "input", &x);
  checks::checkRotary(x.shape());
  // The frequencies exactly as the CPU kernel computes them (f32 pow).
  int64_t d = x.dim(3);
  std::vector<float> freqs;
  if (d / 2 <= kMaxRotaryFreqs)
    for (int64_t i = 0; i < d / 2; ++i) {
      float exponent = static_cast<float>(2 * i) / static_cast<float>(d);
      freqs.push_back(1.0f / std::pow(theta, exponent));
    }
  DeviceTensor out = DeviceTensor::empty(x.shape());
  launchRotary(x.data(), out.data(), x.dim(0), x.dim(1), x.dim(2), d,
               positionOffset, theta, freqs.empty() ? nullptr : freqs.data(),
               stream);
  return out;
}

DeviceTensor mlir::tp::runtime::gpu::attention(const DeviceTensor &q,
                                               const DeviceTensor &k,
                                               const DeviceTensor &v,
                                               bool causal,
                                               cudaStream_t stream) {
  requireF32("attention", "q", &q);
  requireF32("attention", "k", &k);
  requireF32("attention", "v", &v);
  auto [b, s, t, hq, hkv, d, dv] =
      checks::checkAttention(q.shape(), k.shape(), v.shape(), causal);
  if (t == 0)
    return DeviceTensor({b, s, hq, dv}, stream);
  DeviceTensor out = DeviceTensor::empty({b, s, hq, dv});
  float scaleFactor = 1.0f / std::sqrt(static_cast<float>(d));
  launchAttention(q.data(), k.data(), v.data(), out.data(), b, s, t, hq, hkv, d,
                  dv, causal, scaleFactor, stream);
  return out;
}
