//===- Transformer.h - linear, norm, softmax, attention kernels -*- C++ -*-===//
//
// The fused kernels of a transformer layer (linear, matmul, the norms,
// softmax, rotary, attention) and their gradients. A kernel that computes
// several gradients in one pass (a norm's input and weight, attention's
// q, k and v) keeps the others in the frame (Frame::sharedGrad) for the
// instructions that take them. Private to lib/Executor (see KernelTable.h).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_KERNELS_TRANSFORMER_H
#define TP_LIB_EXECUTOR_KERNELS_TRANSFORMER_H

#include "../KernelTable.h"

namespace mlir::tp::exec::detail {

/// Keys of Frame::sharedGrads: which kernel computed the gradients.
enum SharedKernel : int { kAttentionGrads, kLayerNormGrads, kRMSNormGrads };

/// The gradient of a norm's input (\p input) or weight from one pass over
/// the rows (operands grad, input[, weight]); the weight's gradient does
/// not depend on the weight, so the weight instruction, when it comes
/// first, passes ones and computes its own. \p backward(grad, input,
/// weight*) gives both.
template <class B, class Backward>
Tensor normGrad(const KernelCall<B> &k, SharedKernel kind, bool input,
                Backward backward) {
  return k.f.sharedGrad(
      {kind, k.in.operands[0], k.in.operands[1]}, input ? 0 : 1,
      [&]() -> std::vector<std::optional<Tensor>> {
        if (!input) {
          Tensor ones = Tensor::full({k.arg(1).shape().back()}, 1.0f);
          return {std::nullopt, backward(k.arg(0), k.arg(1), &ones).weight};
        }
        auto g = backward(k.arg(0), k.arg(1), &k.arg(2));
        return {std::move(g.x), std::move(g.weight)};
      });
}

/// Attention's gradient \p which (0: q, 1: k, 2: v) of operands grad, q,
/// k, v: the first of the three computes all (the probabilities once).
template <class B> Tensor attentionGrad(const KernelCall<B> &k, size_t which) {
  std::vector<int> key{kAttentionGrads, k.in.causal};
  key.insert(key.end(), k.in.operands.begin(), k.in.operands.end());
  return k.f.sharedGrad(
      std::move(key), which, [&]() -> std::vector<std::optional<Tensor>> {
        auto g = attentionBackward(k.arg(0), k.arg(1), k.arg(2), k.arg(3),
                                   k.in.causal);
        return {std::move(g.gq), std::move(g.gk), std::move(g.gv)};
      });
}

template <class B> void addTransformerKernels(KernelTable<B> &t) {
  using K = const KernelCall<B> &;
  // operands x, weight[, bias].
  t.add("linear", 0, [](K k) {
    return linear(k.arg(0), k.arg(1),
                  k.numOperands() > 2 ? &k.arg(2) : nullptr);
  });
  t.add("matmul", 0, [](K k) { return matmul(k.arg(0), k.arg(1)); });
  // value (eps).
  t.add("layer_norm", kEps, [](K k) {
    return layerNorm(k.arg(0), &k.arg(1), &k.arg(2), k.in.value);
  });
  t.add("rms_norm", kEps,
        [](K k) { return rmsNorm(k.arg(0), &k.arg(1), k.in.value); });
  t.add("softmax", kDim, [](K k) { return softmax(k.arg(0), k.in.dim); });
  // value (theta).
  t.add("rotary", kTheta, [](K k) { return rotary(k.arg(0), 0, k.in.value); });
  t.add("attention", kCausal, [](K k) {
    return attention(k.arg(0), k.arg(1), k.arg(2), k.in.causal);
  });
  if constexpr (B::kHostOnlyKernels) {
    // operands grad, weight / grad, input.
    t.add("linear_grad_input", 0,
          [](K k) { return linearBackwardInput(k.arg(0), k.arg(1)); });
    t.add("linear_grad_weight", 0,
          [](K k) { return linearBackwardWeight(k.arg(0), k.arg(1)); });
    // value (eps): operands grad, input[, weight].
    t.add("layer_norm_grad_input", kEps, [](K k) {
      return normGrad(k, kLayerNormGrads, true, [&](const auto &...a) {
        return layerNormBackward(a..., nullptr, k.in.value);
      });
    });
    t.add("layer_norm_grad_weight", kEps, [](K k) {
      return normGrad(k, kLayerNormGrads, false, [&](const auto &...a) {
        return layerNormBackward(a..., nullptr, k.in.value);
      });
    });
    t.add("rms_norm_grad_input", kEps, [](K k) {
      return normGrad(k, kRMSNormGrads, true, [&](const auto &...a) {
        return rmsNormBackward(a..., k.in.value);
      });
    });
    t.add("rms_norm_grad_weight", kEps, [](K k) {
      return normGrad(k, kRMSNormGrads, false, [&](const auto &...a) {
        return rmsNormBackward(a..., k.in.value);
      });
    });
    // dim: operands grad, output.
    t.add("softmax_grad", kDim,
          [](K k) { return softmaxBackward(k.arg(0), k.arg(1), k.in.dim); });
    t.add("rotary_grad", kTheta,
          [](K k) { return rotaryBackward(k.arg(0), 0, k.in.value); });
    // causal: operands grad, q, k, v.
    t.add("attention_grad_q", kCausal, [](K k) { return attentionGrad(k, 0); });
    t.add("attention_grad_k", kCausal, [](K k) { return attentionGrad(k, 1); });
    t.add("attention_grad_v", kCausal, [](K k) { return attentionGrad(k, 2); });
  }
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELS_TRANSFORMER_H
