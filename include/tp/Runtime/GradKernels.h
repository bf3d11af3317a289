//===- GradKernels.h - Backward f32 CPU kernels -----------------*- C++ -*-===//
//
// The reverse-mode derivatives of the forward kernels of Kernels.h that a
// training step calls: each takes the upstream gradient g (the shape of the
// forward result) and what it needs of the forward operands or result, and
// returns the gradient of every differentiable operand. GEMMs go to OpenBLAS
// with transpose flags (no transpose is materialized).
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_GRADKERNELS_H
#define TP_RUNTIME_GRADKERNELS_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {

// As in Kernels.h: every kernel returns new tensors, computes in f32 on F32
// operands (ids and targets: I64, I32 or integral F32), and throws
// std::invalid_argument naming the kernel and the shapes when its operands do
// not fit (std::out_of_range for a bad dimension index). Sums over many
// elements (broadcast reductions, norm statistics, weight and bias
// gradients) accumulate in double.

/// The gradients of a binary operation's two operands.
struct BinaryGrads {
  Tensor a, b;
};

/// The gradients of layerNorm; `weight` and `bias` are empty tensors (shape
/// {0}) when the forward had no weight or bias.
struct LayerNormGrads {
  Tensor x, weight, bias;
};

/// The gradients of rmsNorm; `weight` is an empty tensor without a weight.
struct RMSNormGrads {
  Tensor x, weight;
};

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// The gradient of linear's input: g[..., out] @ w[out, in] -> [..., in].
Tensor linearBackwardInput(const Tensor &g, const Tensor &w);

/// The gradient of linear's weight: the sum over every leading index r of
/// g[r, :]^T x[r, :], i.e. g^T x over the flattened rows -> [out, in]; \p g
/// is [..., out] and \p x [..., in] with the same leading extents. One GEMM
/// with A transposed.
Tensor linearBackwardWeight(const Tensor &g, const Tensor &x);

/// Reduces the gradient \p g of a broadcast result back to the shape
/// \p shape of the operand that was broadcast (NumPy rules, as the binary
/// kernels broadcast): sums over the leading dimensions \p shape lacks and
/// over those where \p shape has extent 1 and \p g does not. \p shape must
/// broadcast to g's shape. linear's bias gradient is sumToShape(g, {out}).
Tensor sumToShape(const Tensor &g, const std::vector<int64_t> &shape);

/// The gradients of matmul(a[..., m, k], b[..., k, n]) for g[..., m, n]:
/// a gets g @ b^T [m, k] and b gets a^T @ g [k, n] per batch, each summed
/// over the batch dimensions along which that operand was broadcast.
BinaryGrads matmulBackward(const Tensor &g, const Tensor &a, const Tensor &b);

//===----------------------------------------------------------------------===//
// Element-wise (broadcast gradients reduced with sumToShape)
//===----------------------------------------------------------------------===//

/// g where x > 0 (and where x is NaN, as relu passes NaN), else 0; the
/// subgradient at 0 is 0, as PyTorch's.
Tensor reluBackward(const Tensor &g, const Tensor &x);
/// g * (Phi(x) + x phi(x)) for gelu(x) = x Phi(x), Phi the standard normal
/// CDF 0.5 (1 + erf(x / sqrt 2)) and phi = exp(-x^2 / 2) / sqrt(2 pi).
Tensor geluBackward(const Tensor &g, const Tensor &x);
/// g * (0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 * 0.044715 x^2)) with
/// c = sqrt(2/pi) and t = tanh(c (x + 0.044715 x^3)), the derivative of
/// geluTanh.
Tensor geluTanhBackward(const Tensor &g, const Tensor &x);
/// g * s (1 + x (1 - s)) with s = sigmoid(x), the derivative of x s.
Tensor siluBackward(const Tensor &g, const Tensor &x);
/// g * y, for y = exp(x) the forward result.
Tensor expBackward(const Tensor &g, const Tensor &y);
/// g / x.
Tensor logBackward(const Tensor &g, const Tensor &x);
/// The gradients of mul(a, b) for g of the broadcast shape:
/// sumToShape(g * b, a's shape) and sumToShape(g * a, b's shape).
BinaryGrads mulBackward(const Tensor &g, const Tensor &a, const Tensor &b);
/// The gradients of div(a, b) for g of the broadcast shape:
/// sumToShape(g / b, a's shape) and sumToShape(-g a / b^2, b's shape).
BinaryGrads divBackward(const Tensor &g, const Tensor &a, const Tensor &b);

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// The gradients of layerNorm(x, weight, bias, eps) for g of x's shape. Per
/// row of D elements with mu, rstd = 1/sqrt(var + eps) and
/// xhat = (x - mu) rstd as in the forward, and dxhat = g * weight (g without
/// a weight): gx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat));
/// gweight = sum over rows of g xhat, gbias = sum over rows of g.
LayerNormGrads layerNormBackward(const Tensor &g, const Tensor &x,
                                 const Tensor *weight, const Tensor *bias,
                                 float eps);

