//===- Launcher.cpp - Launch options, the factory and rank threads --------===//
//
// The checks every launch makes before anything starts, the factory that
// picks a backend's launcher, the threads launcher (the default) and what
// the launchers share: running ranks as threads and gathering the results
// of one process per rank.
//
//===----------------------------------------------------------------------===//

#include "Launchers.h"

#include "tp/Runtime/Rendezvous.h"
#include "tp/Runtime/ThreadCommunicator.h"
#ifndef TP_HAVE_MPI
#define TP_HAVE_MPI 0
#endif
#if TP_HAVE_CUDA
#include "tp/Runtime/CUDA.h"
#endif

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <mutex>

namespace rt = ::mlir::tp::runtime;

namespace mlir::tp::exec {

namespace {

constexpr bool kHaveMPI = TP_HAVE_MPI;
#if TP_HAVE_CUDA
constexpr bool kHaveCUDA = true;
#else
constexpr bool kHaveCUDA = false;
#endif

/// A non-negative integer from the environment variable \p name, or -1.
int envRank(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return -1;
  char *end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end || x < 0 || x > 1 << 20)
    throw LaunchError(std::string("$") + name +
                      " is not a rank count or index: '" + v + "'");
  return static_cast<int>(x);
}

/// The threads backend: every rank is a thread of this process.
class ThreadLauncher final : public Launcher {
public:
  explicit ThreadLauncher(LaunchOptions options)
      : Launcher(std::move(options)) {}

  RunResult runSteps(const Program &program, const DataSource &data, int steps,
                     const CheckpointSaving &save) override {
    int64_t n = program.numRanks();
    checkRankThreads(n, program.memoryPlan(steps).peakBytes,
                     "the program's mesh of " + std::to_string(n) + " ranks");
    auto timeout = options_.timeout;
    std::vector<std::vector<float>> pieces(n);
    std::vector<std::vector<double>> stepSeconds(n);
    std::vector<std::string> saved;
    std::vector<std::vector<double>> profiles(options_.profile ? n : 0);
    RunResult result = detail::runOnRankThreads(
        static_cast<int>(n),
        [timeout](int ranks,
                  const std::function<void(rt::Communicator &)> &fn) {
          rt::runRanks(ranks, fn, timeout);
        },
        detail::runSteps(program, data, steps, &pieces, &stepSeconds, &save,
                         &saved, nullptr,
                         options_.profile ? &profiles : nullptr));
    result.losses = detail::assembleLosses(program, pieces);
    result.stepMs = detail::slowestSteps(stepSeconds);
    result.checkpoints = std::move(saved);
    if (options_.profile) {
      result.instructionSeconds = std::move(profiles);
      result.profiledSteps = detail::profiledSteps(steps);
    }
    return result;
  }
};

} // namespace

std::vector<std::string> availableBackends() {
  std::vector<std::string> names{"threads"};
  if (kHaveMPI)
    names.push_back("mpi");
  if (kHaveCUDA)
    names.push_back("nccl");
  return names;
}

std::string LaunchOptions::resolvedDevice() const {
  if (backend == "nccl")
    return "cuda";
  return device.value_or("cpu");
}

/// This process's rank and the number of processes of --backend nccl with
/// an id file or a rendezvous: the options, else $RANK and $WORLD_SIZE.
static std::pair<int, int> ncclProcess(const LaunchOptions &o) {
  int rank = o.processRank ? *o.processRank : envRank("RANK");
  int nranks = o.processCount ? *o.processCount : envRank("WORLD_SIZE");
  if (rank < 0 || nranks < 1)
    throw LaunchError("--backend nccl with --nccl-id-file or --rendezvous "
                      "needs --rank and --nranks (or $RANK and $WORLD_SIZE)");
  if (rank >= nranks)
    throw LaunchError("--rank " + std::to_string(rank) +
                      " is out of range for " + std::to_string(nranks) +
                      " ranks");
  return {rank, nranks};
}

