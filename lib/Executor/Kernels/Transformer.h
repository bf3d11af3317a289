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

/// The key of a norm's shared pass (Frame::sharedGrad): operands grad and
/// input.
inline std::vector<int> normKey(SharedKernel kind, const Instruction &in) {
  return {kind, in.operands[0], in.operands[1]};
}
/// The key of attention's backward pass: causal and every operand.
inline std::vector<int> attentionKey(const Instruction &in) {
  std::vector<int> key{kAttentionGrads, in.causal};
  key.insert(key.end(), in.operands.begin(), in.operands.end());
  return key;
}

/// f32 bytes of slot \p s of \p program.
inline int64_t f32BytesOf(const ProgramData &program, int s) {
  const SlotType &t = program.slots[s];
  return t.staticBytes / static_cast<int64_t>(rt::dtypeSize(t.dtype)) * 4;
}

/// The matrix products of the kernels below (KernelCost), two flops per
/// multiply-add. A product of [m, k] and [k, n] makes m * n elements of k
/// multiply-adds each: 2 * numel(result) * k.
inline KernelCost productCost(KernelCost::Count flops,
                              KernelCost::Count transcendentals = nullptr,
                              KernelCost::Count products = nullptr) {
  return KernelCost{flops, /*matrix=*/true, transcendentals, products};
}

/// linear: x [..., in] times weight [out, in]^T.
inline double linearFlops(const Instruction &in, const ProgramData &p) {
  return 2 * elementsOf(p, in.result) * dimOf(p, in.operands[1], 1);
}
/// matmul: [..., m, k] times [..., k, n].
inline double matmulFlops(const Instruction &in, const ProgramData &p) {
  return 2 * elementsOf(p, in.result) * dimOf(p, in.operands[0], -1);
}
/// matmul's GEMM calls: one over all rows when b has no batch dims, else
/// one per batch of the result.
inline double matmulProducts(const Instruction &in, const ProgramData &p) {
  if (p.slots[in.operands[1]].shape.size() <= 2)
    return 1;
  return elementsOf(p, in.result) /
         (dimOf(p, in.result, -2) * dimOf(p, in.result, -1));
}
/// The input's gradient of linear: grad [..., out] times weight [out, in].
inline double linearGradInputFlops(const Instruction &in,
                                   const ProgramData &p) {
  return 2 * elementsOf(p, in.result) * dimOf(p, in.operands[0], -1);
}
/// The weight's gradient: grad^T [out, rows] times input [rows, in].
inline double linearGradWeightFlops(const Instruction &in,
                                    const ProgramData &p) {
  double rows = elementsOf(p, in.operands[0]) / dimOf(p, in.operands[0], -1);
  return 2 * elementsOf(p, in.result) * rows;
}
/// attention of q [b, s, h, d], k [b, t, hkv, d], v [b, t, hkv, dv] (every
/// score computed, the causal mask applied after): per head q k^T
/// (2 s t d) and p v (2 s t dv), 2 t (numel(q) + numel(result)) in all,
/// and a vectorized exp per score (kApproxExpFlops).
inline double attentionFlops(const Instruction &in, const ProgramData &p) {
  double t = dimOf(p, in.operands[1], 1);
  double scores =
      elementsOf(p, in.operands[0]) * t / dimOf(p, in.operands[0], -1);
  return 2 * t * (elementsOf(p, in.operands[0]) + elementsOf(p, in.result)) +
         (1 + kApproxExpFlops) * scores;
}
/// attention's backward (operands grad, q, k, v): the scores again
/// (2 s t d per head), dv = p^T g and dp = g v^T (2 s t dv each), dq = ds k
/// and dk = ds^T q (2 s t d each), and the exps again; each of the three
/// gradient instructions counts a third of the pass.
inline double attentionGradFlops(const Instruction &in, const ProgramData &p) {
  double t = dimOf(p, in.operands[2], 1);
  double scores =
      elementsOf(p, in.operands[1]) * t / dimOf(p, in.operands[1], -1);
  return (2 * t *
              (3 * elementsOf(p, in.operands[1]) +
               2 * elementsOf(p, in.operands[0])) +
          (1 + kApproxExpFlops) * scores) /
         3;
}

