//===- Checkpoints.cpp - a job's ranks saving one checkpoint together -----===//
//
// The protocol around tp/Executor/Checkpoint.h's steps: rank 0 prepares the
// directory, every rank writes its own shards, rank 0 writes the metadata
// and renames the directory into place, and between the steps the ranks
// agree, so that one rank failing to write fails them all (naming it)
// instead of leaving them waiting or a checkpoint that loads.
//
//===----------------------------------------------------------------------===//

#include "Launchers.h"

#include <stdexcept>

using namespace mlir::tp;
using namespace mlir::tp::exec;

namespace rt = mlir::tp::runtime;

/// Runs \p step where \p runsIt (every rank, or rank 0), then makes the
/// ranks agree: if any failed, every rank throws the error of the lowest
/// failed rank, naming it in a job of several ranks.
template <class Fn>
static void together(rt::Communicator &comm, bool runsIt, Fn step) {
  std::string error;
  if (runsIt) {
    try {
      step();
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  // The lowest rank that failed, or the number of ranks.
  auto mine = static_cast<float>(error.empty() ? comm.size() : comm.rank());
  float first = 0;
  comm.allReduce(&mine, &first, 1, rt::ReduceOp::Min);
  if (first >= static_cast<float>(comm.size()))
    return;
  // Its message, for every rank to report (cut to a fixed length).
  auto root = static_cast<int>(first);
  std::string message(1024, '\0');
  if (comm.rank() == root)
    message.replace(0, std::min(error.size(), message.size() - 1), error);
  comm.broadcast(message.data(), message.size(), rt::DType::Bool, root);
  message.resize(message.find('\0'));
  throw std::runtime_error(comm.size() > 1
                               ? "rank " + std::to_string(root) + ": " + message
                               : message);
}

std::string detail::saveCheckpoint(const Program &program,
                                   const RankState &state,
                                   rt::Communicator &comm, int64_t step,
                                   const CheckpointSaving &save) {
  int rank = comm.rank();
  std::string partial = checkpointStepDir(save.dir, step) + ".partial";
  together(comm, rank == 0, [&] { checkpoint_save::begin(save.dir, step); });
  together(comm, true, [&] {
    checkpoint_save::writeRank(partial, rank,
                               program.stateShards(rank, &state));
  });
  std::string final;
  together(comm, rank == 0, [&] {
    CheckpointInfo info;
    info.step = step;
    info.seed = save.seed;
    info.meshShape = program.meshShape();
    info.numRanks = program.numRanks();
    info.plan = save.plan;
    std::vector<std::vector<StateShard>> layout;
    for (int64_t r = 0; r < program.numRanks(); ++r)
      layout.push_back(program.stateShards(r));
    final = checkpoint_save::finish(partial, info, layout);
  });
  return rank == 0 ? final : checkpointStepDir(save.dir, step);
}