void LaunchOptions::check() const {
  std::vector<std::string> names = availableBackends();
  if (std::find(names.begin(), names.end(), backend) == names.end()) {
    std::string list;
    for (const std::string &name : names)
      list += (list.empty() ? "" : ", ") + name;
    throw LaunchError("backend '" + backend + "' is not available in this " +
                      "build (available: " + list + ")");
  }
  if (device && *device != "cpu" && *device != "cuda")
    throw LaunchError("--device must be cpu or cuda, not '" + *device + "'");
  if (backend == "nccl" && device && *device == "cpu")
    throw LaunchError("--backend nccl runs on CUDA devices, not --device cpu");
  if (profile && resolvedDevice() == "cuda")
    throw LaunchError("--profile times CPU ranks only (the GPU executor's "
                      "kernels run asynchronously)");
  if (backend == "mpi" && resolvedDevice() == "cuda")
    throw LaunchError("--backend mpi runs on the CPU; use --backend nccl for "
                      "GPUs");
  if (resolvedDevice() == "cuda" && !kHaveCUDA)
    throw LaunchError("--device cuda: this " + toolName +
                      " was built without CUDA and NCCL");
  bool idFlags =
      !ncclIdFile.empty() || !rendezvous.empty() || processRank || processCount;
  if (idFlags && backend != "nccl")
    throw LaunchError("--nccl-id-file, --rendezvous, --rank and --nranks "
                      "belong to --backend nccl");
  if (!ncclIdFile.empty() && !rendezvous.empty())
    throw LaunchError("give one of --nccl-id-file and --rendezvous, not both");
  if (!rendezvous.empty()) {
    try {
      rt::parseRendezvousAddress(rendezvous);
    } catch (const std::exception &e) {
      throw LaunchError(e.what());
    }
  }
  if (backend == "nccl" && (!ncclIdFile.empty() || !rendezvous.empty())) {
    int nranks = ncclProcess(*this).second;
    if (numRanks && *numRanks > 0 && *numRanks != nranks)
      throw LaunchError("--np " + std::to_string(*numRanks) +
                        " does not match --nranks " + std::to_string(nranks));
  }
  // Before MPI or any rendezvous: a machine without a usable GPU stops here.
#if TP_HAVE_CUDA
  std::string why;
  if (resolvedDevice() == "cuda" && !rt::cudaAvailable(&why))
    throw LaunchError((backend == "nccl" ? "--backend nccl" : "--device cuda") +
                      std::string(" needs a CUDA device: ") + why);
#endif
  if (numRanks && *numRanks <= 0)
    throw LaunchError("--np must be positive, got " +
                      std::to_string(*numRanks));
  if (backend == "threads" && numRanks)
    checkRankThreads(*numRanks, 0, "--np " + std::to_string(*numRanks));
  if (timeout.count() <= 0)
    throw LaunchError("--timeout must be positive");
  if (deviceId && *deviceId < 0)
    throw LaunchError(
        "--device-id must be a CUDA device number (0 or more), got " +
        std::to_string(*deviceId));
}

Launcher::Launcher(LaunchOptions options) : options_(std::move(options)) {
  requestedRanks_ = options_.numRanks.value_or(0);
}

Launcher::~Launcher() = default;

std::unique_ptr<Launcher> Launcher::create(LaunchOptions options, int *argc,
                                           char ***argv) {
  // check() refuses the backends this build lacks.
  options.check();
#if TP_HAVE_CUDA
  if (options.resolvedDevice() == "cuda") {
    if (options.backend == "nccl" &&
        (!options.ncclIdFile.empty() || !options.rendezvous.empty())) {
      auto [rank, nranks] = ncclProcess(options);
      options.processRank = rank;
      options.processCount = nranks;
    }
    return detail::createDeviceLauncher(std::move(options), argc, argv);
  }
#endif
#if TP_HAVE_MPI
  if (options.backend == "mpi")
    return detail::createMPILauncher(std::move(options), argc, argv);
#endif
  return std::make_unique<ThreadLauncher>(std::move(options));
}

RunResult Launcher::run(const Program &program, const DataSource &data,
                        int steps, const CheckpointSaving &save) {
  if (steps < 1)
    throw LaunchError("the number of steps must be at least 1, not " +
                      std::to_string(steps));
  // Before any rank starts: an inputs file names every input, with one
  // batch for all steps or one per step (a missing tensor or a short file
  // would otherwise fail inside the ranks, mid-run).
  if ((!save.dir.empty() || data.checkpoint) &&
      options_.resolvedDevice() != "cpu")
    throw LaunchError("checkpoints are saved and resumed by CPU ranks only, "
                      "not on " +
                      options_.resolvedDevice());
  if (save.every < 0)
    throw LaunchError("checkpoints every " + std::to_string(save.every) +
                      " steps: the interval must be 0 (the last step) or more");
  // A resumed run reads the batches after the checkpoint's step.
  int64_t start = data.checkpoint ? data.checkpoint->info().step : 0;
  data.checkInputs(program.inputs(), start + steps);
  return runSteps(program, data, steps, save);
}

std::string Launcher::ranksText() const {
  return "--np " + std::to_string(requestedRanks_);
}

void Launcher::checkMeshRanks(int64_t) const {}

void Launcher::fail(const std::string &message) {
  std::cerr << options_.toolName << ": error: " << message << std::endl;
  std::exit(1);
}

void checkRankThreads(int64_t n, int64_t peakBytes, const std::string &what) {
  std::string why;
  int limit = rt::maxThreadRanks(&why);
  if (n > limit)
    throw LaunchError(what + " asks for " + std::to_string(n) +
                      " rank threads, more than the limit of " +
                      std::to_string(limit) + " (" + why +
                      "); run more ranks with --backend mpi");
  int64_t memory = rt::hostMemoryBytes();
  if (peakBytes > 0 && n > memory / peakBytes)
    throw LaunchError(std::to_string(n) + " ranks of " +
                      std::to_string(peakBytes) +
                      " bytes each at their peak need more than this host's " +
                      std::to_string(memory) + " bytes of memory");
}

