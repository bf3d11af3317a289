//===- Frame.h - one rank's state while a program runs ---------*- C++ -*-===//
//
// Private to lib/Executor, for Interpreter.h: the state of one rank while a
// program runs (Frame: its slots, communicators, data and RankState).
// the kernels (KernelTable.h, Kernels/) compute on it;
// Interpreter.h's loop executes the instructions; its header comment says
// what a backend provides.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_FRAME_H
#define TP_LIB_EXECUTOR_FRAME_H

#include "CommWorker.h"
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
  /// resident parameter). Buffers are never written after they are set,
  /// except an async collective's result, which nothing reads before
  /// awaitSlot.
  std::vector<std::shared_ptr<Buffer>> slots;
  /// Whether the slot's buffer is a resident parameter (kept after the run).
  std::vector<bool> resident;
  const ProgramData *program = nullptr;
  rt::Communicator *world = nullptr;
  Groups ownGroups;
  const Groups *groups = nullptr;
  std::vector<int64_t> coords;
  const DataSource *data = nullptr;
  std::unique_ptr<rt::WeightFiles> weights;
  std::unique_ptr<rt::SafetensorsFile> inputs;
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

  /// The communicators of the async collectives (one per group, besides
  /// those of `groups`), when this rank overlaps them (runProgram).
  Groups ownAsyncGroups;
  const Groups *asyncGroups = nullptr;
  /// Where the calls of async collectives count, by phase (null: nowhere).
  PhaseCounts *byPhase = nullptr;
  /// The async collectives started and not yet awaited, by result slot,
  /// with their phase.
  std::map<int, std::pair<CommWorker::Ticket, Phase>> pending;
  /// Waits for the async collective whose result is slot \p s, if one is
  /// pending: rethrows what it threw, counts its calls in its phase.
  void awaitSlot(int s) {
    auto it = pending.find(s);
    if (it == pending.end())
      return;
    auto [ticket, phase] = it->second;
    pending.erase(it);
    CommWorker::Counts counts = worker->wait(ticket);
    if (byPhase)
      for (auto &[name, n] : counts)
        (*byPhase)[phaseName(phase)][name] += n;
  }
  /// Waits for every pending async collective.
  void awaitAll() {
    while (!pending.empty())
      awaitSlot(pending.begin()->first);
  }
  /// The rank's communication thread. Last, so that it finishes (and
  /// stops touching buffers and communicators) before the members above
  /// go.
  std::unique_ptr<CommWorker> worker;
};

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_FRAME_H