/// attention's GEMM calls: two per batch and query head (the scores, then
/// their product with v).
inline double attentionProducts(const Instruction &in, const ProgramData &p) {
  return 2 * dimOf(p, in.operands[0], 0) * dimOf(p, in.operands[0], 2);
}
/// The backward's: five per batch and query head (the scores, dp, dq, dk,
/// dv), a third on each of the three gradient instructions.
inline double attentionGradProducts(const Instruction &in,
                                    const ProgramData &p) {
  return 5 * dimOf(p, in.operands[1], 0) * dimOf(p, in.operands[1], 2) / 3;
}

/// A norm's flops, \p PerElement per element of its input (operand 0; a
/// gradient's operand 0 has the input's shape). layer_norm: the row's
/// moments (4: the mean, then the squared deviations, in f64) and the
/// normalization with weight and bias (4); rms_norm: the sum of squares (2)
/// and the scaling (3). Their backward passes compute both gradients at
/// once, each instruction counting half: layer_norm's 20 (the moments
/// again, a pass of 9 for the sums and the weight's gradient, one of 7 for
/// the input's), rms_norm's 12 (2 + 6 + 4).
template <int PerElement>
double normFlops(const Instruction &in, const ProgramData &p) {
  return PerElement * elementsOf(p, in.operands[0]);
}
inline const KernelCost kLayerNormCost{normFlops<8>};
inline const KernelCost kRMSNormCost{normFlops<5>};
inline const KernelCost kLayerNormGradCost{normFlops<10>};
inline const KernelCost kRMSNormGradCost{normFlops<6>};

/// What a norm's gradient kernels allocate: the input instruction's pass
/// computes both gradients (the input's and the weight's), the weight
/// instruction's, when it comes first, only its own.
template <SharedKernel Kind> KernelMemory normGradMemory(bool input) {
  KernelMemory m;
  m.sharedKey = [](const Instruction &in) { return normKey(Kind, in); };
  m.sharedMember = input ? 0 : 1;
  m.sharedBytes = input ? +[](const Instruction &in, const ProgramData &p) {
    int64_t d = p.slots[in.operands[1]].shape.empty()
                    ? 1
                    : p.slots[in.operands[1]].shape.back();
    return std::vector<int64_t>{f32BytesOf(p, in.operands[1]), d * 4};
  }
                        : +[](const Instruction &in, const ProgramData &p) {
                            return std::vector<int64_t>{
                                -1, f32BytesOf(p, in.result)};
                          };
  return m;
}

/// What attention's gradient kernels allocate: the first computes q's, k's
/// and v's gradients (of their operands' shapes), holding two [s, t]
/// scratch matrices of one head while it runs.
inline KernelMemory attentionGradMemory(size_t which) {
  KernelMemory m;
  m.sharedKey = attentionKey;
  m.sharedMember = which;
  m.sharedBytes = [](const Instruction &in, const ProgramData &p) {
    return std::vector<int64_t>{f32BytesOf(p, in.operands[1]),
                                f32BytesOf(p, in.operands[2]),
                                f32BytesOf(p, in.operands[3])};
  };
  m.workspace = [](const Instruction &in, const ProgramData &p) -> int64_t {
    const std::vector<int64_t> &q = p.slots[in.operands[1]].shape,
                               &k = p.slots[in.operands[2]].shape;
    return q.size() == 4 && k.size() == 4 ? 2 * q[1] * k[1] * 4 : 0;
  };
  return m;
}

