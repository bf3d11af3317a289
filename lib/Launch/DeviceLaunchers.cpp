//===- DeviceLaunchers.cpp - Ranks on CUDA devices ------------------------===//
//
// Built with CUDA and NCCL. Two launchers run the device form of a program
// (DeviceProgram, the same instructions): rank threads sharing one GPU
// (--device cuda with the threads backend) and one process per GPU over
// NCCL (--backend nccl), whose id travels over MPI, a file or TCP.
//
//===----------------------------------------------------------------------===//

#include "Launchers.h"

#include "tp/Executor/DeviceExecutor.h"
#include "tp/Runtime/CUDA.h"
#include "tp/Runtime/NCCLCommunicator.h"
#include "tp/Runtime/Rendezvous.h"
#if TP_HAVE_MPI
#include "tp/Runtime/MPICommunicator.h"
#endif

namespace rt = ::mlir::tp::runtime;
namespace gpu = ::mlir::tp::runtime::gpu;

namespace mlir::tp::exec {
namespace {

/// --device cuda with the threads backend: the program's ranks as threads
/// on one GPU, their collectives over device memory.
class DeviceThreadLauncher final : public Launcher {
public:
  explicit DeviceThreadLauncher(LaunchOptions options)
      : Launcher(std::move(options)) {}

  RunResult runSteps(const Program &program, const DataSource &data, int steps,
                     const CheckpointSaving &) override {
    DeviceProgram onDevice(program);
    int64_t n = program.numRanks();
    checkRankThreads(n, program.peakBytes(),
                     "the program's mesh of " + std::to_string(n) + " ranks");
    int dev = options_.deviceId.value_or(0);
    auto timeout = options_.timeout;
    std::vector<std::vector<float>> pieces(n);
    std::vector<std::vector<double>> stepSeconds(n);
    RunResult result = detail::runOnRankThreads(
        static_cast<int>(n),
        [dev, timeout](int ranks,
                       const std::function<void(rt::Communicator &)> &fn) {
          gpu::runDeviceRanks(ranks, fn, dev, timeout);
        },
        detail::runSteps(onDevice, data, steps, &pieces, &stepSeconds));
    result.losses = detail::assembleLosses(program, pieces);
    result.stepMs = detail::slowestSteps(stepSeconds);
    return result;
  }
};

/// --backend nccl: this process is one rank on one GPU. Under mpirun
/// without an id file or rendezvous, MPI gives the rank and shares the id,
/// and the job fails and exits as an mpi job does.
class NCCLLauncher final : public Launcher {
public:
  NCCLLauncher(LaunchOptions options, int *argc, char ***argv)
      : Launcher(std::move(options)) {
    bool viaMPI = options_.ncclIdFile.empty() && options_.rendezvous.empty();
    if (viaMPI) {
#if TP_HAVE_MPI
      bootstrap = detail::createMPILauncher(options_, argc, argv);
      rank = detail::mpiWorld(*bootstrap).rank();
      nranks = detail::mpiWorld(*bootstrap).size();
#else
      throw LaunchError("--backend nccl needs --nccl-id-file or "
                        "--rendezvous (this " +
                        options_.toolName +
                        " has no MPI to share the NCCL id)");
#endif
    } else {
      rank = *options_.processRank;
      nranks = *options_.processCount;
    }
    requestedRanks_ = nranks;
  }

  bool isRoot() const override { return rank == 0; }

  std::string ranksText() const override {
    return bootstrap ? bootstrap->ranksText() : Launcher::ranksText();
  }

  void checkMeshRanks(int64_t meshRanks) const override {
    if (bootstrap)
      bootstrap->checkMeshRanks(meshRanks);
  }

