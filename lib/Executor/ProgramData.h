//===- ProgramData.h - what a compiled program holds ------------*- C++ -*-===//
//
// The compiled program as the compiler leaves it and every interpreter reads
// it, and what a RankState keeps between runs. Private to lib/Executor; no
// MLIR here (the interpreters include it).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_PROGRAMDATA_H
#define TP_LIB_EXECUTOR_PROGRAMDATA_H

#include "tp/Executor/Executor.h"
#include "tp/Runtime/Generic.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mlir::tp::exec::detail {

namespace rt = ::mlir::tp::runtime;

struct ProgramData {
  /// The function's name, for the printer.
  std::string name;
  std::vector<int64_t> meshShape{1};
  std::vector<SlotType> slots;
  std::vector<Instruction> instrs;
  std::vector<int> inputSlots;
  std::vector<int> resultSlots;
  std::vector<ParamInfo> params;
  /// The values of the model.constant ops, by Instruction::param.
  std::vector<runtime::Tensor> constants;
  /// The loop nests of the model.generic ops, by Instruction::param.
  std::vector<runtime::GenericSpec> generics;
  std::vector<InputInfo> inputs;
  std::vector<ResultLayout> results;
  /// The mesh axes of every group a collective runs on; each rank splits one
  /// sub-communicator per entry (except the whole mesh) before running.
  std::set<std::vector<int64_t>> axisGroups;
  /// The groups of the async collectives (Instruction::async): a rank that
  /// overlaps them opens a second communicator for each.
  std::set<std::vector<int64_t>> asyncAxisGroups;
  /// Static peak bytes per rank (see Program::peakBytes).
  int64_t peak = 0;

  /// The rank's index in the group of \p axes (row-major over those axes).
  int64_t groupIndex(const std::vector<int64_t> &coords,
                     const std::vector<int64_t> &axes) const {
    int64_t idx = 0;
    for (int64_t a : axes)
      idx = idx * meshShape[a] + coords[a];
    return idx;
  }
  int64_t groupSize(const std::vector<int64_t> &axes) const {
    int64_t n = 1;
    for (int64_t a : axes)
      n *= meshShape[a];
    return n;
  }
  int64_t numRanks() const {
    int64_t n = 1;
    for (int64_t d : meshShape)
      n *= d;
    return n;
  }
  /// This rank's mesh coordinates (row-major rank numbering).
  std::vector<int64_t> coordsOf(int64_t rank) const {
    std::vector<int64_t> coords(meshShape.size(), 0);
    for (int64_t a = static_cast<int64_t>(meshShape.size()) - 1; a >= 0; --a) {
      coords[a] = rank % meshShape[a];
      rank /= meshShape[a];
    }
    return coords;
  }
};

/// The box of its parameter that a ParamChunk instruction loads on the rank
/// at \p coords, as at most one slice per dim: the instruction's cuts in
/// order, `axes[i]` cutting dim `shardDims[i]` (`dim` for every axis where
/// shardDims is empty) of what the cuts before left, by torch.chunk rules.
inline std::vector<Slice> paramChunkSlices(const ProgramData &P,
                                           const Instruction &in,
                                           const std::vector<int64_t> &coords) {
  const std::vector<int64_t> &shape = P.params[in.param].globalShape;
  std::vector<int64_t> offsets(shape.size(), 0), sizes(shape);
  std::vector<int64_t> order; // the dims cut, first cut first
  for (size_t i = 0; i < in.axes.size(); ++i) {
    int64_t d = in.shardDims.empty() ? in.dim : in.shardDims[i];
    int64_t a = in.axes[i];
    rt::Chunk c = rt::chunkOf(sizes[d], P.meshShape[a], coords[a]);
    offsets[d] += c.offset;
    sizes[d] = c.size;
    if (std::find(order.begin(), order.end(), d) == order.end())
      order.push_back(d);
  }
  std::vector<Slice> slices;
  for (int64_t d : order)
    slices.push_back(Slice{d, offsets[d], sizes[d]});
  return slices;
}

/// What one rank keeps between runs when it is given a RankState: the
/// communicators of its mesh axis groups and its loaded parameters.
struct RankStateImpl {
  /// The program and the backend ("host", "device") of the first run: the
  /// kept buffers are of that backend.
  const ProgramData *program = nullptr;
  const char *backend = nullptr;
  rt::Communicator *world = nullptr;
  std::map<std::vector<int64_t>, std::unique_ptr<rt::Communicator>> groups;
  /// The communicators of the async collectives' groups (Frame).
  std::map<std::vector<int64_t>, std::unique_ptr<rt::Communicator>> asyncGroups;
  /// One entry per parameter (a Buffer of the backend), indexed like
  /// ProgramData::params.
  std::vector<std::shared_ptr<void>> params;
  int64_t paramBytes = 0;
  /// Training: the parameters the last run's optimizer updates produced,
  /// keyed by the slot that read the parameter (the update's operand 0);
  /// later runs take them instead of running that slot's instruction.
  std::map<int, std::shared_ptr<void>> updated;
  /// The optimizers' state (momentum buffers, moments) by FQN and name, and
  /// its bytes.
  std::map<std::string, std::shared_ptr<void>> optimizerState;
  int64_t optimizerBytes = 0;
  /// Whether runs return the updated parameters (RankState::
  /// setReturnsUpdated).
  bool returnsUpdated = true;
  /// Runs so far: the optimizer step of the current run is this + 1.
  int64_t runs = 0;
};

/// Resuming from \p ckpt: the optimizer state of the rank at \p coords,
/// its boxes read from the checkpoint into \p optimizerState (by the names
/// the updates use). Returns its bytes. Throws std::runtime_error naming the
/// checkpoint and the tensor when one is missing or of another shape.
int64_t resumeOptimizerState(
    const ProgramData &program, const Checkpoint &ckpt,
    const std::vector<int64_t> &coords,
    std::map<std::string, std::shared_ptr<void>> &optimizerState);

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_PROGRAMDATA_H