std::vector<Tensor> RunResult::assemble(const Program &program) const {
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < program.results().size(); ++i) {
    std::vector<Tensor> pieces;
    for (const std::vector<Tensor> &rank : perRank)
      pieces.push_back(rank.at(i));
    outputs.push_back(program.assembleResult(i, pieces));
  }
  return outputs;
}

namespace detail {

RunResult runOnRankThreads(
    int n,
    const std::function<
        void(int, const std::function<void(rt::Communicator &)> &)> &launch,
    const RankRun &run) {
  RunResult result;
  result.perRank.resize(n);
  std::mutex mutex;
  auto start = std::chrono::steady_clock::now();
  launch(n, [&](rt::Communicator &comm) {
    RankPeaks peaks;
    rt::CollectiveStats stats;
    PhaseCounts byPhase;
    std::vector<Tensor> out = run(comm, &peaks, &stats, &byPhase);
    std::lock_guard<std::mutex> lock(mutex);
    result.peakBytes = std::max(result.peakBytes, peaks.live);
    result.allocatedPeakBytes =
        std::max(result.allocatedPeakBytes, peaks.allocated);
    result.perRank[comm.rank()] = std::move(out);
    if (comm.rank() == 0) {
      result.collectives = stats.counts;
      result.collectivesByPhase = std::move(byPhase);
    }
  });
  result.ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  return result;
}

RunResult runProcessRank(rt::Communicator &comm, const HostAllGather &allGather,
                         const std::function<void(int)> &beforeRun,
                         const RankRun &run) {
  int n = comm.size(), me = comm.rank();
  comm.barrier();
  comm.resetStats();
  if (beforeRun)
    beforeRun(me);
  auto start = std::chrono::steady_clock::now();
  RankPeaks peaks;
  rt::CollectiveStats stats;
  PhaseCounts byPhase;
  std::vector<Tensor> out = run(comm, &peaks, &stats, &byPhase);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  RunResult result;
  result.collectives = stats.counts;
  result.collectivesByPhase = std::move(byPhase);

  // One descriptor per rank: time (in microseconds), the two peaks, then
  // each result's rank and dims (results have the same rank and dtype
  // everywhere; dims may differ when uneven).
  std::vector<int64_t> desc{static_cast<int64_t>(ms * 1000), peaks.live,
                            peaks.allocated};
  for (const Tensor &t : out) {
    desc.push_back(t.rank());
    desc.insert(desc.end(), t.shape().begin(), t.shape().end());
  }
  size_t len = desc.size();
  std::vector<int64_t> descs(len * n);
  allGather(desc.data(), len, descs.data(), rt::DType::I64);
  std::vector<std::vector<std::vector<int64_t>>> shapes(n);
  std::vector<int64_t> maxNumel(out.size(), 0);
  for (int r = 0; r < n; ++r) {
    const int64_t *d = descs.data() + r * len;
    result.ms = std::max(result.ms, static_cast<double>(d[0]) / 1000);
    result.peakBytes = std::max(result.peakBytes, d[1]);
    result.allocatedPeakBytes = std::max(result.allocatedPeakBytes, d[2]);
    size_t pos = 3;
    for (size_t i = 0; i < out.size(); ++i) {
      auto rank = static_cast<size_t>(d[pos++]);
      std::vector<int64_t> shape(d + pos, d + pos + rank);
      pos += rank;
      maxNumel[i] = std::max(maxNumel[i], rt::shapeNumel(shape));
      shapes[r].push_back(std::move(shape));
    }
  }

  // Each result in its own dtype, padded to its longest piece.
  if (me == 0)
    result.perRank.resize(n);
  for (size_t i = 0; i < out.size(); ++i) {
    rt::DType dtype = out[i].dtype();
    size_t elem = rt::dtypeSize(dtype);
    Tensor padded({maxNumel[i]}, dtype);
    std::copy_n(static_cast<const char *>(out[i].raw()), out[i].bytes(),
                static_cast<char *>(padded.raw()));
    Tensor gathered({maxNumel[i] * n}, dtype);
    allGather(padded.raw(), maxNumel[i], gathered.raw(), dtype);
    if (me != 0)
      continue;
    for (int r = 0; r < n; ++r) {
      Tensor t(shapes[r][i], dtype);
      std::copy_n(static_cast<const char *>(gathered.raw()) +
                      r * maxNumel[i] * elem,
                  t.bytes(), static_cast<char *>(t.raw()));
      result.perRank[r].push_back(std::move(t));
    }
  }
  return result;
}

} // namespace detail
} // namespace mlir::tp::exec