/// The gradients of rmsNorm(x, weight, eps) for g of x's shape. Per row with
/// r = 1/sqrt(mean(x^2) + eps) and dxhat = g * weight:
/// gx = r (dxhat - x r^2 mean(dxhat x)); gweight = sum over rows of g x r.
RMSNormGrads rmsNormBackward(const Tensor &g, const Tensor &x,
                             const Tensor *weight, float eps);

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// The gradient of embedding(ids, weight[V, D]) for g[..., D] (ids' shape
/// plus D): row v of the [V, D] result is the sum of the rows of g whose id
/// is v (a scatter-add, in f32 in the order of the ids). Ids as for
/// embedding; an id outside [0, V) throws.
Tensor embeddingBackward(const Tensor &g, const Tensor &ids,
                         int64_t numEmbeddings);

/// The gradient of embeddingMasked(ids, weightShard[rows, D], vocabOffset):
/// the [rows, D] shard of embeddingBackward's result, to which only ids in
/// [vocabOffset, vocabOffset + rows) contribute. Negative ids throw, as in
/// the forward.
Tensor embeddingMaskedBackward(const Tensor &g, const Tensor &ids, int64_t rows,
                               int64_t vocabOffset);

//===----------------------------------------------------------------------===//
// Dropout in training
//===----------------------------------------------------------------------===//

/// What the mask of one training dropout depends on: the run's seed, the
/// optimizer step, the module's FQN and (per element) the element's flat
/// row-major index in the global tensor. Nothing else: a rank holding any
/// slice of the tensor draws exactly that slice of the mask, so N ranks
/// equal one rank; the backward draws the same mask again.
struct DropoutKey {
  uint64_t seed = 0;
  int64_t step = 1;
  std::string fqn;
  /// The probability of dropping an element, in [0, 1).
  float p = 0;
};

/// Whether element \p globalIndex is kept (probability 1 - p): 53 bits of
/// the InitStream of (seed, step) and the FQN (Init.h) against p.
bool dropoutKeeps(const DropoutKey &key, int64_t globalIndex);

/// nn.Dropout in training on \p x, the slice at \p offsets (one per dim) of
/// a tensor of \p globalShape: x * keep / (1 - p), each element's keep
/// decided by dropoutKeeps at its global index (a dropped NaN stays NaN, as
/// PyTorch's x * mask). The backward is the same call on the gradient: the
/// mask is recomputed, nothing is stored between the two. Throws
/// std::invalid_argument when the slice does not fit the global shape or p
/// is outside [0, 1).
Tensor dropout(const Tensor &x, const DropoutKey &key,
               const std::vector<int64_t> &globalShape,
               const std::vector<int64_t> &offsets);

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

/// The gradient of crossEntropy(logits[N, C], targets[N]) for the rank-0
/// \p gLoss: row i is (softmax(logits[i]) - onehot(targets[i])) * gLoss /
/// n, n the number of targets that are not -100; ignored rows are zero (so
/// is everything when every target is ignored, as in PyTorch, although the
/// loss is then NaN). A target outside [0, C) other than -100 throws. With
/// \p divisor, it replaces n (crossEntropy's).
Tensor crossEntropyBackward(const Tensor &logits, const Tensor &targets,
                            const Tensor &gLoss,
                            std::optional<double> divisor = std::nullopt);

/// The gradient of targetLogit(logits[N, numClassesLocal], targets,
/// classOffset) for g[N, 1]: element (i, targets[i] - classOffset) is
/// g[i], everything else zero (rows whose target lies outside this shard's
/// classes are zero).
Tensor targetLogitBackward(const Tensor &g, const Tensor &targets,
                           int64_t numClassesLocal, int64_t classOffset = 0);

/// The gradient of mean(x) for x of \p shape and the rank-0 \p g:
/// g / numel everywhere.
Tensor meanBackward(const Tensor &g, const std::vector<int64_t> &shape);

/// The gradient of reduceSum(x, dim) for x of \p shape: \p g (x's shape with
/// extent 1 at \p dim) repeated along \p dim.
Tensor reduceSumBackward(const Tensor &g, const std::vector<int64_t> &shape,
                         int64_t dim);

/// The gradient of reduceMax(x, dim) with torch.amax's semantics: g is split
/// evenly among the elements equal to the maximum (ties share it; torch.max
/// with a dim would route it all to one index instead). A slice whose
/// maximum is NaN gets NaN everywhere, as PyTorch's amax backward does.
Tensor reduceMaxBackward(const Tensor &g, const Tensor &x, int64_t dim);

/// The sum of the squares of x's elements, accumulated in double (for the
/// global gradient norm of gradient clipping; no f32 overflow).
double sumOfSquares(const Tensor &x);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_GRADKERNELS_H
