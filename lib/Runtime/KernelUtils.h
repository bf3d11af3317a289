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
#include <cstring>
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

/// Marks a CPU kernel's element loop (a function of its own) to be compiled
/// for AVX-512, AVX2 and baseline x86-64, the clone chosen when the program
/// loads (GCC's target_clones): loops over erfApprox and expApprox then
/// vectorize 4 to 8 lanes wide where the CPU has them. TPRuntime is compiled
/// with -ffp-contract=off, so every clone rounds alike.
/// Not under ThreadSanitizer or AddressSanitizer: their instrumented ifunc
/// resolvers run before the sanitizer's runtime and crash at load.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !defined(__CUDACC__) && !defined(__SANITIZE_THREAD__) &&                   \
    !defined(__SANITIZE_ADDRESS__)
#define TP_VECTOR_CLONES                                                       \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TP_VECTOR_CLONES
#endif

/// erf(x) within 1 ulp, without branches or calls so that loops over it
/// vectorize (std::erf is a scalar libm call). Beyond |x| = 4, erf rounds to
/// +-1 in f32; inside, erf(x) = x P(x^2) / Q(x^2), a rational least-squares
/// fit of relative error 2.5e-9 (degrees 6 and 5 in x^2), evaluated in double
/// so that rounding adds little to the final rounding to f32. NaN stays NaN.
inline float erfApprox(float x) {
  // Clamps |x| on its bits: a floating-point compare may trap, which keeps
  // GCC from if-converting, hence from vectorizing, the loop. The bound is 4
  // or the next float, after the last bit of x (erf is 1.0f at both): with a
  // constant bound GCC branches to the constant erf(4) instead.
  int32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int32_t mag = bits & 0x7fffffff;
  constexpr int32_t inf = 0x7f800000;
  int32_t bound = 0x40800000 | (mag & 1);
  int32_t clamped = mag < bound ? mag : bound;
  clamped = mag > inf ? mag : clamped; // NaN
  float a;
  std::memcpy(&a, &clamped, sizeof a);
  double d = a, t = d * d;
  double p = -1.3360234256361789573e-8;
  p = p * t + 4.7151093746646322833e-6;
  p = p * t + 3.8085896068817488044e-4;
  p = p * t + 3.8564779868001016555e-3;
  p = p * t + 5.4354003394172032391e-2;
  p = p * t + 1.8527999832460509595e-1;
  p = p * t + 1.1283791680791610436;
  double q = 6.3403482583690634411e-5;
  q = q * t + 1.3106910328017061678e-3;
  q = q * t + 1.5479842987910296027e-2;
  q = q * t + 1.1401401340851907469e-1;
  q = q * t + 4.9753352091836058721e-1;
  q = q * t + 1.0;
  float r = static_cast<float>(d * p / q);
  int32_t rbits;
  std::memcpy(&rbits, &r, sizeof rbits);
  rbits |= bits & static_cast<int32_t>(0x80000000u); // erf(-x) = -erf(x)
  std::memcpy(&r, &rbits, sizeof r);
  return r;
}

/// exp(a) in double for a in [-1080 ln 2, 1024 ln 2] (or NaN), to about
/// 1e-10 relative error, without branches or calls so that loops over it
/// vectorize (std::exp is a scalar libm call): exp(a) = 2^n exp(r) with
/// n = round(a / ln 2) and |r| <= ln(2) / 2, exp(r) by its Taylor
/// polynomial of degree 8. Below that range it may return garbage; callers
/// clamp (expApprox).
inline double expInRange(double a) {
  // n = round(a / ln 2) by the 1.5 * 2^52 trick: the low bits of t are n.
  constexpr double magic = 6755399441055744.0;
  double t = a * 1.4426950408889634 + magic;
  double n = t - magic;
  double r =
      a - n * 6.93147180369123816490e-01 - n * 1.90821492927058770002e-10;
  double p = 1.0 / 40320;
  p = p * r + 1.0 / 5040;
  p = p * r + 1.0 / 720;
  p = p * r + 1.0 / 120;
  p = p * r + 1.0 / 24;
  p = p * r + 1.0 / 6;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^n as two factors, so that n from -1080 to 1025 keeps each a normal
  // double.
  int64_t tb;
  std::memcpy(&tb, &t, sizeof tb);
  int64_t ni = tb - static_cast<int64_t>(0x4338000000000000ll);
  int64_t n1 = ni >> 1, n2 = ni - n1;
  // Shifted as unsigned: a NaN or out-of-range input gives some garbage
  // exponent (its result is masked by the caller), never undefined behaviour.
  uint64_t s1 = static_cast<uint64_t>(n1 + 1023) << 52,
           s2 = static_cast<uint64_t>(n2 + 1023) << 52;
  double f1, f2;
  std::memcpy(&f1, &s1, sizeof f1);
  std::memcpy(&f2, &s2, sizeof f2);
  return p * f1 * f2;
}

/// exp(x) in double to about 1e-10 relative error for any \p x (0 below
/// -745, inf above 709.8, NaN for NaN), vectorizable where the target has
/// 64-bit integer compares (the AVX2 and AVX-512 clones of TP_VECTOR_CLONES).
inline double expApprox(double x) {
  // |x| clamped on its bits (750 below zero, 710 above) into expInRange's
  // range, where exp is already 0 or inf.
  int64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int64_t sign = bits & static_cast<int64_t>(0x8000000000000000ull);
  int64_t mag = bits & 0x7fffffffffffffffll;
  constexpr int64_t inf = 0x7ff0000000000000ll;
  int64_t bound = sign ? 0x4087700000000000ll : 0x4086300000000000ll;
  int64_t clamped = mag < bound ? mag : bound;
  clamped = (mag > inf ? mag : clamped) | sign;
  double a;
  std::memcpy(&a, &clamped, sizeof a);
  return expInRange(a);
}

/// exp(x) of an f32, within about 1 ulp of the f32 result (computed in
/// double), and vectorizable (see expInRange). NaN stays NaN.
inline float expApprox(float x) {
  // |x| clamped to 128 on its bits, as erfApprox does (a floating-point
  // compare may trap, which keeps GCC from if-converting the loop): exp is
  // 0 or inf in f32 beyond 104.
  int32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int32_t mag = bits & 0x7fffffff;
  constexpr int32_t inf = 0x7f800000, bound = 0x43000000; // 128.0f
  int32_t clamped = mag < bound ? mag : bound;
  clamped = mag > inf ? mag : clamped; // NaN
  clamped |= bits & static_cast<int32_t>(0x80000000u);
  float a;
  std::memcpy(&a, &clamped, sizeof a);
  return static_cast<float>(expInRange(a));
}

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
/// When \p exps is given, it receives the n terms exp(x - max) in f64.
RowLogSumExp rowLogSumExp(const float *row, int64_t n, double *exps = nullptr);

/// How many interleaved partial sums the row reductions of the norms keep
/// (so that they vectorize: one AVX-512 vector of f64).
constexpr int kSumLanes = 8;

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