  RunResult runSteps(const Program &program, const DataSource &data, int steps,
                     const CheckpointSaving &) override {
    DeviceProgram onDevice(program);
    int64_t n = program.numRanks();
    if (n != nranks)
      throw LaunchError("the program's mesh has " + std::to_string(n) +
                        " ranks but " + std::to_string(nranks) +
                        " processes run it");
    std::unique_ptr<rt::NCCLCommunicator> comm = createCommunicator();
    // NCCL moves device memory: host values are staged through it.
    detail::HostAllGather gather = [&](const void *in, size_t count,
                                       void *gathered, rt::DType dtype) {
      auto len = static_cast<int64_t>(count);
      Tensor host({len}, dtype);
      std::copy_n(static_cast<const char *>(in), host.bytes(),
                  static_cast<char *>(host.raw()));
      gpu::DeviceTensor src = gpu::DeviceTensor::upload(host);
      gpu::DeviceTensor dst({len * nranks}, dtype);
      comm->allGather(src.raw(), count, dst.raw(), dtype);
      Tensor all = dst.download();
      std::copy_n(static_cast<const char *>(all.raw()), all.bytes(),
                  static_cast<char *>(gathered));
    };
    std::vector<std::vector<float>> pieces(n);
    std::vector<std::vector<double>> stepSeconds(n);
    RunResult result = detail::runProcessRank(
        *comm, gather, nullptr,
        detail::runSteps(onDevice, data, steps, &pieces, &stepSeconds));
    // Every rank's loss pieces and step times to rank 0, which assembles
    // them.
    pieces = detail::gatherFromRanks(gather, pieces[rank], n);
    stepSeconds = detail::gatherFromRanks(gather, stepSeconds[rank], n);
    if (rank == 0) {
      result.losses = detail::assembleLosses(program, pieces);
      result.stepMs = detail::slowestSteps(stepSeconds);
    }
    return result;
  }

  [[noreturn]] void fail(const std::string &message) override {
    if (bootstrap)
      bootstrap->fail(message);
    Launcher::fail(message);
  }

  int shareExitCode(int code) override {
    return bootstrap ? bootstrap->shareExitCode(code) : code;
  }

private:
  /// This rank's NCCL communicator, on --device-id or rank modulo the
  /// number of devices; the id over MPI, the file or TCP.
  std::unique_ptr<rt::NCCLCommunicator> createCommunicator() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
      throw LaunchError("--backend nccl: no CUDA device");
    int dev = options_.deviceId.value_or(rank % count);
    if (dev >= count)
      throw LaunchError("--device-id " + std::to_string(dev) +
                        " but this host has " + std::to_string(count) +
                        " CUDA device(s)");
    if (cudaSetDevice(dev) != cudaSuccess)
      throw LaunchError("cannot use CUDA device " + std::to_string(dev));
    rt::NCCLOptions nccl;
    nccl.device = dev;
    nccl.timeout = options_.timeout;
    nccl.checkCollectives = options_.checkCollectives;
    if (!options_.ncclIdFile.empty())
      return rt::NCCLCommunicator::fromIdFile(options_.ncclIdFile, nranks, rank,
                                              nccl);
    rt::NCCLId id;
    if (bootstrap) {
#if TP_HAVE_MPI
      id = rt::ncclIdFromMPI(MPI_COMM_WORLD);
#endif
    } else {
      std::vector<uint8_t> blob;
      if (rank == 0) {
        id = rt::ncclNewId();
        blob.assign(id.bytes.begin(), id.bytes.end());
      }
      std::vector<uint8_t> got = rt::tcpBroadcastBlob(
          options_.rendezvous, rank, nranks, blob, options_.timeout);
      if (got.size() != id.bytes.size())
        throw LaunchError("the NCCL id received from " + options_.rendezvous +
                          " has " + std::to_string(got.size()) +
                          " bytes, expected " +
                          std::to_string(id.bytes.size()));
      std::copy(got.begin(), got.end(), id.bytes.begin());
    }
    return rt::NCCLCommunicator::create(nranks, rank, id, nccl);
  }

  /// The mpi launcher whose job this one shares (MPI gives the rank and the
  /// id); null with an id file or a rendezvous.
  std::unique_ptr<Launcher> bootstrap;
  int rank = 0, nranks = 1;
};

} // namespace

namespace detail {

std::unique_ptr<Launcher> createDeviceLauncher(LaunchOptions options, int *argc,
                                               char ***argv) {
  if (options.backend == "nccl")
    return std::make_unique<NCCLLauncher>(std::move(options), argc, argv);
  return std::make_unique<DeviceThreadLauncher>(std::move(options));
}

} // namespace detail
} // namespace mlir::tp::exec