/// The gradient of a norm's input (\p input) or weight from one pass over
/// the rows (operands grad, input[, weight]); the weight's gradient does
/// not depend on the weight, so the weight instruction, when it comes
/// first, passes ones and computes its own. \p backward(grad, input,
/// weight*) gives both.
template <class B, class Backward>
Tensor normGrad(const KernelCall<B> &k, SharedKernel kind, bool input,
                Backward backward) {
  return k.f.sharedGrad(
      normKey(kind, k.in), input ? 0 : 1,
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
  return k.f.sharedGrad(
      attentionKey(k.in), which, [&]() -> std::vector<std::optional<Tensor>> {
        auto g = attentionBackward(k.arg(0), k.arg(1), k.arg(2), k.arg(3),
                                   k.in.causal);
        return {std::move(g.gq), std::move(g.gk), std::move(g.gv)};
      });
}

template <class B> void addTransformerKernels(KernelTable<B> &t) {
  using K = const KernelCall<B> &;
  // operands x, weight[, bias].
  t.add(
      "linear", 0,
      [](K k) {
        return linear(k.arg(0), k.arg(1),
                      k.numOperands() > 2 ? &k.arg(2) : nullptr);
      },
      {}, productCost(linearFlops));
  t.add(
      "matmul", 0, [](K k) { return matmul(k.arg(0), k.arg(1)); }, {},
      productCost(matmulFlops, nullptr, matmulProducts));
  // value (eps).
  t.add(
      "layer_norm", kEps,
      [](K k) { return layerNorm(k.arg(0), &k.arg(1), &k.arg(2), k.in.value); },
      {}, kLayerNormCost);
  t.add(
      "rms_norm", kEps,
      [](K k) { return rmsNorm(k.arg(0), &k.arg(1), k.in.value); }, {},
      kRMSNormCost);
  t.add(
      "softmax", kDim, [](K k) { return softmax(k.arg(0), k.in.dim); }, {},
      kTranscendental);
  // value (theta).
  t.add("rotary", kTheta, [](K k) { return rotary(k.arg(0), 0, k.in.value); });
  // One head's [s, t] scores at a time.
  t.add(
      "attention", kCausal,
      [](K k) { return attention(k.arg(0), k.arg(1), k.arg(2), k.in.causal); },
      {[](const Instruction &in, const ProgramData &p) -> int64_t {
        const std::vector<int64_t> &q = p.slots[in.operands[0]].shape,
                                   &k = p.slots[in.operands[1]].shape;
        return q.size() == 4 && k.size() == 4 ? q[1] * k[1] * 4 : 0;
      }},
      productCost(attentionFlops, nullptr, attentionProducts));
  if constexpr (B::kHostOnlyKernels) {
    // operands grad, weight / grad, input.
    t.add(
        "linear_grad_input", 0,
        [](K k) { return linearBackwardInput(k.arg(0), k.arg(1)); }, {},
        productCost(linearGradInputFlops));
    t.add(
        "linear_grad_weight", 0,
        [](K k) { return linearBackwardWeight(k.arg(0), k.arg(1)); }, {},
        productCost(linearGradWeightFlops));
    // value (eps): operands grad, input[, weight].
    t.add(
        "layer_norm_grad_input", kEps,
        [](K k) {
          return normGrad(k, kLayerNormGrads, true, [&](const auto &...a) {
            return layerNormBackward(a..., nullptr, k.in.value);
          });
        },
        normGradMemory<kLayerNormGrads>(true), kLayerNormGradCost);
    t.add(
        "layer_norm_grad_weight", kEps,
        [](K k) {
          return normGrad(k, kLayerNormGrads, false, [&](const auto &...a) {
            return layerNormBackward(a..., nullptr, k.in.value);
          });
        },
        normGradMemory<kLayerNormGrads>(false), kLayerNormGradCost);
    t.add(
        "rms_norm_grad_input", kEps,
        [](K k) {
          return normGrad(k, kRMSNormGrads, true, [&](const auto &...a) {
            return rmsNormBackward(a..., k.in.value);
          });
        },
        normGradMemory<kRMSNormGrads>(true), kRMSNormGradCost);
    t.add(
        "rms_norm_grad_weight", kEps,
        [](K k) {
          return normGrad(k, kRMSNormGrads, false, [&](const auto &...a) {
            return rmsNormBackward(a..., k.in.value);
          });
        },
        normGradMemory<kRMSNormGrads>(false), kRMSNormGradCost);
    // dim: operands grad, output.
    t.add("softmax_grad", kDim,
          [](K k) { return softmaxBackward(k.arg(0), k.arg(1), k.in.dim); });
    t.add("rotary_grad", kTheta,
          [](K k) { return rotaryBackward(k.arg(0), 0, k.in.value); });
    // causal: operands grad, q, k, v.
    t.add(
        "attention_grad_q", kCausal, [](K k) { return attentionGrad(k, 0); },
        attentionGradMemory(0),
        productCost(attentionGradFlops, nullptr, attentionGradProducts));
    t.add(
        "attention_grad_k", kCausal, [](K k) { return attentionGrad(k, 1); },
        attentionGradMemory(1),
        productCost(attentionGradFlops, nullptr, attentionGradProducts));
    t.add(
        "attention_grad_v", kCausal, [](K k) { return attentionGrad(k, 2); },
        attentionGradMemory(2),
        productCost(attentionGradFlops, nullptr, attentionGradProducts));
  }
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELS_TRANSFORMER_H
