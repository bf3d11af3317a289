//===- Kernels.h - Reference f32 CPU kernels --------------------*- C++ -*-===//
//
// The CPU operator set of the runtime with PyTorch semantics; GEMMs go to
// OpenBLAS. Leading dimensions are batch dimensions throughout.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_KERNELS_H
#define TP_RUNTIME_KERNELS_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::tp {
namespace runtime {

// Every kernel returns a new tensor and throws std::invalid_argument naming
// the shapes when its operands do not fit (or std::out_of_range for a bad
// dimension index).
//
// Token ids and class targets are I64 (or I32) tensors, read exactly; F32
// tensors holding integer values are still accepted. A non-integral or
// out-of-range id throws. The other kernels take F32 operands.
//
// NaN and infinities follow PyTorch: relu(NaN) = NaN, maxima keep NaN
// (tp/Runtime/FloatOps.h), and a NaN or inf in a softmax, norm or attention
// row makes the row NaN.

/// Sets the number of threads OpenBLAS uses for each GEMM (process-wide).
/// When several rank threads compute at once, 1 avoids oversubscription.
void setBlasThreads(int n);
/// The number of threads OpenBLAS uses for each GEMM.
int getBlasThreads();

/// Single-threaded GEMMs while it lives (the previous setting after):
/// runRanks holds one while its rank threads compute, since they already
/// use the cores and OpenBLAS's worker pool is shared by concurrent callers.
class SingleThreadedBlas {
public:
  SingleThreadedBlas() : previous(getBlasThreads()) { setBlasThreads(1); }
  ~SingleThreadedBlas() { setBlasThreads(previous); }
  SingleThreadedBlas(const SingleThreadedBlas &) = delete;
  SingleThreadedBlas &operator=(const SingleThreadedBlas &) = delete;

private:
  int previous;
};

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// x[..., in] @ w[out, in]^T + bias[out] -> [..., out]; \p bias may be null.
Tensor linear(const Tensor &x, const Tensor &w, const Tensor *bias);

/// Batched a[..., m, k] @ b[..., k, n] -> [..., m, n] like torch.matmul for
/// operands of rank >= 2: batch dimensions broadcast (so a 2-D \p b applies
/// to every batch of \p a).
Tensor matmul(const Tensor &a, const Tensor &b);

//===----------------------------------------------------------------------===//
// Element-wise (numpy broadcasting for the binary ones)
//===----------------------------------------------------------------------===//

/// The broadcast of shapes \p a and \p b (numpy rules).
std::vector<int64_t> broadcastShapes(const std::vector<int64_t> &a,
                                     const std::vector<int64_t> &b);

/// a + b.
Tensor add(const Tensor &a, const Tensor &b);
/// a - b.
Tensor sub(const Tensor &a, const Tensor &b);
/// a * b.
Tensor mul(const Tensor &a, const Tensor &b);
/// a / b.
Tensor div(const Tensor &a, const Tensor &b);

/// max(x, 0).
Tensor relu(const Tensor &x);
/// The error function, within 1 ulp of std::erf (vectorized).
Tensor erf(const Tensor &x);
/// 0.5 * x * (1 + erf(x / sqrt(2))), the exact GELU (with erf above).
Tensor gelu(const Tensor &x);
/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
Tensor geluTanh(const Tensor &x);
/// Same as geluTanh (the torch spelling, gelu(approximate="tanh")).
inline Tensor gelu_tanh(const Tensor &x) { return geluTanh(x); }
/// x * sigmoid(x).
Tensor silu(const Tensor &x);
/// -x.
Tensor neg(const Tensor &x);
/// e^x.
Tensor exp(const Tensor &x);
/// x * factor.
Tensor scale(const Tensor &x, float factor);
/// tanh(x).
Tensor tanh(const Tensor &x);
/// 1 / (1 + e^-x).
Tensor sigmoid(const Tensor &x);
/// sqrt(x) (NaN below 0).
Tensor sqrt(const Tensor &x);
/// 1 / sqrt(x).
Tensor rsqrt(const Tensor &x);
/// 1 / x.
Tensor reciprocal(const Tensor &x);
Tensor abs(const Tensor &x);
/// x ** exponent (std::pow: NaN for a negative base and a non-integral
/// exponent, as torch.pow).
Tensor pow(const Tensor &x, float exponent);

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Numerically stable softmax along \p dim.
Tensor softmax(const Tensor &x, int64_t dim);

/// Layer norm over the last dimension D with biased variance, as
/// torch.nn.functional.layer_norm; \p weight and \p bias are [D] or null.
Tensor layerNorm(const Tensor &x, const Tensor *weight, const Tensor *bias,
                 float eps);

/// x * rsqrt(mean(x^2 over the last dimension) + eps) * weight; \p weight is
/// [D] or null.
Tensor rmsNorm(const Tensor &x, const Tensor *weight, float eps);

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// weight[ids] : ids[...], weight[V, D] -> [..., D]. Ids are I64 or I32
/// (read exactly), or F32 holding integers (accepted for callers from before
/// the integer dtypes; a non-integral value throws); other dtypes throw. An
/// id outside [0, V) throws. The same id dtypes hold for embeddingMasked,
/// crossEntropy and targetLogit.
Tensor embedding(const Tensor &ids, const Tensor &weight);

/// Row-sharded embedding: \p weightShard holds rows [vocabOffset,
/// vocabOffset + R) of the full table; ids outside that range give zero rows,
/// so summing the shards' outputs across ranks gives embedding().
Tensor embeddingMasked(const Tensor &ids, const Tensor &weightShard,
                       int64_t vocabOffset);

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// \p x with \p shape (same number of elements).
Tensor reshape(const Tensor &x, std::vector<int64_t> shape);

/// Materialized transpose of dimensions \p d0 and \p d1.
Tensor transpose(const Tensor &x, int64_t d0, int64_t d1);

/// Materialized permutation: output dimension i is input dimension perm[i].
Tensor permute(const Tensor &x, const std::vector<int64_t> &perm);

/// \p x broadcast to \p shape (NumPy rules, any dtype): `expand`.
Tensor expand(const Tensor &x, const std::vector<int64_t> &shape);

/// \p count elements of \p dim from \p start by \p step
/// (`x[..., start:start + count * step:step]`), for any dtype; throws
/// naming the slice when they do not fit.
Tensor slice(const Tensor &x, int64_t dim, int64_t start, int64_t step,
             int64_t count);

/// The gradient of slice: a zero tensor of \p size elements along \p dim
/// (the other dims \p g's) with \p g's elements at `start + i * step`.
Tensor sliceGrad(const Tensor &g, int64_t dim, int64_t start, int64_t step,
                 int64_t size);

/// The torch.chunk piece \p i of \p k along \p dim (see chunkOf); may be
/// empty.
Tensor chunkDim(const Tensor &x, int64_t dim, int64_t k, int64_t i);

//===----------------------------------------------------------------------===//
// Masks (MaskKernels.cpp)
//===----------------------------------------------------------------------===//

enum class Predicate { Eq, Ne, Lt, Le, Gt, Ge };

/// The predicate named "eq", "ne", "lt", "le", "gt" or "ge"; throws
/// std::invalid_argument for another name.
Predicate parsePredicate(const std::string &name);

/// Element-wise `a <pred> b` with NumPy broadcasting, as a Bool tensor. The
/// operands may be F32, I64, I32 or Bool (compared exactly, in double;
/// 16-bit floats arrive widened); NaN compares as IEEE does.
Tensor compare(const Tensor &a, const Tensor &b, Predicate pred);

/// Element-wise logic on Bool tensors (any dtype reads as "nonzero"), with
/// broadcasting; the result is Bool.
Tensor logicalNot(const Tensor &x);
Tensor logicalAnd(const Tensor &a, const Tensor &b);
Tensor logicalOr(const Tensor &a, const Tensor &b);

/// `x` where \p cond is true (nonzero), `y` elsewhere, the three broadcast
/// together; \p x and \p y are F32.
Tensor where(const Tensor &cond, const Tensor &x, const Tensor &y);

//===----------------------------------------------------------------------===//
// Picking by index (IndexKernels.cpp)
//===----------------------------------------------------------------------===//

/// The positions (I64) of the \p k largest elements of \p x along \p dim,
/// largest first (`torch.topk(x, k, dim).indices`): equal elements in order
/// of position, NaN above every number. Throws when \p k exceeds the dim.
Tensor topk(const Tensor &x, int64_t dim, int64_t k);

/// `torch.gather(x, dim, index)`: the result has \p index's shape (which
/// must equal \p x's but along \p dim); throws naming the first index
/// outside `[0, x.size(dim))`.
Tensor gather(const Tensor &x, int64_t dim, const Tensor &index);

/// The gradient of gather: zeros of \p index's shape with \p size elements
/// along \p dim, each element of \p g added at the position its index
/// names (`scatter_add`).
Tensor gatherGrad(const Tensor &g, int64_t dim, const Tensor &index,
                  int64_t size);

/// `F.one_hot(ids, classes)` as I64: `[..., classes]`, 1 where the last
/// index equals the id. Throws naming the first id outside
/// `[0, classes)`.
Tensor oneHot(const Tensor &ids, int64_t classes);

//===----------------------------------------------------------------------===//
// Transformer blocks
//===----------------------------------------------------------------------===//

/// Rotary position embedding on x[b, s, h, d] (d even) with Meta Llama's
/// interleaved pairs: pair i = (x[2i], x[2i+1]) of the token at position
/// p = positionOffset + s-index rotates by angle p * theta^(-2i/d).
Tensor rotary(const Tensor &x, int64_t positionOffset, float theta);

/// Scaled dot-product attention with grouped-query heads: q[b, s, hq, d],
/// k[b, t, hkv, d], v[b, t, hkv, dv] with hq % hkv == 0; query head h uses kv
/// head h / (hq / hkv); scores are scaled by 1/sqrt(d). With \p causal (which
/// requires t == s) query i sees keys j <= i. Returns [b, s, hq, dv].
Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v,
                 bool causal);

