//===- Frame.h - one rank's state and the kernels of its instructions ----===//
//
// Private to lib/Executor, for Interpreter.h: the state of one rank while a
// program runs (Frame: its slots, communicators, data and RankState) and
// what each kernel instruction computes on a backend B (runKernel, and the
// optimizer updates on host tensors). Interpreter.h's loop executes the
// instructions with them; its header comment says what a backend provides.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_FRAME_H
#define TP_LIB_EXECUTOR_FRAME_H

#include "ProgramData.h"

#include "tp/Runtime/GradKernels.h"
#include "tp/Runtime/Optimizers.h"
#include "tp/Runtime/Safetensors.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace mlir::tp::exec::detail {

using Groups =
    std::map<std::vector<int64_t>, std::unique_ptr<rt::Communicator>>;

/// Per-rank state while a program runs.
template <class B> struct Frame {
  using Buffer = typename B::Buffer;

  /// Value slots; a slot may share its buffer with the RankState (a
  /// resident parameter). Buffers are never written after they are set.
  std::vector<std::shared_ptr<Buffer>> slots;
  /// Whether the slot's buffer is a resident parameter (kept after the run).
  std::vector<bool> resident;
  const ProgramData *program = nullptr;
  rt::Communicator *world = nullptr;
  Groups ownGroups;
  const Groups *groups = nullptr;
  std::vector<int64_t> coords;
  const DataSource *data = nullptr;
  std::unique_ptr<rt::SafetensorsFile> weights, inputs;
  RankStateImpl *state = nullptr;
  /// The optimizer step of this run (1 without a RankState) and the
  /// optimizers' state: the RankState's, or this run's own.
  int64_t step = 1;
  std::map<std::string, std::shared_ptr<void>> ownOptimizerState;
  std::map<std::string, std::shared_ptr<void>> *optimizerState =
      &ownOptimizerState;
  /// Bytes of optimizer state created by this run (counted as live from
  /// then on; a RankState's earlier state counts from the start).
  int64_t optimizerBytes = 0;
  /// The parameter index of each slot holding a parameter (or -1).
  std::vector<int> paramOf;
  /// Gradients that one kernel computes together (attention's three, a
  /// norm's input and weight gradients): the first of their instructions
  /// computes them and keeps the others here until theirs take them, keyed
  /// by the kernel and the operand slots they share (a slot holds one value
  /// per run, so a key names no other values). Host tensors.
  std::map<std::vector<int>, std::vector<std::optional<Tensor>>> sharedGrads;

  const Buffer &at(int s) const { return *slots[s]; }
  void set(int s, Buffer b) {
    slots[s] = std::make_shared<Buffer>(std::move(b));
  }
  /// Slot \p s's buffer, moved out if nothing else holds it.
  Buffer take(int s) {
    if (slots[s].use_count() == 1)
      return std::move(*slots[s]);
    return B::clone(*slots[s]);
  }
  /// Whether \p in is the last reader of its operand \p i and the frame
  /// alone holds that buffer (not resident, not shared, read once by \p in):
  /// \p in may then take the buffer (takeOperand) instead of copying it.
  bool dyingOperand(const Instruction &in, size_t i) const {
    int s = in.operands[i];
    return !resident[s] && slots[s].use_count() == 1 &&
           std::count(in.operands.begin(), in.operands.end(), s) == 1 &&
           std::find(in.frees.begin(), in.frees.end(), s) != in.frees.end();
  }
  /// Moves operand \p i's buffer out (dyingOperand(in, i) must hold); the
  /// loop frees the emptied slot after \p in.
  Buffer takeOperand(const Instruction &in, size_t i) {
    return std::move(*slots[in.operands[i]]);
  }
  /// Whether the update \p in may step its parameter (operand 0) in place:
  /// \p in is its last reader and nothing holds the buffer but the frame
  /// and the RankState entries the update replaces (the parameter's last
  /// value: loaded, or updated by the last run).
  bool updatableInPlace(const Instruction &in) const {
    int s = in.operands[0];
    if (std::count(in.operands.begin(), in.operands.end(), s) != 1 ||
        std::find(in.frees.begin(), in.frees.end(), s) == in.frees.end())
      return false;
    long holders = 1;
    if (state) {
      auto it = state->updated.find(s);
      if (it != state->updated.end() && it->second.get() == slots[s].get())
        ++holders;
      int p = paramOf[s];
      if (p >= 0 && p < static_cast<int>(state->params.size()) &&
          state->params[p].get() == slots[s].get())
        ++holders;
    }
    return slots[s].use_count() == holders;
  }
  /// Gradient \p which of a kernel that computes several at once (see
  /// sharedGrads): kept from an earlier instruction under \p key, or from
  /// `computeAll()` (a vector of them, some possibly absent), whose others
  /// are kept for the instructions after.
  template <class Fn>
  Tensor sharedGrad(std::vector<int> key, size_t which, Fn computeAll) {
    auto it = sharedGrads.find(key);
    if (it == sharedGrads.end() || !it->second[which])
      it = sharedGrads.insert_or_assign(std::move(key), computeAll()).first;
    Tensor t = std::move(*it->second[which]);
    it->second[which].reset();
    if (std::none_of(
            it->second.begin(), it->second.end(),
            [](const std::optional<Tensor> &v) { return v.has_value(); }))
      sharedGrads.erase(it);
    return t;
  }
  /// The communicator of the group of ranks that differ only on \p axes.
  rt::Communicator &comm(const std::vector<int64_t> &axes) const {
    if (axes.size() == program->meshShape.size())
      return *world;
    return *groups->at(axes);
  }
  /// This rank's torch.chunk of \p n over the group of \p axes.
  rt::Chunk chunkOf(int64_t n, const std::vector<int64_t> &axes) const {
    return rt::chunkOf(n, program->groupSize(axes),
                       program->groupIndex(coords, axes));
  }

  /// The offset of each dim of this rank's shard of a tensor of
  /// \p globalShape whose dims the mesh axes shard as \p shardDims says (one
  /// per axis, -1: none): nested torch.chunk pieces in mesh order, as
  /// tp-partition cuts.
  std::vector<int64_t>
  shardOffsets(const std::vector<int64_t> &globalShape,
               const std::vector<int64_t> &shardDims) const {
    std::vector<int64_t> offsets(globalShape.size(), 0), sizes = globalShape;
    for (size_t a = 0; a < shardDims.size(); ++a) {
      int64_t d = shardDims[a];
      if (d < 0)
        continue;
      rt::Chunk c = rt::chunkOf(sizes[d], program->meshShape[a], coords[a]);
      offsets[d] += c.offset;
      sizes[d] = c.size;
    }
    return offsets;
  }

  /// Sets parameter \p index's value into slot \p out: the resident one if
  /// the RankState has it, else `load()` (kept resident when there is a
  /// RankState).
  template <class Fn> void loadParam(int out, size_t index, Fn load) {
    paramOf[out] = static_cast<int>(index);
    if (state && index < state->params.size() && state->params[index]) {
      slots[out] = std::static_pointer_cast<Buffer>(state->params[index]);
      resident[out] = true;
      return;
    }
    set(out, B::fromHost(load()));
    if (state) {
      if (state->params.size() <= index)
        state->params.resize(index + 1);
      state->params[index] = slots[out];
      state->paramBytes += static_cast<int64_t>(slots[out]->bytes());
      resident[out] = true;
    }
  }
};

/// A mean over \p own elements (or rows) made a mean over \p count of them
/// (a shard's part of the global mean); \p count 0 keeps it.
template <class Buffer>
Buffer overCount(Buffer mean, int64_t own, int64_t count) {
  if (count == 0 || count == own)
    return mean;
  return scale(mean, static_cast<float>(static_cast<double>(own) /
                                        static_cast<double>(count)));
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
    case Opcode::Sub:
      return sub(arg(0), arg(1));
    case Opcode::Log:
      return log(arg(0));
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

#endif // TP_LIB_EXECUTOR_FRAME_H
