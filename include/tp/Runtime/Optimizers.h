//===- Optimizers.h - SGD, AdamW, gradient clipping -------------*- C++ -*-===//
//
// The parameter updates of training, as torch.optim.SGD and
// torch.optim.AdamW compute them (the algorithms of their documentation,
// without `maximize`, `amsgrad` or complex parameters), and the two pieces
// of torch.nn.utils.clip_grad_norm_ that need no communication.
//
// Sharding: the state tensors of an optimizer (the momentum buffer,
// exp_avg and exp_avg_sq) have their parameter's shape and, in a sharded
// program, their parameter's placement. Every update is element-wise, so
// each rank updates its own shard of the parameter and its state with its
// shard of the gradient, with no communication. Gradient clipping needs one
// all-reduce of the squared norm (see clipCoefficient).
//
// The parameter, its gradient and its state share one dtype: F32, or BF16
// or F16 as PyTorch steps a 16-bit parameter (each of the algorithm's
// tensor ops computed in f32 and rounded to the dtype, the state kept in
// it). The functions throw std::invalid_argument naming the function and
// the shapes or dtypes when they do not fit.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_OPTIMIZERS_H
#define TP_RUNTIME_OPTIMIZERS_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>

namespace mlir::tp {
namespace runtime {

/// torch.optim.SGD's hyperparameters (and its defaults).
struct SGDOptions {
  float lr;
  float momentum = 0;
  float dampening = 0;
  float weightDecay = 0;
  /// Requires momentum > 0 and dampening == 0, as in PyTorch.
  bool nesterov = false;
};

/// One SGD step on \p param in place, as torch.optim.SGD:
///
///   g = grad + weightDecay * param
///   if momentum != 0:
///     buf = g                                       (step 1)
///     buf = momentum * buf + (1 - dampening) * g    (later steps)
///     g = nesterov ? g + momentum * buf : buf
///   param -= lr * g
///
/// \p momentumBuffer (param's shape, updated in place) may be null only when
/// momentum is 0; its contents are ignored at \p step 1, which counts from 1.
void sgdStep(Tensor &param, const Tensor &grad, Tensor *momentumBuffer,
             int64_t step, const SGDOptions &options);

/// torch.optim.AdamW's hyperparameters (and its defaults, lr aside).
struct AdamWOptions {
  float lr;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weightDecay = 0.01f;
};

/// One AdamW step on \p param in place, as torch.optim.AdamW (decoupled
/// weight decay first, then Adam with PyTorch's eps placement):
///
///   param *= 1 - lr * weightDecay
///   expAvg = beta1 * expAvg + (1 - beta1) * grad
///   expAvgSq = beta2 * expAvgSq + (1 - beta2) * grad^2
///   denom = sqrt(expAvgSq) / sqrt(1 - beta2^step) + eps
///   param -= lr / (1 - beta1^step) * expAvg / denom
///
/// \p expAvg and \p expAvgSq (param's shape, zero before step 1) are updated
/// in place; \p step counts from 1. The scalar coefficients are computed in
/// double, as PyTorch computes them in Python, and the element-wise
/// arithmetic in f32.
void adamwStep(Tensor &param, const Tensor &grad, Tensor &expAvg,
               Tensor &expAvgSq, int64_t step, const AdamWOptions &options);

/// The factor clip_grad_norm_ scales every gradient by, given the sum of
/// squares of all gradient elements \p totalNormSquared (summed over the
/// parameters and, for sharded ones, all-reduced over their ranks, counting
/// replicated gradients once): min(1, maxNorm / (sqrt(totalNormSquared) +
/// 1e-6)). As in PyTorch, an infinite norm gives 0 and a NaN norm gives NaN
/// (error_if_nonfinite=False). Throws on a negative \p totalNormSquared.
float clipCoefficient(double totalNormSquared, float maxNorm);

/// Multiplies every element of \p t by \p factor in place (applying a clip
/// coefficient; PyTorch multiplies even when the coefficient is 1).
void scaleInPlace(Tensor &t, float factor);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_OPTIMIZERS_H
