//===- Launchers.h - The backends' launchers (private to lib/Launch) ------===//
//
// One factory per backend for Launcher::create, and what the launchers of
// one process per rank share: gathering every rank's results to rank 0.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_LAUNCH_LAUNCHERS_H
#define TP_LIB_LAUNCH_LAUNCHERS_H

#include "tp/Executor/Checkpoint.h"
#include "tp/Launch/Launcher.h"
#include "tp/Runtime/MemoryMeter.h"

#include <algorithm>
#include <chrono>
#include <type_traits>

namespace mlir::tp::exec::detail {

/// Rank threads of this process on the CPU (--backend threads).
std::unique_ptr<Launcher> createThreadLauncher(LaunchOptions options);

/// One MPI process per rank (--backend mpi); MPI builds only.
std::unique_ptr<Launcher> createMPILauncher(LaunchOptions options, int *argc,
                                            char ***argv);
/// The world communicator of a launcher createMPILauncher made.
runtime::Communicator &mpiWorld(Launcher &launcher);

/// Ranks on CUDA devices: rank threads sharing one GPU (--device cuda with
/// threads) or one NCCL process per GPU (--backend nccl); CUDA builds only.
std::unique_ptr<Launcher> createDeviceLauncher(LaunchOptions options, int *argc,
                                               char ***argv);

/// An all-gather of \p count elements of \p dtype in host memory, as the
/// job's backend moves them.
using HostAllGather = std::function<void(const void *in, size_t count,
                                         void *out, runtime::DType dtype)>;

/// What one rank's tensors occupied at their peak over a run's steps:
/// `live`, the executor's count of live values (RankState's parameters and
/// optimizer state included; on a GPU, device buffers), and `allocated`,
/// every host Tensor buffer the rank's thread allocated, as a
/// runtime::MemoryMeter measured it (kernel temporaries, widened copies,
/// collective buffers, loaded inputs included).
struct RankPeaks {
  int64_t live = 0;
  int64_t allocated = 0;
};

/// One rank's run of the program: its local results, and its peaks and
/// collectives (in all, and by phase) through the pointers.
using RankRun = std::function<std::vector<Tensor>(
    runtime::Communicator &comm, RankPeaks *peaks,
    runtime::CollectiveStats *stats, PhaseCounts *byPhase)>;

/// Saves the training state \p state of this rank (comm.rank()) after
/// optimizer step \p step as a checkpoint under save.dir, together with the
/// other ranks of \p comm: rank 0 prepares the directory, every rank
/// writes its shards, rank 0 writes the metadata and renames it into place.
/// Every rank throws if any failed (naming it). Returns the checkpoint's
/// directory.
std::string saveCheckpoint(const Program &program, const RankState &state,
                           runtime::Communicator &comm, int64_t step,
                           const CheckpointSaving &save);

/// One rank's `steps` runs of \p program (a Program or DeviceProgram) with
/// one RankState, so parameters and optimizer state stay resident between
/// them (a single run uses none, unless it resumes or saves); run k reads
/// step k's inputs (DataSource::step: batch k of an inputs file holding one
/// per step; resumed, batch k of the steps after the checkpoint's).
/// Returns the last run's results and collectives (one step's) and the
/// peaks over all runs; each rank appends its own value of each run's loss
/// (its first result, when it is a scalar) to its entry of \p lossPieces
/// (indexed by rank; the launcher assembles them, assembleLosses), the
/// wall seconds of each run to its entry of \p stepSeconds (when given;
/// slowestSteps), and
/// rank 0 each checkpoint it saved (as \p save says, when given) to
/// \p saved. \p beforeStep (when given) is called before each step with
/// the rank and the step's number. With \p profiles (one entry per rank;
/// host programs), each rank adds its instructions' wall seconds of the
/// profiled steps (profiledSteps) to its entry.
template <class Prog>
RankRun runSteps(const Prog &program, const DataSource &data, int steps,
                 std::vector<std::vector<float>> *lossPieces,
                 std::vector<std::vector<double>> *stepSeconds,
                 const CheckpointSaving *save = nullptr,
                 std::vector<std::string> *saved = nullptr,
                 const std::function<void(int, int64_t)> *beforeStep = nullptr,
                 std::vector<std::vector<double>> *profiles = nullptr) {
  return [&program, &data, steps, lossPieces, stepSeconds, save, saved,
          beforeStep, profiles](runtime::Communicator &comm, RankPeaks *peaks,
                                runtime::CollectiveStats *stats,
                                PhaseCounts *byPhase) {
    runtime::MemoryMeter meter;
    runtime::MemoryMeter::Scope metered(meter);
    RankState state;
    std::vector<Tensor> out;
    DataSource stepData = data;
    bool saving = save && !save->dir.empty();
    // Optimizer steps taken before this run's first.
    int64_t start = data.checkpoint ? data.checkpoint->info().step : 0;
    bool keepState = steps > 1 || saving || data.checkpoint;
    for (int s = 0; s < steps; ++s) {
      stepData.step = start + s;
      if (beforeStep && *beforeStep)
        (*beforeStep)(comm.rank(), start + s + 1);
      if (stats)
        *stats = runtime::CollectiveStats();
      if (byPhase)
        byPhase->clear();
      // Only the last step's updated parameters are read.
      state.setReturnsUpdated(s == steps - 1);
      int64_t live = 0;
      out.clear(); // the last step's results are not read again
      RankState *kept = keepState ? &state : nullptr;
      auto began = std::chrono::steady_clock::now();
      if constexpr (std::is_same_v<Prog, Program>) {
        // The first of several steps loads the parameters: not profiled.
        std::vector<double> *times = profiles && (steps == 1 || s > 0)
                                         ? &(*profiles)[comm.rank()]
                                         : nullptr;
        out = program.run(comm, stepData, &live, stats, kept, byPhase, times);
      } else {
        out = program.run(comm, stepData, &live, stats, kept, byPhase);
      }
      if (stepSeconds)
        (*stepSeconds)[comm.rank()].push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          began)
                .count());
      if (peaks)
        peaks->live = std::max(peaks->live, live);
      if (lossPieces && !out.empty() && out[0].numel() == 1)
        (*lossPieces)[comm.rank()].push_back(out[0].at(0));
      int64_t done = start + s + 1;
      if (saving &&
          (s == steps - 1 || (save->every > 0 && done % save->every == 0))) {
        if constexpr (std::is_same_v<Prog, Program>) {
          std::string dir = saveCheckpoint(program, state, comm, done, *save);
          if (saved && comm.rank() == 0)
            saved->push_back(dir);
        } else {
          throw LaunchError("checkpoints are saved by CPU ranks only");
        }
      }
    }
    if (peaks)
      peaks->allocated = meter.peak();
    return out;
  };
}

