//===- RunKernel.h - what each kernel instruction computes ------*- C++ -*-===//
//
// Private to lib/Executor, for Interpreter.h: the value of a kernel
// instruction on a backend B (runKernel: the runtime's kernels, found by
// argument-dependent lookup on B's buffers), and the optimizer updates on
// host tensors (optimizerUpdate), both on a rank's Frame.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_RUNKERNEL_H
#define TP_LIB_EXECUTOR_RUNKERNEL_H

#include "Frame.h"

namespace mlir::tp::exec::detail {

/// A mean over \p own elements (or rows) made a mean over \p count of them
/// (a shard's part of the global mean); \p count 0 keeps it.
template <class Buffer>
Buffer overCount(Buffer mean, int64_t own, int64_t count) {
  if (count == 0 || count == own)
    return mean;
  return scale(mean, static_cast<float>(static_cast<double>(own) /
                                        static_cast<double>(count)));
}

/// A loss whose rows are split over ranks (\p count, the global row count,
/// is set and differs from this rank's) is each rank's mean scaled by its
/// share of the rows; with ignored rows (-100) the shares are not known
/// locally, so such targets are an error rather than a wrong loss.
inline void checkNoIgnoredRows(const Tensor &targets, int64_t count) {
  if (count == 0 || count == targets.numel())
    return;
  for (int64_t i = 0; i < targets.numel(); ++i)
    if (targets.atInt(i) == kIgnoreIndex)
      throw std::runtime_error(
          "cross_entropy: a target of -100 (ignore_index) in a loss whose "
          "rows are split over ranks; tp averages such a loss over all " +
          std::to_string(count) +
          " rows, so ignored rows are supported only when every rank holds "
          "all of them");
}

/// The shape reshape instruction \p in gives an operand of \p numel
/// elements: an uneven (dynamic) dim takes what the others leave.
inline std::vector<int64_t> reshapeTarget(const Instruction &in,
                                          int64_t numel) {
  std::vector<int64_t> s = in.shape;
  int64_t known = 1;
  for (int64_t d : s)
    if (d >= 0)
      known *= d;
  for (int64_t &d : s)
    if (d < 0)
      d = known ? numel / known : 0;
  return s;
}

/// Keys of Frame::sharedGrads: which kernel computed the gradients.
enum SharedKernel : int { kAttentionGrads, kLayerNormGrads, kRMSNormGrads };

/// The value of kernel instruction \p in (16-bit float operands already
/// widened to f32; integer operands as they are).
template <class B>
typename B::Buffer runKernel(const Instruction &in, Frame<B> &f) {
  auto arg = [&](size_t i) -> const typename B::Buffer & {
    return f.at(in.operands[i]);
  };
  switch (in.op) {
  case Opcode::Linear:
    return linear(arg(0), arg(1), in.operands.size() > 2 ? &arg(2) : nullptr);
  case Opcode::Embedding:
    return embedding(arg(0), arg(1));
  case Opcode::EmbeddingMasked:
    // This rank holds rows [offset, offset + local rows) of the vocab.
    return embeddingMasked(arg(0), arg(1), f.chunkOf(in.size, in.axes).offset);
  case Opcode::LayerNorm:
    return layerNorm(arg(0), &arg(1), &arg(2), in.value);
  case Opcode::RMSNorm:
    return rmsNorm(arg(0), &arg(1), in.value);
  case Opcode::Copy:
    return B::clone(arg(0));
  case Opcode::Relu:
    return relu(arg(0));
  case Opcode::Gelu:
    return gelu(arg(0));
  case Opcode::Silu:
    return silu(arg(0));
  case Opcode::Exp:
    return exp(arg(0));
  case Opcode::Add:
    return add(arg(0), arg(1));
  case Opcode::Mul:
    return mul(arg(0), arg(1));
  case Opcode::Matmul:
    return matmul(arg(0), arg(1));
  case Opcode::Softmax:
    return softmax(arg(0), in.dim);
  case Opcode::Rotary:
    return rotary(arg(0), 0, in.value);
  case Opcode::Attention:
    return attention(arg(0), arg(1), arg(2), in.causal);
  case Opcode::Reshape:
    return reshape(arg(0), reshapeTarget(in, arg(0).numel()));
  case Opcode::Constant:
    return B::fromHost(f.program->constants[in.param]);
  case Opcode::Arange: {
    // Made in the slot's integer dtype: the device does not convert ints.
    std::vector<int64_t> v(in.size);
    for (int64_t i = 0; i < in.size; ++i)
      v[i] = i;
    return B::fromHost(
        Tensor::fromInts({in.size}, v, f.program->slots[in.result].dtype));
  }
  default:
    break;
  }
  if constexpr (B::kHostOnlyKernels) {
    switch (in.op) {
    case Opcode::Transpose:
      return permute(arg(0), in.shape);
    case Opcode::Slice:
      return slice(arg(0), in.dim, in.start, in.step, in.size);
    case Opcode::SliceGrad:
      return sliceGrad(arg(0), in.dim, in.start, in.step, in.size);
    case Opcode::Concat: {
      std::vector<typename B::Buffer> parts;
      for (size_t i = 0; i < in.operands.size(); ++i)
        parts.push_back(arg(i));
      return concatDim(parts, in.dim);
    }
    case Opcode::Abs:
      return abs(arg(0));
    case Opcode::Generic: {
      std::vector<const typename B::Buffer *> operands;
      for (size_t i = 0; i < in.operands.size(); ++i)
        operands.push_back(&arg(i));
      return generic(f.program->generics[in.param], operands, in.shape);
    }
    case Opcode::Expand:
      return expand(arg(0), in.shape);
    case Opcode::Compare:
      return compare(arg(0), arg(1), static_cast<runtime::Predicate>(in.size));
    case Opcode::LogicalNot:
      return logicalNot(arg(0));
    case Opcode::LogicalAnd:
      return logicalAnd(arg(0), arg(1));
    case Opcode::LogicalOr:
      return logicalOr(arg(0), arg(1));
    case Opcode::Where:
      return where(arg(0), arg(1), arg(2));
    case Opcode::Topk:
      return topk(arg(0), in.dim, in.size);
    case Opcode::Gather:
      return gather(arg(0), in.dim, arg(1));
    case Opcode::GatherGrad:
      return gatherGrad(arg(0), in.dim, arg(1), in.size);
    case Opcode::OneHot:
      return oneHot(arg(0), in.shape.back());
    case Opcode::Sub:
      return sub(arg(0), arg(1));
    case Opcode::Log:
      return log(arg(0));
    case Opcode::Tanh:
      return tanh(arg(0));
    case Opcode::Sigmoid:
      return sigmoid(arg(0));
    case Opcode::Sqrt:
      return sqrt(arg(0));
    case Opcode::Rsqrt:
      return rsqrt(arg(0));
    case Opcode::Erf:
      return erf(arg(0));
    case Opcode::Reciprocal:
      return reciprocal(arg(0));
    case Opcode::Pow:
      return pow(arg(0), static_cast<float>(in.value));
    case Opcode::Div:
      return div(arg(0), arg(1));
    case Opcode::ReduceMax:
      return reduceMax(arg(0), in.dim);
    case Opcode::ReduceSum:
      return reduceSum(arg(0), in.dim);
    case Opcode::Mean:
      return overCount(mean(arg(0)), arg(0).numel(), in.size);
    case Opcode::TargetLogit:
      return targetLogit(arg(0), arg(1),
                         in.axes.empty() ? 0
                                         : f.chunkOf(in.size, in.axes).offset);
    case Opcode::CrossEntropy:
      checkNoIgnoredRows(arg(1), in.size);
      return overCount(crossEntropy(arg(0), arg(1)), arg(1).numel(), in.size);
    case Opcode::Full:
      return B::fromHost(Tensor::full(in.shape, in.value));
    case Opcode::Neg:
      return neg(arg(0));
    case Opcode::LinearGradInput:
      return linearBackwardInput(arg(0), arg(1));
    case Opcode::LinearGradWeight:
      return linearBackwardWeight(arg(0), arg(1));
    case Opcode::SumTo: {
      // An uneven (dynamic) dim keeps the gradient's extent there.
      std::vector<int64_t> s = in.shape;
      size_t lead = arg(0).shape().size() - s.size();
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] < 0)
          s[i] = arg(0).shape()[lead + i];
      return sumToShape(arg(0), s);
    }
    case Opcode::ReluGrad:
      return reluBackward(arg(0), arg(1));
    case Opcode::GeluGrad:
      return geluBackward(arg(0), arg(1));
    case Opcode::SiluGrad:
      return siluBackward(arg(0), arg(1));
    case Opcode::MeanGrad:
      return meanBackward(arg(0), in.shape);
    case Opcode::LogGrad:
      return logBackward(arg(0), arg(1));
    // A norm's input and weight gradients (operands grad and input first)
    // come from one pass over the rows; the weight's gradient does not
    // depend on the weight, so the weight instruction, when it comes first,
    // passes ones and computes its own.
    case Opcode::LayerNormGradInput:
    case Opcode::LayerNormGradWeight: {
      bool input = in.op == Opcode::LayerNormGradInput;
      return f.sharedGrad(
          {kLayerNormGrads, in.operands[0], in.operands[1]}, input ? 0 : 1,
          [&]() -> std::vector<std::optional<Tensor>> {
            if (!input) {
              Tensor ones = Tensor::full({arg(1).shape().back()}, 1.0f);
              return {std::nullopt, layerNormBackward(arg(0), arg(1), &ones,
                                                      nullptr, in.value)
                                        .weight};
            }
            auto g =
                layerNormBackward(arg(0), arg(1), &arg(2), nullptr, in.value);
            return {std::move(g.x), std::move(g.weight)};
          });
    }
    case Opcode::RMSNormGradInput:
    case Opcode::RMSNormGradWeight: {
      bool input = in.op == Opcode::RMSNormGradInput;
      return f.sharedGrad(
          {kRMSNormGrads, in.operands[0], in.operands[1]}, input ? 0 : 1,
          [&]() -> std::vector<std::optional<Tensor>> {
            if (!input) {
              Tensor ones = Tensor::full({arg(1).shape().back()}, 1.0f);
              return {std::nullopt,
                      rmsNormBackward(arg(0), arg(1), &ones, in.value).weight};
            }
            auto g = rmsNormBackward(arg(0), arg(1), &arg(2), in.value);
            return {std::move(g.x), std::move(g.weight)};
          });
    }
    case Opcode::EmbeddingGrad:
      return embeddingBackward(arg(0), arg(1), arg(2).shape()[0]);
    case Opcode::EmbeddingGradMasked:
      // This rank holds rows [offset, offset + local rows) of the vocab.
      return embeddingMaskedBackward(arg(0), arg(1), arg(2).shape()[0],
                                     f.chunkOf(in.size, in.axes).offset);
    case Opcode::SoftmaxGrad:
      return softmaxBackward(arg(0), arg(1), in.dim);
    case Opcode::RotaryGrad:
      return rotaryBackward(arg(0), 0, in.value);
    // The first of the three computes all (the probabilities once); the
    // others take theirs.
    case Opcode::AttentionGradQ:
    case Opcode::AttentionGradK:
    case Opcode::AttentionGradV: {
      size_t which = in.op == Opcode::AttentionGradQ   ? 0
                     : in.op == Opcode::AttentionGradK ? 1
                                                       : 2;
      std::vector<int> key{kAttentionGrads, in.causal};
      key.insert(key.end(), in.operands.begin(), in.operands.end());
      return f.sharedGrad(
          std::move(key), which, [&]() -> std::vector<std::optional<Tensor>> {
            auto g =
                attentionBackward(arg(0), arg(1), arg(2), arg(3), in.causal);
            return {std::move(g.gq), std::move(g.gk), std::move(g.gv)};
          });
    }
    case Opcode::ReduceSumGrad:
      return reduceSumBackward(arg(0), arg(1).shape(), in.dim);
    case Opcode::ReduceMaxGrad:
      return reduceMaxBackward(arg(0), arg(1), in.dim);
    case Opcode::CrossEntropyGrad:
      checkNoIgnoredRows(arg(2), in.size);
      return overCount(crossEntropyBackward(arg(1), arg(2), arg(0)),
                       arg(2).numel(), in.size);
    case Opcode::TargetLogitGrad:
      return targetLogitBackward(
          arg(0), arg(2), arg(1).shape()[1],
          in.axes.empty() ? 0 : f.chunkOf(in.size, in.axes).offset);
    case Opcode::SumSquares: {
      double total = 0;
      for (size_t i = 0; i < in.operands.size(); ++i)
        total += sumOfSquares(arg(i));
      return Tensor::full({}, static_cast<float>(total));
    }
    case Opcode::ClipCoefficient:
      return Tensor::full({}, rt::clipCoefficient(arg(0).at(0), in.value));
    case Opcode::Dropout:
    case Opcode::DropoutGrad: {
      // The mask of (seed, step, FQN, global index): the backward draws the
      // forward's again.
      rt::DropoutKey key;
      key.seed = f.data->seed;
      key.step = f.step;
      key.fqn = in.name;
      key.p = in.value;
      return dropout(arg(0), key, in.shape,
                     f.shardOffsets(in.shape, in.shardDims));
    }
    default:
      break;
    }
  }
  throw std::runtime_error(std::string("the ") + B::kName +
                           " backend has no kernel for " + in.origin);
}

