//===- Launcher.h - start a program's ranks and collect their results ----===//
//
// How a compiled program reaches its ranks: as threads of this process on
// the CPU, as rank threads sharing one GPU, as one MPI process per rank, or
// as one NCCL process per GPU. A Launcher checks the options of one of those
// backends, sets it up (MPI, the NCCL id), runs a Program on the job's
// ranks and hands rank 0 every rank's results, so that a tool or an embedder
// runs a model with the same few calls whatever the backend. Backends that
// this build lacks are refused with the list of those it has.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LAUNCH_LAUNCHER_H
#define TP_LAUNCH_LAUNCHER_H

#include "tp/Executor/Executor.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tp::exec {

/// A problem with the launch: bad options, a backend that cannot start, a
/// mesh the job cannot run. The message names the option or the cause.
class LaunchError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Where and how the ranks of a job run (tp-run's backend options; an unset
/// optional is an option not given).
struct LaunchOptions {
  /// The program that launches, as messages name it ("tp-run").
  std::string toolName = "tp-run";
  /// "threads" (rank threads of this process), "mpi" (this process is one
  /// rank of MPI_COMM_WORLD) or "nccl" (this process is one rank on a GPU).
  std::string backend = "threads";
  /// "cpu" or "cuda"; unset: cpu, or cuda with nccl.
  std::optional<std::string> device;
  /// The number of ranks; unset: the program's mesh (with mpi: the number
  /// of processes).
  std::optional<int> numRanks;
  /// How long a rank waits in a collective before failing.
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  /// mpi and nccl: compare every collective call across ranks first.
  bool checkCollectives = true;
  /// The CUDA device: of every rank thread (threads on cuda), or of this
  /// process (nccl; unset: rank modulo the number of devices).
  std::optional<int> deviceId;
  /// nccl without MPI: the NCCL id through this file, or over TCP from
  /// rank 0 at this tcp://HOST:PORT address.
  std::string ncclIdFile, rendezvous;
  /// nccl with an id file or rendezvous: this process's rank and the number
  /// of processes (unset: $RANK and $WORLD_SIZE).
  std::optional<int> processRank, processCount;
  /// Called on every rank of an mpi job right before it runs the program,
  /// with its rank (after the ranks synchronized): a place for tests to
  /// inject a failure.
  std::function<void(int rank)> beforeRun;
  /// Likewise before each training step of an mpi job, with its number
  /// (from 1, counted from the first step of the whole training).
  std::function<void(int rank, int64_t step)> beforeStep;
  /// Time every instruction on every rank (RunResult::instructionSeconds;
  /// tp-run --profile). CPU ranks only.
  bool profile = false;

  /// Checks the options against each other and this build (and, for a GPU
  /// device, this machine); throws LaunchError naming the first problem.
  /// Launcher::create calls it.
  void check() const;
  /// The device the ranks compute on once defaults apply: "cpu" or "cuda".
  std::string resolvedDevice() const;
};

/// The backends this build has, in the order errors list them ("threads",
/// then "mpi" and "nccl" where built).
std::vector<std::string> availableBackends();

/// The checkpoints a training run saves (tp-run --save-checkpoint;
/// tp/Executor/Checkpoint.h says what one holds).
struct CheckpointSaving {
  /// The directory they go under, one "<dir>/step-<N>" per save; empty:
  /// none.
  std::string dir;
  /// Save after every `every` optimizer steps (counted from the first step
  /// of the whole training, resumed runs included), and after the last
  /// step; 0: after the last step only.
  int64_t every = 0;
  /// What the metadata records of the run: its seed and plan (JSON text).
  uint64_t seed = 0;
  std::string plan;
};

/// A finished run as rank 0 of the job sees it.
struct RunResult {
  /// Every rank's local results, indexed by rank (empty on other ranks of
  /// an mpi or nccl job).
  std::vector<std::vector<Tensor>> perRank;
  /// The program's collectives on rank 0 in one run (the last step), per
  /// collective name, and the same by phase of a training step.
  std::map<std::string, int64_t> collectives;
  PhaseCounts collectivesByPhase;
  /// The largest peak of live tensor bytes over the ranks (the executor's
  /// count of live values; on GPUs, of device buffers).
  int64_t peakBytes = 0;
  /// The largest peak over the ranks of the host tensor memory a rank
  /// allocated, as runtime::MemoryMeter measured it: every Tensor buffer
  /// (kernel temporaries, widened copies, collective buffers and loaded
  /// inputs too). Host buffers only: a GPU rank's device memory is in
  /// peakBytes.
  int64_t allocatedPeakBytes = 0;
  /// Wall time of the slowest rank, in milliseconds (all steps).
  double ms = 0;
  /// Each step's wall time on the slowest rank, in milliseconds (rank 0
  /// only, as perRank): the executor's run of the step's program, without
  /// the checkpoints saved after it. The first step of several loads the
  /// parameters and allocates what later steps reuse.
  std::vector<double> stepMs;
  /// The loss of every step (the first result, when it is a scalar), as
  /// rank 0 computed it.
  std::vector<double> losses;
  /// The checkpoint directories the run saved, in order.
  std::vector<std::string> checkpoints;
  /// With LaunchOptions::profile (rank 0 only, as perRank): each rank's
  /// wall seconds per instruction (indexed like Program::instructions(),
  /// Program::run's instructionSeconds), summed over the profiled steps:
  /// every step but the first when there are several (the first loads the
  /// parameters and allocates what later steps reuse), else the one.
  std::vector<std::vector<double>> instructionSeconds;
  int profiledSteps = 0;

  /// The global value of each result, assembled from every rank's pieces
  /// (rank 0 only).
  std::vector<Tensor> assemble(const Program &program) const;
};

/// This process's part in a job of one backend.
class Launcher {
public:
  /// Checks \p options (LaunchOptions::check) and starts the backend: with
  /// mpi (and nccl sharing its id over MPI) MPI is initialized from \p argc
  /// and \p argv and this process becomes one rank of the job. Throws
  /// LaunchError.
  static std::unique_ptr<Launcher> create(LaunchOptions options, int *argc,
                                          char ***argv);
  virtual ~Launcher();

  const LaunchOptions &options() const { return options_; }
  /// Whether this process reports for the job (its rank 0; always with
  /// threads).
  virtual bool isRoot() const { return true; }
  /// The number of ranks the job asks for: --np, the number of MPI
  /// processes or of NCCL processes; 0 when the program's mesh decides.
  int requestedRanks() const { return requestedRanks_; }
  /// How errors name where requestedRanks() comes from: "--np 4", or "the
  /// number of MPI processes (4)".
  virtual std::string ranksText() const;
  /// Checks that this job can run a mesh of \p meshRanks ranks before it is
  /// lowered: an mpi job of one process, started without mpirun and without
  /// --np, is refused with how to launch it. Throws LaunchError.
  virtual void checkMeshRanks(int64_t meshRanks) const;
  /// Runs \p program \p steps times on the job's ranks (as many as its mesh
  /// has; throws LaunchError if the job has another number), keeping each
  /// rank's parameters and optimizer state between the steps; step k reads
  /// its batch of inputs (DataSource::step). Every rank
  /// gets the time and peak of the slowest; rank 0 every rank's results of
  /// the last step, and every step's loss. Before any rank starts it checks
  /// \p steps (at least 1) and that the data's inputs file gives every
  /// input a batch for each step (DataSource::checkInputs), so a bad file
  /// is one error here instead of a failure inside the ranks.
  ///
  /// With data.checkpoint the run resumes from it: its first step is the
  /// one after the checkpoint's (it reads that step's batch of a per-step
  /// inputs file). With \p save.dir it saves checkpoints as \p save says;
  /// a rank that cannot write its part fails every rank, and the save's
  /// directory is not left loadable. Checkpoints are of CPU ranks only.
  RunResult run(const Program &program, const DataSource &data, int steps = 1,
                const CheckpointSaving &save = {});
  /// Reports \p message as a failure of options().toolName and ends the
  /// process; in an mpi job it names the rank and aborts every process of
  /// the job, which may be waiting for this one in a collective.
  [[noreturn]] virtual void fail(const std::string &message);
  /// The exit code every process of the job returns: rank 0's \p code.
  virtual int shareExitCode(int code) { return code; }

protected:
  explicit Launcher(LaunchOptions options);
  /// What run() does once its checks pass: runs \p program \p steps times
  /// on this backend's ranks.
  virtual RunResult runSteps(const Program &program, const DataSource &data,
                             int steps, const CheckpointSaving &save) = 0;
  LaunchOptions options_;
  int requestedRanks_ = 0;
};

/// Checks that \p n rank threads fit in this process (the thread limit and
/// \p peakBytes of memory each); \p what names where \p n comes from.
/// Throws LaunchError.
void checkRankThreads(int64_t n, int64_t peakBytes, const std::string &what);

} // namespace mlir::tp::exec

#endif // TP_LAUNCH_LAUNCHER_H
