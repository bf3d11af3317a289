//===- MPILauncher.cpp - One MPI process per rank (--backend mpi) ---------===//
//
// Built when the runtime has the MPI backend. This process is one rank of
// MPI_COMM_WORLD: every process lowers and runs the same program, rank 0
// reports, a failing rank aborts the whole job (its peers may be waiting
// for it in a collective) and every process exits with rank 0's code.
//
//===----------------------------------------------------------------------===//

#include "Launchers.h"

#include "tp/Runtime/MPICommunicator.h"

#include <iostream>

namespace rt = ::mlir::tp::runtime;

namespace mlir::tp::exec {
namespace {

class MPILauncher final : public Launcher {
public:
  MPILauncher(LaunchOptions options, int *argc, char ***argv)
      : Launcher(std::move(options)) {
    try {
      env = std::make_unique<rt::MPIEnvironment>(argc, argv);
      active = true;
      rt::MPIOptions mpiOptions;
      mpiOptions.checkCollectives = options_.checkCollectives;
      mpiOptions.timeout = options_.timeout;
      world = rt::MPICommunicator::world(mpiOptions);
    } catch (const std::exception &e) {
      fail(e.what());
    }
    if (requestedRanks_ > 0 && requestedRanks_ != world->size())
      fail("--np " + std::to_string(requestedRanks_) + " does not match the " +
           std::to_string(world->size()) +
           " MPI processes (leave --np out with --backend " + options_.backend +
           ")");
    requestedRanks_ = world->size();
  }

  ~MPILauncher() override {
    world.reset();
    env.reset();
  }

  bool isRoot() const override { return world->rank() == 0; }

  std::string ranksText() const override {
    return "the number of MPI processes (" + std::to_string(requestedRanks_) +
           ")";
  }

  void checkMeshRanks(int64_t meshRanks) const override {
    if (world->size() == 1 && !options_.numRanks && meshRanks > 1)
      throw LaunchError(
          "--backend " + options_.backend +
          " runs one rank per MPI process and this is the only process, but "
          "the mesh has " +
          std::to_string(meshRanks) + " ranks: launch it with `mpirun -np " +
          std::to_string(meshRanks) + " " + options_.toolName +
          " ... --backend " + options_.backend +
          "`, or give --np 1 to run it on one rank");
  }

  RunResult runSteps(const Program &program, const DataSource &data, int steps,
                     const CheckpointSaving &save) override {
    int64_t n = program.numRanks();
    if (n != world->size())
      throw LaunchError("the program's mesh has " + std::to_string(n) +
                        " ranks but " + std::to_string(world->size()) +
                        " MPI processes run it");
    int64_t peak = program.memoryPlan(steps).peakBytes,
            memory = rt::hostMemoryBytes();
    if (peak > memory)
      throw LaunchError("each rank needs " + std::to_string(peak) +
                        " bytes at its peak, more than this host's " +
                        std::to_string(memory) + " bytes of memory");
    std::vector<std::vector<float>> pieces(n);
    std::vector<std::vector<double>> stepSeconds(n);
    std::vector<std::string> saved;
    std::vector<std::vector<double>> profiles(options_.profile ? n : 0);
    detail::HostAllGather gather = [&](const void *in, size_t count,
                                       void *gathered, rt::DType dtype) {
      world->allGather(in, count, gathered, dtype);
    };
    RunResult result = detail::runProcessRank(
        *world, gather, options_.beforeRun,
        detail::runSteps(program, data, steps, &pieces, &stepSeconds, &save,
                         &saved, &options_.beforeStep,
                         options_.profile ? &profiles : nullptr));
    result.checkpoints = std::move(saved);
    // Every rank's loss pieces, step times and instruction times to rank 0
    // (as many on every rank: one program).
    int me = world->rank();
    pieces = detail::gatherFromRanks(gather, pieces[me], n);
    stepSeconds = detail::gatherFromRanks(gather, stepSeconds[me], n);
    if (me == 0) {
      result.losses = detail::assembleLosses(program, pieces);
      result.stepMs = detail::slowestSteps(stepSeconds);
    }
    if (options_.profile) {
      profiles = detail::gatherFromRanks(gather, profiles[me], n);
      if (me == 0)
        result.instructionSeconds = std::move(profiles);
      result.profiledSteps = detail::profiledSteps(steps);
    }
    return result;
  }

  [[noreturn]] void fail(const std::string &message) override {
    if (!active)
      Launcher::fail(message);
    // One write, so that lines of several ranks do not interleave.
    std::cerr << options_.toolName + ": rank " +
                     std::to_string(rt::MPIEnvironment::worldRank()) +
                     " failed: " + message + "\n"
              << std::flush;
    rt::MPIEnvironment::abort(1);
  }

  int shareExitCode(int code) override {
    // The wait for rank 0's local work (assembly, verification) is
    // unbounded.
    world->setTimeout(std::chrono::milliseconds(0));
    int64_t v = code;
    world->broadcast(&v, 1, rt::DType::I64, 0);
    return static_cast<int>(v);
  }

  rt::MPICommunicator &communicator() { return *world; }

private:
  std::unique_ptr<rt::MPIEnvironment> env;
  std::unique_ptr<rt::MPICommunicator> world;
  /// Set once MPI is initialized: failures then abort every rank.
  bool active = false;
};

} // namespace

namespace detail {

std::unique_ptr<Launcher> createMPILauncher(LaunchOptions options, int *argc,
                                            char ***argv) {
  return std::make_unique<MPILauncher>(std::move(options), argc, argv);
}

runtime::Communicator &mpiWorld(Launcher &launcher) {
  return static_cast<MPILauncher &>(launcher).communicator();
}

} // namespace detail
} // namespace mlir::tp::exec