/// Every step's loss from each rank's pieces (runSteps' lossPieces, indexed
/// by rank, the same number of steps each), assembled as \p program's
/// first result is: a replicated loss is rank 0's; a loss each rank holds a
/// piece of (a data-parallel forward's partial sum, when nothing reduces
/// it), the sum (or whatever its placements say) of the pieces.
inline std::vector<double>
assembleLosses(const Program &program,
               const std::vector<std::vector<float>> &pieces) {
  std::vector<double> losses;
  if (pieces.empty() || program.results().empty())
    return losses;
  const ResultLayout &layout = program.results()[0];
  bool replicated =
      std::all_of(layout.placements.begin(), layout.placements.end(),
                  [](const std::string &p) { return p == "R"; });
  for (size_t s = 0; s < pieces[0].size(); ++s) {
    if (replicated) {
      losses.push_back(pieces[0][s]);
      continue;
    }
    std::vector<Tensor> perRank;
    for (const std::vector<float> &rank : pieces)
      perRank.push_back(Tensor::full({}, s < rank.size() ? rank[s] : 0.0f));
    losses.push_back(program.assembleResult(0, perRank).at(0));
  }
  return losses;
}

/// Each step's wall milliseconds on the slowest rank, from every rank's
/// seconds per step (runSteps' stepSeconds, indexed by rank, the same
/// number of steps each).
inline std::vector<double>
slowestSteps(const std::vector<std::vector<double>> &seconds) {
  std::vector<double> ms;
  for (const std::vector<double> &rank : seconds) {
    ms.resize(std::max(ms.size(), rank.size()), 0.0);
    for (size_t s = 0; s < rank.size(); ++s)
      ms[s] = std::max(ms[s], rank[s] * 1e3);
  }
  return ms;
}

/// \p mine from every rank through \p allGather (as many values on every
/// rank), indexed by rank. Doubles travel as their 8 bytes (an all-gather
/// copies).
template <class T>
std::vector<std::vector<T>> gatherFromRanks(const HostAllGather &allGather,
                                            const std::vector<T> &mine,
                                            int64_t ranks) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  std::vector<std::vector<T>> out(ranks);
  if (mine.empty())
    return out; // empty on every rank: one program
  std::vector<T> all(mine.size() * static_cast<size_t>(ranks));
  allGather(mine.data(), mine.size(), all.data(),
            std::is_same_v<T, float> ? runtime::DType::F32
                                     : runtime::DType::I64);
  for (int64_t r = 0; r < ranks; ++r)
    out[r].assign(all.begin() + r * mine.size(),
                  all.begin() + (r + 1) * mine.size());
  return out;
}

/// The steps runSteps profiles of \p steps: all but the first of several.
inline int profiledSteps(int steps) { return steps > 1 ? steps - 1 : 1; }

/// Runs this process's rank of a job of one process per rank: synchronizes
/// the ranks over \p comm, zeroes its statistics, calls \p beforeRun (if
/// any) and times \p run. Every rank then gets the slowest rank's time and
/// the largest peak, rank 0 also every rank's results, each moved in its
/// own dtype through \p allGather. The collective counts are this rank's,
/// taken before the gathering.
RunResult runProcessRank(runtime::Communicator &comm,
                         const HostAllGather &allGather,
                         const std::function<void(int)> &beforeRun,
                         const RankRun &run);

/// Runs \p run as each of \p n rank threads that \p launch starts
/// (runtime::runRanks, gpu::runDeviceRanks) and collects what each returned.
RunResult runOnRankThreads(
    int n,
    const std::function<void(
        int, const std::function<void(runtime::Communicator &)> &)> &launch,
    const RankRun &run);

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_LAUNCH_LAUNCHERS_H