/// Steps \p p, the value of optimizer update \p in's parameter (host
/// tensors), by runtime::sgdStep or adamwStep, whose state (zero at first)
/// the frame keeps by FQN.
template <class B>
void optimizerUpdate(const Instruction &in, Frame<B> &f, Tensor &p) {
  const Tensor &g = f.at(in.operands[1]);
  auto state = [&](const char *what) -> Tensor & {
    std::shared_ptr<void> &s = (*f.optimizerState)[in.name + "." + what];
    if (!s) {
      s = std::make_shared<Tensor>(p.shape(), p.dtype());
      f.optimizerBytes += static_cast<int64_t>(p.bytes());
    }
    return *std::static_pointer_cast<Tensor>(s);
  };
  const std::vector<double> &h = in.hyper;
  if (in.op == Opcode::SGDUpdate) {
    rt::SGDOptions o;
    o.lr = static_cast<float>(h[0]);
    o.momentum = static_cast<float>(h[1]);
    o.dampening = static_cast<float>(h[2]);
    o.weightDecay = static_cast<float>(h[3]);
    o.nesterov = h[4] != 0;
    rt::sgdStep(p, g, o.momentum > 0 ? &state("momentum_buffer") : nullptr,
                f.step, o);
  } else {
    rt::AdamWOptions o;
    o.lr = static_cast<float>(h[0]);
    o.beta1 = static_cast<float>(h[1]);
    o.beta2 = static_cast<float>(h[2]);
    o.eps = static_cast<float>(h[3]);
    o.weightDecay = static_cast<float>(h[4]);
    rt::adamwStep(p, g, state("exp_avg"), state("exp_avg_sq"), f.step, o);
  }
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_RUNKERNEL_H
