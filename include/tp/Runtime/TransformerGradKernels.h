//===- TransformerGradKernels.h - Transformer backward ----------*- C++ -*-===//
//
// The CPU backward (vector-Jacobian products) of softmax, rotary embedding
// and grouped-query attention of tp/Runtime/Kernels.h: given the gradient of
// a loss with respect to the forward kernel's output, each returns the
// gradients with respect to its inputs. Like the forward kernels they take
// F32 tensors, return new tensors and throw std::invalid_argument naming
// the kernel and the shapes when the operands do not fit.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_TRANSFORMERGRADKERNELS_H
#define TP_RUNTIME_TRANSFORMERGRADKERNELS_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>

namespace mlir::tp {
namespace runtime {

/// The gradient of softmax(x, dim) with respect to x, from the gradient \p g
/// of its output and the output \p y itself (same shape):
/// y * (g - sum(g * y, dim)), the sums accumulated in double.
Tensor softmaxBackward(const Tensor &g, const Tensor &y, int64_t dim);

/// The gradient of rotary(x, positionOffset, theta) with respect to x, from
/// the gradient \p g[b, s, h, d] of its output: each pair turns back by the
/// forward's angle (the rotation is orthogonal, so its transpose is its
/// inverse). The angles are rounded exactly as rotary() rounds them.
Tensor rotaryBackward(const Tensor &g, int64_t positionOffset, float theta);

/// The gradients of attention() with respect to its three operands.
struct AttentionGrads {
  Tensor gq; ///< [b, s, hq, d], like q.
  Tensor gk; ///< [b, t, hkv, d], like k.
  Tensor gv; ///< [b, t, hkv, dv], like v.
};

/// The gradients of attention(q, k, v, causal) from the gradient
/// \p g[b, s, hq, dv] of its output. The attention probabilities are
/// recomputed from \p q and \p k (the forward need not keep them), with the
/// forward's max-subtracted softmax. A kv head's gradients sum over the
/// hq / hkv query heads that share it. Operand checks are attention()'s.
AttentionGrads attentionBackward(const Tensor &g, const Tensor &q,
                                 const Tensor &k, const Tensor &v, bool causal);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_TRANSFORMERGRADKERNELS_H
