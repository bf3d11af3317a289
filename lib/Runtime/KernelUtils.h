//===- KernelUtils.h - Helpers shared by the CPU and GPU kernels -*- C++
//-*-===//
//
// Private to lib/Runtime (lib/Runtime/cuda includes it too): the checked
// GEMM entry point and id validation of the CPU kernels, and the operand
// shape checks of every kernel that has a CPU and a GPU version. The checks
// take shapes, so that a Tensor and a DeviceTensor get the same check and
// the same message from one place.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_KERNELUTILS_H
#define TP_LIB_RUNTIME_KERNELUTILS_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {
namespace detail {

using Shape = std::vector<int64_t>;

/// Row-major C[m, n] = alpha * op(A) @ op(B) + beta * C with leading
/// dimensions lda, ldb, ldc; op(A) is A[m, k], or A[k, m] transposed when
/// \p transA (the weight gradients), op(B) B[k, n], or B[n, k] transposed
/// when \p transB. Handles empty extents (which BLAS rejects) and checks
/// that every extent fits BLAS's int.
void gemmT(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc);

/// gemmT with A not transposed.
inline void gemm(bool transB, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *a, int64_t lda, const float *b, int64_t ldb,
                 float beta, float *c, int64_t ldc) {
  gemmT(false, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/// The rotary rotation of \p x [b, s, h, d] (checked by the caller), or its
/// inverse (the transpose: the angles negated), with Meta's f32 angles.
Tensor rotate(const Tensor &x, int64_t positionOffset, float theta,
              bool inverse);

/// Calls fn(offsetA, offsetB, index) for every element of \p shape in
/// row-major order, the offsets advancing by the strides \p sa and \p sb
/// (a broadcast operand has stride 0 on its broadcast dims:
/// broadcastStrides).
template <typename Fn>
void forEachStrided(const Shape &shape, const Shape &sa, const Shape &sb,
                    Fn fn) {
  int64_t total = shapeNumel(shape);
  size_t rank = shape.size();
  Shape idx(rank, 0);
  int64_t offA = 0, offB = 0;
  for (int64_t n = 0; n < total; ++n) {
    fn(offA, offB, n);
    for (size_t d = rank; d-- > 0;) {
      offA += sa[d];
      offB += sb[d];
      if (++idx[d] < shape[d])
        break;
      offA -= sa[d] * shape[d];
      offB -= sb[d] * shape[d];
      idx[d] = 0;
    }
  }
}

/// The largest element of a row of \p n logits (NaN if any is) and the sum
/// of exp(x - max) over it in f64: the log-sum-exp of cross entropy, forward
/// and backward.
struct RowLogSumExp {
  float max;
  double sumExp;
};
RowLogSumExp rowLogSumExp(const float *row, int64_t n);

/// The mean and the biased variance of a row of \p d values, in f64: the
/// statistics of layerNorm, forward and backward.
struct RowMoments {
  double mean, var;
};
RowMoments rowMoments(const float *row, int64_t d);

/// Turns \p s rows of \p t attention scores into probabilities in place:
/// a stable softmax over the keys each query sees (all, or j <= i when
/// \p causal) and zeros after them. The forward attention and its backward
/// (which recomputes the probabilities) share it.
void attentionSoftmax(float *scores, int64_t s, int64_t t, bool causal);

/// Converts the f32-encoded integer \p value to an int64; throws
/// std::invalid_argument mentioning \p what if it is not integral.
int64_t integralId(float value, const char *what);

/// Throws std::invalid_argument ("op: ids are a BF16 tensor, ...") unless
/// \p dtype can hold the ids or targets (\p what) of \p op: I64, I32, or F32
/// holding integers (kept for callers from before the integer dtypes).
void checkIdDType(const char *op, const char *what, DType dtype);

/// The ids of \p ids as int64, exactly: I64 and I32 as they are, F32 through
/// integralId (which rejects non-integers); other dtypes throw as in
/// checkIdDType. The CPU id kernels read their ids through this.
std::vector<int64_t> readIds(const Tensor &ids, const char *op,
                             const char *what);

//===----------------------------------------------------------------------===//
// Operand checks
//===----------------------------------------------------------------------===//

/// "op: message", the form of every kernel's operand error.
std::invalid_argument shapeError(const std::string &op,
                                 const std::string &message);

/// The broadcast of \p a and \p b (NumPy rules); throws naming \p op.
Shape broadcastOrThrow(const char *op, const Shape &a, const Shape &b);

/// Row-major strides (in elements) of \p shape right-aligned to \p out, 0
/// on the dimensions where it broadcasts.
Shape broadcastStrides(const Shape &shape, const Shape &out);

/// linear(x [..., in], w [out, in], bias [out]).
struct LinearDims {
  int64_t rows, in, out;
  Shape shape; ///< The result's: x's with the last extent `out`.
};
LinearDims checkLinear(const Shape &x, const Shape &w, const Shape *bias);

/// matmul(a [..., m, k], b [..., k, n]) with broadcast batch dimensions.
struct MatmulDims {
  int64_t m, k, n;
  Shape batchA, batchB, batch;
  Shape shape; ///< batch + [m, n].
};
MatmulDims checkMatmul(const Shape &a, const Shape &b);

/// Rows of the last dimension that a norm normalizes.
struct RowDims {
  int64_t rows, d;
};
/// layerNorm / rmsNorm: x of rank >= 1, weight and bias (each optional)
/// vectors of x's last extent.
RowDims checkNorm(const char *op, const Shape &x, const Shape *weight,
                  const Shape *bias);

/// An embedding table: [rows, dim].
RowDims checkEmbeddingWeight(const char *op, const Shape &weight);

/// The error for an id outside [offset, offset + rows).
std::invalid_argument idOutOfRange(const char *op, int64_t id, int64_t offset,
                                   int64_t rows);

/// The row of a table holding rows [offset, offset + rows) that \p id
/// reads, or -1 when \p mask and a non-negative id lies outside (a shard of
/// a vocabulary-sharded table); throws idOutOfRange otherwise. The gather
/// of the embedding and the scatter of its gradient resolve ids with it.
inline int64_t tableRow(const char *op, int64_t id, int64_t offset,
                        int64_t rows, bool mask) {
  // id >= offset first, so that id - offset cannot overflow.
  int64_t row = id >= offset ? id - offset : -1;
  if (row >= 0 && row < rows)
    return row;
  if (mask && id >= 0)
    return -1;
  throw idOutOfRange(op, id, offset, rows);
}

/// rotary(x [batch, seq, heads, dim]) with an even dim.
void checkRotary(const Shape &x);

/// attention(q [b, s, hq, d], k [b, t, hkv, d], v [b, t, hkv, dv]).
struct AttentionDims {
  int64_t b, s, t, hq, hkv, d, dv;
};
AttentionDims checkAttention(const Shape &q, const Shape &k, const Shape &v,
                             bool causal);

} // namespace detail
} // namespace runtime
} // namespace mlir::tp

#endif // TP_LIB_RUNTIME_KERNELUTILS_H