/// Mean cross-entropy of logits[N, C] against integer targets[N] (I64, I32
/// or integral F32, as for embedding), as
/// torch.nn.functional.cross_entropy: targets equal to -100 are ignored and
/// the mean is over the others (NaN if none). With \p divisor, the sum over
/// the rows not ignored is divided by it instead (a shard of the rows: its
/// part of the mean over all of them). Returns a rank-0 tensor.
Tensor crossEntropy(const Tensor &logits, const Tensor &targets,
                    std::optional<double> divisor = std::nullopt);

/// The number of integer targets[N] that are not -100 (ignore_index), as
/// a rank-0 f32 tensor: crossEntropy's divisor.
Tensor validRows(const Tensor &targets);

/// Maximum / sum along `dim`, kept with size 1 (keepdim=True).
Tensor reduceMax(const Tensor &x, int64_t dim);
Tensor reduceSum(const Tensor &x, int64_t dim);

/// Element-wise natural logarithm.
Tensor log(const Tensor &x);

/// Mean of all elements, as a rank-0 tensor.
Tensor mean(const Tensor &x);

/// `logits[i, targets[i] - classOffset]` as `[N, 1]`, for logits holding the
/// classes `[classOffset, classOffset + C)` (classOffset >= 0); rows whose
/// target lies outside give zero (the class-parallel cross entropy sums the
/// shards). Targets are I64, I32 or integral F32, as for embedding.
Tensor targetLogit(const Tensor &logits, const Tensor &targets,
                   int64_t classOffset = 0);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_KERNELS_H
