//===- tp-run.cpp - run a tensor-parallel model on N ranks ------*- C++ -*-===//
//
// Lowers a model with a plan (or takes an already partitioned program), runs
// it on N ranks of a backend, and optionally verifies it against the
// unparallelized model on one rank.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/Executor/Executor.h"
#include "tp/InitAll.h"
#include "tp/Runtime/Compare.h"
#include "tp/Runtime/Rendezvous.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Runtime/ThreadCommunicator.h"
#include "tp/Support/InputLimits.h"
#include "tp/Support/JSON.h"
#if TP_HAVE_CUDA
#include "tp/Executor/DeviceExecutor.h"
#include "tp/Runtime/CUDA.h"
#include "tp/Runtime/NCCLCommunicator.h"
#endif
#ifndef TP_HAVE_MPI
#define TP_HAVE_MPI 0
#endif
#if TP_HAVE_MPI
#include "tp/Runtime/MPICommunicator.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::tp::runtime;
namespace json = ::tp::json;
namespace exec = ::tp::exec;
using rt::Tensor;
using ::tp::exec::DataSource;
using ::tp::exec::Program;

static cl::OptionCategory category("tp-run options");
static cl::opt<std::string> modelFile(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> planFile("plan", cl::desc("JSON plan file"),
                                     cl::value_desc("PLAN.json"),
                                     cl::cat(category));
static cl::opt<int>
    numRanks("np",
             cl::desc("Number of ranks (default: the plan's mesh size); on a "
                      "1-D mesh this resizes the mesh"),
             cl::init(0), cl::cat(category));
static cl::opt<std::string> backend("backend",
                                    cl::desc("threads (default), mpi, nccl"),
                                    cl::init("threads"), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of generated data"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string>
    weights("weights", cl::desc("Parameters (safetensors)"), cl::cat(category));
static cl::opt<std::string> inputs("inputs", cl::desc("Inputs (safetensors)"),
                                   cl::cat(category));
static cl::opt<std::string>
    saveWeights("save-weights",
                cl::desc("Write the global parameters (safetensors)"),
                cl::cat(category));
static cl::opt<std::string>
    saveInputs("save-inputs", cl::desc("Write the global inputs (safetensors)"),
               cl::cat(category));
static cl::opt<std::string>
    dumpOutputs("dump-outputs",
                cl::desc("Write the gathered outputs (safetensors)"),
                cl::cat(category));
static cl::opt<bool> dumpProgram(
    "dump-program",
    cl::desc("Print the compiled program (its instructions, slots and "
             "frees; one program serves every rank) and exit without "
             "running it"),
    cl::cat(category));
static cl::opt<bool>
    verify("verify",
           cl::desc("Also run the unparallelized model on one rank and "
                    "compare"),
           cl::cat(category));
static cl::opt<double>
    rtol("rtol",
         cl::desc("Largest relative error --verify accepts (default 1e-5; for "
                  "bf16 and f16 models: 4e-2 and 5e-3)"),
         cl::init(1e-5), cl::cat(category));
static cl::opt<std::string> referenceDtype(
    "reference-dtype",
    cl::desc("What --verify compares a bf16/f16 model with: f32 (default: "
             "the model computed in f32 on one rank) or model (the model in "
             "its own dtype on one rank)"),
    cl::init("f32"), cl::cat(category));
static cl::opt<bool> jsonOutput("json",
                                cl::desc("Print one JSON object as summary"),
                                cl::cat(category));
static cl::opt<bool> checkCollectives(
    "check-collectives",
    cl::desc("mpi backend: before every collective, check that all ranks "
             "make the same call (one small extra all-gather; default on, "
             "=false to skip)"),
    cl::init(true), cl::cat(category));
static cl::opt<std::string>
    device("device",
           cl::desc("Where the ranks compute: cpu (default) or cuda (with "
                    "--backend threads: every rank on one GPU, --device-id; "
                    "--backend nccl implies cuda)"),
           cl::init("cpu"), cl::cat(category));
static cl::opt<int> deviceId(
    "device-id",
    cl::desc("CUDA device of --device cuda with threads (default 0), or of "
             "this process with --backend nccl (default: rank modulo the "
             "number of devices)"),
    cl::init(-1), cl::cat(category));
static cl::opt<std::string> ncclIdFile(
    "nccl-id-file",
    cl::desc("--backend nccl without MPI: share the NCCL id through this "
             "file (rank 0 writes it, the others wait for it; a fresh path "
             "per job, on a file system every host sees)"),
    cl::cat(category));
static cl::opt<std::string> rendezvous(
    "rendezvous",
    cl::desc("--backend nccl without MPI: share the NCCL id over TCP, "
             "tcp://HOST:PORT of rank 0 (which listens there)"),
    cl::cat(category));
static cl::opt<int> processRank(
    "rank",
    cl::desc("--backend nccl with --nccl-id-file or --rendezvous: this "
             "process's rank (default: $RANK)"),
    cl::init(-1), cl::cat(category));
static cl::opt<int> processCount(
    "nranks",
    cl::desc("--backend nccl with --nccl-id-file or --rendezvous: the number "
             "of processes (default: $WORLD_SIZE)"),
    cl::init(-1), cl::cat(category));
static cl::opt<int>
    timeoutSeconds("timeout",
                   cl::desc("Seconds a rank waits in a collective before "
                            "failing (default 30)"),
                   cl::init(30), cl::cat(category));
static cl::list<std::string> stylePlugins(
    "load-style-plugin",
    cl::desc("Load a shared library that registers parallel styles (see "
             "examples/style-plugin)"),
    cl::value_desc("file.so"), cl::cat(category));

namespace {

#if TP_HAVE_MPI
/// Set once MPI is initialized (--backend mpi): errors then abort every rank.
bool mpiActive = false;
/// The world communicator of --backend mpi.
rt::MPICommunicator *worldComm = nullptr;
#endif

[[noreturn]] void fail(const std::string &message) {
#if TP_HAVE_MPI
  // A failing rank must take the others down with it: they may be blocked in
  // a collective that it will never call.
  if (mpiActive) {
    // One write, so that lines of several ranks do not interleave.
    llvm::errs() << "tp-run: rank " +
                        std::to_string(rt::MPIEnvironment::worldRank()) +
                        " failed: " + message + "\n";
    rt::MPIEnvironment::abort(1);
  }
#endif
  llvm::errs() << "tp-run: error: " << message << "\n";
  std::exit(1);
}

func::FuncOp entryFunction(ModuleOp module) {
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && (!entry || f.getName() == "forward"))
      entry = f;
  if (!entry)
    fail(modelFile + ": the module has no function to run");
  return entry;
}

/// Rewrites every bf16/f16 tensor type in `module` to f32: the same model
/// computed in f32, the reference that --verify compares 16-bit models with.
void widenFloatTypes(ModuleOp module) {
  auto widen = [](Type t) -> Type {
    auto r = dyn_cast<RankedTensorType>(t);
    if (r && (r.getElementType().isBF16() || r.getElementType().isF16()))
      return r.clone(Float32Type::get(t.getContext()));
    return t;
  };
  module.walk([&](Operation *op) {
    for (Value v : op->getResults())
      v.setType(widen(v.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(widen(arg.getType()));
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      SmallVector<Type> ins, outs;
      for (Type t : fn.getArgumentTypes())
        ins.push_back(widen(t));
      for (Type t : fn.getResultTypes())
        outs.push_back(widen(t));
      fn.setType(FunctionType::get(op->getContext(), ins, outs));
    }
  });
}

/// Runs `program` on `n` threads and returns every rank's results and the
/// collective counts of rank 0.
struct RunResult {
  std::vector<std::vector<Tensor>> perRank;
  std::map<std::string, int64_t> collectives;
  int64_t peakBytes = 0;
  double ms = 0;
};

/// Runs `program` (a Program or a DeviceProgram) on `n` rank threads that
/// `launch(n, rankFn)` starts (rt::runRanks, or gpu::runDeviceRanks).
template <class Prog, class Launch>
RunResult runRankThreads(const Prog &program, int n, const DataSource &data,
                         Launch launch) {
  RunResult result;
  result.perRank.resize(n);
  std::mutex mutex;
  auto start = std::chrono::steady_clock::now();
  launch(n, [&](rt::Communicator &comm) {
    int64_t peak = 0;
    rt::CollectiveStats stats;
    std::vector<Tensor> out = program.run(comm, data, &peak, &stats);
    std::lock_guard<std::mutex> lock(mutex);
    result.peakBytes = std::max(result.peakBytes, peak);
    result.perRank[comm.rank()] = std::move(out);
    if (comm.rank() == 0)
      result.collectives = stats.counts;
  });
  result.ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  return result;
}

RunResult runThreads(const Program &program, int n, const DataSource &data) {
  return runRankThreads(
      program, n, data,
      [](int ranks, const std::function<void(rt::Communicator &)> &fn) {
        rt::runRanks(ranks, fn, std::chrono::seconds(timeoutSeconds));
      });
}

/// Where the rank count comes from, for errors: "--np N", or with --backend
/// mpi "the number of MPI processes (N)".
std::string ranksText() {
#if TP_HAVE_MPI
  if (worldComm)
    return "the number of MPI processes (" + std::to_string(numRanks) + ")";
#endif
  return "--np " + std::to_string(numRanks);
}

/// The error of --backend mpi (or nccl over MPI) started as one process for
/// a mesh of `meshRanks` ranks: mpirun was most likely forgotten.
std::string mpiLaunchHint(int64_t meshRanks) {
  return "--backend " + backend +
         " runs one rank per MPI process and this is the only process, but "
         "the mesh has " +
         std::to_string(meshRanks) + " ranks: launch it with `mpirun -np " +
         std::to_string(meshRanks) + " tp-run ... --backend " + backend +
         "`, or give --np 1 to run it on one rank";
}

/// Checks that `n` ranks fit in one process as threads (their number and
/// their memory, `peakBytes` each); `what` names where `n` comes from.
void checkRankThreads(int64_t n, int64_t peakBytes, const std::string &what) {
  std::string why;
  int limit = rt::maxThreadRanks(&why);
  if (n > limit)
    fail(what + " asks for " + std::to_string(n) +
         " rank threads, more than the limit of " + std::to_string(limit) +
         " (" + why + "); run more ranks with --backend mpi");
  int64_t memory = rt::hostMemoryBytes();
  if (peakBytes > 0 && n > memory / peakBytes)
    fail(std::to_string(n) + " ranks of " + std::to_string(peakBytes) +
         " bytes each at their peak need more than this host's " +
         std::to_string(memory) + " bytes of memory");
}

/// Moves non-negative integers exactly through float collectives: three
/// 21-bit digits each.
constexpr size_t intFloats = 3;
void putInt(std::vector<float> &v, int64_t x) {
  for (size_t i = 0; i < intFloats; ++i)
    v.push_back(static_cast<float>((x >> (21 * i)) & 0x1FFFFF));
}
int64_t getInt(const float *f) {
  int64_t x = 0;
  for (size_t i = 0; i < intFloats; ++i)
    x |= static_cast<int64_t>(f[i]) << (21 * i);
  return x;
}

/// Gathers host floats from every rank (an all-gather of `count` floats).
using HostAllGather = std::function<void(const float *, size_t, float *)>;

/// Completes a run of one process per rank: every rank gets the slowest
/// rank's time and the largest peak; rank 0 (`me`) also gets every rank's
/// results, moved through `allGather` in f32 (exact for 16-bit results).
RunResult gatherRun(int n, int me, const HostAllGather &allGather, double ms,
                    int64_t peak, const rt::CollectiveStats &stats,
                    const std::vector<Tensor> &out) {
  RunResult result;
  result.collectives = stats.counts;

  // One descriptor per rank: time, peak, then each result's rank and dims
  // (results have the same rank everywhere; dims may differ when uneven).
  std::vector<float> desc{static_cast<float>(ms)};
  putInt(desc, peak);
  for (const Tensor &t : out) {
    desc.push_back(static_cast<float>(t.rank()));
    for (int64_t d : t.shape())
      putInt(desc, d);
  }
  size_t len = desc.size();
  std::vector<float> descs(len * n);
  allGather(desc.data(), len, descs.data());
  std::vector<std::vector<std::vector<int64_t>>> shapes(n);
  int64_t maxNumel = 0;
  for (int r = 0; r < n; ++r) {
    const float *d = descs.data() + r * len;
    result.ms = std::max(result.ms, static_cast<double>(d[0]));
    result.peakBytes = std::max(result.peakBytes, getInt(d + 1));
    size_t pos = 1 + intFloats;
    int64_t total = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      std::vector<int64_t> shape(static_cast<size_t>(d[pos++]));
      for (int64_t &x : shape) {
        x = getInt(d + pos);
        pos += intFloats;
      }
      total += rt::shapeNumel(shape);
      shapes[r].push_back(std::move(shape));
    }
    maxNumel = std::max(maxNumel, total);
  }

  // Every rank's results, flattened (in f32) and padded to the longest.
  std::vector<float> flat(maxNumel), gathered(maxNumel * n);
  float *p = flat.data();
  for (const Tensor &t : out) {
    rt::toFloat(t.raw(), t.dtype(), p, t.numel());
    p += t.numel();
  }
  allGather(flat.data(), maxNumel, gathered.data());
  if (me != 0)
    return result;
  result.perRank.resize(n);
  for (int r = 0; r < n; ++r) {
    const float *src = gathered.data() + r * maxNumel;
    for (size_t i = 0; i < shapes[r].size(); ++i) {
      Tensor t(std::move(shapes[r][i]));
      std::copy(src, src + t.numel(), t.data());
      src += t.numel();
      // Results have the same dtype on every rank; they were exact in f32.
      result.perRank[r].push_back(t.to(out[i].dtype()));
    }
  }
  return result;
}

#if TP_HAVE_MPI
/// Test hook, honoured only by tp-run with --backend mpi: TP_TEST_FAIL_RANK=R
/// makes rank R fail right after the ranks synchronized before the run (the
/// others are then inside the program's first collectives), in the way
/// TP_TEST_FAIL_MODE says: "throw" (default; an exception like any runtime
/// error), "kill" (SIGKILL: a crashed process) or "hang" (sleeps, so that
/// the peers' --timeout fires). Used by test/tp-run/mpi-faults.test.
void testFailureHook(int rank) {
  const char *failRank = std::getenv("TP_TEST_FAIL_RANK");
  if (!failRank || std::atoi(failRank) != rank)
    return;
  const char *mode = std::getenv("TP_TEST_FAIL_MODE");
  if (mode && !std::strcmp(mode, "kill"))
    std::raise(SIGKILL);
  if (mode && !std::strcmp(mode, "hang"))
    for (;;)
      std::this_thread::sleep_for(std::chrono::hours(1));
  throw std::runtime_error("TP_TEST_FAIL_RANK test hook");
}

/// Runs `program` as this process's rank of `world`. Every rank gets the
/// slowest rank's time and the largest peak; rank 0 also gets every rank's
/// results. The collective counts are this rank's, taken before tp-run's own
/// gathering.
RunResult runMPI(const Program &program, rt::MPICommunicator &world,
                 const DataSource &data) {
  int n = world.size(), me = world.rank();
  world.barrier();
  world.resetStats();
  testFailureHook(me);
  auto start = std::chrono::steady_clock::now();
  int64_t peak = 0;
  rt::CollectiveStats stats;
  std::vector<Tensor> out = program.run(world, data, &peak, &stats);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  return gatherRun(
      n, me,
      [&](const float *in, size_t count, float *gathered) {
        world.allGather(in, count, gathered);
      },
      ms, peak, stats, out);
}
#endif

#if TP_HAVE_CUDA
namespace gpu = rt::gpu;

/// --device cuda with the threads backend: `n` rank threads on `dev`, their
/// collectives over device memory.
RunResult runDeviceThreads(const exec::DeviceProgram &program, int n,
                           const DataSource &data, int dev) {
  return runRankThreads(
      program, n, data,
      [dev](int ranks, const std::function<void(rt::Communicator &)> &fn) {
        gpu::runDeviceRanks(ranks, fn, dev,
                            std::chrono::seconds(timeoutSeconds));
      });
}

/// --backend nccl: this process is rank comm.rank(); results reach rank 0
/// through the NCCL communicator (staged through device memory).
RunResult runNCCL(const exec::DeviceProgram &program,
                  rt::NCCLCommunicator &comm, const DataSource &data) {
  int n = comm.size(), me = comm.rank();
  comm.barrier();
  comm.resetStats();
  auto start = std::chrono::steady_clock::now();
  int64_t peak = 0;
  rt::CollectiveStats stats;
  std::vector<Tensor> out = program.run(comm, data, &peak, &stats);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  return gatherRun(
      n, me,
      [&](const float *in, size_t count, float *gathered) {
        auto len = static_cast<int64_t>(count);
        gpu::DeviceTensor src = gpu::DeviceTensor::upload(
            Tensor::fromData({len}, std::vector<float>(in, in + count)));
        gpu::DeviceTensor dst({len * n});
        comm.allGather(src.data(), count, dst.data());
        Tensor host = dst.download();
        std::copy(host.data(), host.data() + host.numel(), gathered);
      },
      ms, peak, stats, out);
}

/// A non-negative integer from the environment variable `name`, or -1.
int envRank(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return -1;
  char *end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end || x < 0 || x > 1 << 20)
    fail(std::string("$") + name + " is not a rank count or index: '" + v +
         "'");
  return static_cast<int>(x);
}

/// The NCCL communicator of --backend nccl: rank and size from MPI when it
/// runs under mpirun without --nccl-id-file/--rendezvous, else from
/// --rank/--nranks ($RANK/$WORLD_SIZE); the id over MPI, the file or TCP.
std::unique_ptr<rt::NCCLCommunicator> createNCCL(int rank, int nranks,
                                                 bool viaMPI) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
    fail("--backend nccl: no CUDA device");
  int dev = deviceId >= 0 ? deviceId : rank % count;
  if (dev >= count)
    fail("--device-id " + std::to_string(dev) + " but this host has " +
         std::to_string(count) + " CUDA device(s)");
  if (cudaSetDevice(dev) != cudaSuccess)
    fail("cannot use CUDA device " + std::to_string(dev));
  rt::NCCLOptions options;
  options.device = dev;
  options.timeout = std::chrono::seconds(timeoutSeconds);
  options.checkCollectives = checkCollectives;
  auto timeout = std::chrono::seconds(timeoutSeconds);
  if (!ncclIdFile.empty())
    return rt::NCCLCommunicator::fromIdFile(ncclIdFile, nranks, rank, options);
  rt::NCCLId id;
  if (viaMPI) {
#if TP_HAVE_MPI
    id = rt::ncclIdFromMPI(MPI_COMM_WORLD);
#endif
  } else {
    std::vector<uint8_t> blob;
    if (rank == 0) {
      id = rt::ncclNewId();
      blob.assign(id.bytes.begin(), id.bytes.end());
    }
    std::vector<uint8_t> got =
        rt::tcpBroadcastBlob(rendezvous, rank, nranks, blob, timeout);
    if (got.size() != id.bytes.size())
      fail("the NCCL id received from " + rendezvous + " has " +
           std::to_string(got.size()) + " bytes, expected " +
           std::to_string(id.bytes.size()));
    std::copy(got.begin(), got.end(), id.bytes.begin());
  }
  return rt::NCCLCommunicator::create(nranks, rank, id, options);
}
#endif

/// The first non-finite value --verify found in the outputs (see
/// tp/Runtime/Compare.h: NaN and infinities where the reference has the
/// same are not an error, like torch.testing.assert_close(equal_nan=True)).
struct NonFinite {
  /// Non-finite elements in either run, over all outputs.
  int64_t count = 0;
  /// Whether one does not match the reference.
  bool mismatch = false;
  /// Where the reported one is: the first mismatch, else the first one.
  size_t output = 0;
  std::string index;
  float parallel = 0, reference = 0;
  /// The first input or weight that is not finite ("" if none).
  std::string source;

  void add(size_t i, const Tensor &a, const Tensor &b,
           const rt::Comparison &c) {
    int64_t e = c.firstMismatch >= 0 ? c.firstMismatch : c.firstNonFinite;
    if (e >= 0 && (count == 0 || (!mismatch && c.firstMismatch >= 0))) {
      output = i;
      index = rt::indexString(a.shape(), e);
      parallel = a.at(e);
      reference = b.at(e);
    }
    mismatch |= c.firstMismatch >= 0;
    count += c.nonFinite;
  }

  std::string describe() const {
    std::string s = "output " + std::to_string(output) + " is not finite" +
                    (index == "[]" ? "" : " at " + index) + ": ";
    if (mismatch)
      s += std::isfinite(parallel)
               ? "the reference has " + rt::valueString(reference) +
                     " where the parallel run has " + rt::valueString(parallel)
               : "the parallel run has " + rt::valueString(parallel) +
                     " where the reference has " + rt::valueString(reference);
    else
      s += rt::valueString(parallel) + " in both runs (" +
           std::to_string(count) + " non-finite element" +
           (count == 1 ? "" : "s") +
           ", all where the reference has them: compared as equal)";
    return s + "; " +
           (source.empty() ? "every input and weight is finite" : source);
  }

  /// The keys in sorted order, as in the rest of --json's output.
  void writeJSON(json::Writer &w) const {
    w.objectBegin();
    w.member("count", count);
    w.member("index", index);
    w.member("matches_reference", !mismatch);
    w.member("output", (int64_t)output);
    w.member("parallel", rt::valueString(parallel));
    w.member("reference", rt::valueString(reference));
    w.key("source");
    if (source.empty())
      w.value(nullptr);
    else
      w.value(source);
    w.objectEnd();
  }
};

/// One line per distributed result: what each rank returns, as PyTorch
/// would hand it out (use_local_output).
void printDistributedResults(const Program &program) {
  for (auto [i, r] : llvm::enumerate(program.results())) {
    if (llvm::all_of(r.placements,
                     [](const std::string &p) { return p == "R"; }))
      continue;
    llvm::outs() << "output " << i << ": "
                 << (r.local ? "each rank's local tensor" : "a DTensor")
                 << ", [";
    llvm::interleaveComma(r.placements, llvm::outs(), [](const std::string &p) {
      if (p[0] == 'S')
        llvm::outs() << "Shard(" << p.substr(1) << ")";
      else if (p[0] == 'P')
        llvm::outs() << "Partial(" << p.substr(1) << ")";
      else
        llvm::outs() << "Replicate()";
    });
    llvm::outs() << "] of " << rt::shapeToString(r.globalShape) << "\n";
  }
}

/// Names the first input or weight holding a NaN or infinity, and where.
std::string findNonFiniteSource(const Program &program,
                                const DataSource &data) {
  auto describe = [](const char *what, const std::string &name, const Tensor &t,
                     int64_t e) {
    return std::string(what) + " '" + name + "' has " +
           rt::valueString(t.at(e)) + " at " + rt::indexString(t.shape(), e);
  };
  for (const auto &in : program.inputs()) {
    Tensor t = Program::globalInput(in, data);
    if (int64_t e = rt::findNonFinite(t); e >= 0)
      return describe("input", in.name, t, e);
  }
  for (const auto &p : program.params()) {
    Tensor t = Program::globalParam(p, data);
    if (int64_t e = rt::findNonFinite(t); e >= 0)
      return describe("weight", p.name, t, e);
  }
  return "";
}

/// With --backend mpi, rank 0 broadcasts its exit code so that every rank
/// exits with the same one; otherwise returns \p code.
int shareExitCode(int code) {
  if (llvm::Error e = mlir::tp::finishOutput(llvm::outs(), "<stdout>")) {
    llvm::errs() << "tp-run: error: " << llvm::toString(std::move(e)) << "\n";
    code = 1;
  }
#if TP_HAVE_MPI
  if (worldComm) {
    // The wait for rank 0's local work (assembly, --verify) is unbounded.
    worldComm->setTimeout(std::chrono::milliseconds(0));
    float v = static_cast<float>(code);
    worldComm->broadcast(&v, 1, 0);
    code = static_cast<int>(v);
  }
#endif
  return code;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "tp-run: run a tensor-parallel model on N "
                              "ranks\n");
  for (const std::string &plugin : stylePlugins)
    if (llvm::Error e = mlir::tp::loadStylePlugin(plugin))
      fail(llvm::toString(std::move(e)));
  std::string available = "threads";
  if (TP_HAVE_MPI)
    available += ", mpi";
#if TP_HAVE_CUDA
  available += ", nccl";
  constexpr bool haveCuda = true;
#else
  constexpr bool haveCuda = false;
#endif
  if (backend != "threads" && (backend != "mpi" || !TP_HAVE_MPI) &&
      (backend != "nccl" || !haveCuda))
    fail("backend '" + backend + "' is not available in this build " +
         "(available: " + available + ")");
  if (device != "cpu" && device != "cuda")
    fail("--device must be cpu or cuda, not '" + device + "'");
  if (backend == "nccl") {
    if (device.getNumOccurrences() && device == "cpu")
      fail("--backend nccl runs on CUDA devices, not --device cpu");
    device = "cuda";
  }
  if (backend == "mpi" && device == "cuda")
    fail("--backend mpi runs on the CPU; use --backend nccl for GPUs");
  if (device == "cuda" && !haveCuda)
    fail("--device cuda: this tp-run was built without CUDA and NCCL");
  bool idFlags = !ncclIdFile.empty() || !rendezvous.empty() ||
                 processRank.getNumOccurrences() ||
                 processCount.getNumOccurrences();
  if (idFlags && backend != "nccl")
    fail("--nccl-id-file, --rendezvous, --rank and --nranks belong to "
         "--backend nccl");
  if (!ncclIdFile.empty() && !rendezvous.empty())
    fail("give one of --nccl-id-file and --rendezvous, not both");
  if (!rendezvous.empty()) {
    try {
      rt::parseRendezvousAddress(rendezvous);
    } catch (const std::exception &e) {
      fail(e.what());
    }
  }
  // --backend nccl: this process's rank and the number of processes (from
  // MPI further down when MPI shares the id).
  int ncclRank = 0, ncclRanks = 1;
#if TP_HAVE_CUDA
  if (backend == "nccl" && (!ncclIdFile.empty() || !rendezvous.empty())) {
    ncclRank = processRank >= 0 ? processRank : envRank("RANK");
    ncclRanks = processCount >= 0 ? processCount : envRank("WORLD_SIZE");
    if (ncclRank < 0 || ncclRanks < 1)
      fail("--backend nccl with --nccl-id-file or --rendezvous needs "
           "--rank and --nranks (or $RANK and $WORLD_SIZE)");
    if (ncclRank >= ncclRanks)
      fail("--rank " + std::to_string(ncclRank) + " is out of range for " +
           std::to_string(ncclRanks) + " ranks");
    if (numRanks > 0 && numRanks != ncclRanks)
      fail("--np " + std::to_string(numRanks) + " does not match --nranks " +
           std::to_string(ncclRanks));
  }
  // Before MPI or any rendezvous: a machine without a usable GPU stops here.
  if (device == "cuda") {
    std::string why;
    if (!rt::cudaAvailable(&why))
      fail((backend == "nccl" ? "--backend nccl" : "--device cuda") +
           std::string(" needs a CUDA device: ") + why);
  }
#endif
  if (numRanks.getNumOccurrences() && numRanks <= 0)
    fail("--np must be positive, got " + std::to_string(numRanks));
  if (backend == "threads" && numRanks > 0)
    checkRankThreads(numRanks, 0, "--np " + std::to_string(numRanks));
  if (timeoutSeconds <= 0)
    fail("--timeout must be positive");
  if (deviceId.getNumOccurrences() && deviceId < 0)
    fail("--device-id must be a CUDA device number (0 or more), got " +
         std::to_string(deviceId));
  if (referenceDtype != "f32" && referenceDtype != "model")
    fail("--reference-dtype must be f32 or model, not '" + referenceDtype +
         "'");
  if (referenceDtype.getNumOccurrences() && !verify)
    fail("--reference-dtype chooses what --verify compares with; give "
         "--verify too");
  if (!std::isfinite(rtol) || rtol < 0) {
    std::ostringstream text;
    text << rtol;
    fail("--rtol must be a finite number of at least 0, got " + text.str());
  }
  if (planFile.getNumOccurrences() && planFile.empty())
    fail("--plan needs a file name");

  // --backend mpi: this process is one rank of MPI_COMM_WORLD. Every rank
  // lowers the model (deterministically); rank 0 reports.
#if TP_HAVE_MPI
  std::unique_ptr<rt::MPIEnvironment> mpiEnv;
  std::unique_ptr<rt::MPICommunicator> mpiWorld;
  // --backend nccl without an id file or rendezvous shares the id over MPI.
  bool ncclViaMPI =
      backend == "nccl" && ncclIdFile.empty() && rendezvous.empty();
  if (backend == "mpi" || ncclViaMPI) {
    try {
      mpiEnv = std::make_unique<rt::MPIEnvironment>(&argc, &argv);
      mpiActive = true;
      rt::MPIOptions options;
      options.checkCollectives = checkCollectives;
      options.timeout = std::chrono::seconds(timeoutSeconds);
      mpiWorld = rt::MPICommunicator::world(options);
      worldComm = mpiWorld.get();
    } catch (const std::exception &e) {
      fail(e.what());
    }
    if (numRanks > 0 && numRanks != mpiWorld->size())
      fail("--np " + std::to_string(numRanks) + " does not match the " +
           std::to_string(mpiWorld->size()) +
           " MPI processes (leave --np "
           "out with --backend " +
           backend + ")");
    numRanks = mpiWorld->size();
  }
  bool isRoot = !mpiWorld || mpiWorld->rank() == 0;
#else
  bool ncclViaMPI = false;
  bool isRoot = true;
#endif
  // --backend nccl: this process's rank and the number of processes.
#if TP_HAVE_CUDA
  if (backend == "nccl") {
    if (ncclViaMPI) {
#if TP_HAVE_MPI
      ncclRank = mpiWorld->rank();
      ncclRanks = mpiWorld->size();
#else
      fail("--backend nccl needs --nccl-id-file or --rendezvous (this "
           "tp-run has no MPI to share the NCCL id)");
#endif
    } else {
      numRanks = ncclRanks;
      isRoot = ncclRank == 0;
    }
  }
#endif
  (void)ncclRank;
  (void)ncclRanks;

  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // Every rank lowers the same model: only rank 0 prints warnings, every
  // rank prints its errors.
  if (!isRoot)
    context.getDiagEngine().registerHandler([](Diagnostic &d) {
      return success(d.getSeverity() != DiagnosticSeverity::Error);
    });
  auto buffer =
      mlir::tp::readFileBounded(modelFile, mlir::tp::kMaxModelFileBytes);
  if (!buffer)
    fail("cannot read model file '" + modelFile +
         "': " + llvm::toString(buffer.takeError()));
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    fail("cannot parse " + modelFile);

  // The reference: the unparallelized model, before any plan touches it.
  OwningOpRef<ModuleOp> reference;
  func::FuncOp entry = entryFunction(*module);
  // tp-run takes a model (lowered here) or a program tp-pipeline
  // partitioned; IR in between would run as something else.
  bool partitioned = mlir::tp::findPartitioned(*module);
  if (partitioned && planFile.getNumOccurrences())
    fail("--plan " + planFile + ": " + modelFile +
         " is already partitioned (@" + entry.getName().str() +
         " has tp.spmd) and runs on its own mesh; leave --plan out");
  if (!partitioned && failed(mlir::tp::checkPassPrecondition(
                          *module, mlir::tp::TPPass::ApplyPlan)))
    fail(modelFile + " is partly lowered: give the model or the program "
                     "tp-pipeline partitioned");
  if (verify) {
    if (partitioned)
      fail("--verify needs the model before lowering, not a partitioned "
           "program");
    reference = module->clone();
    if (referenceDtype == "f32")
      widenFloatTypes(*reference);
    reference->walk([](mlir::tp::MeshOp m) { m.erase(); });
    (*reference)->removeAttr(mlir::tp::TPDialect::PlanAttrHelper::getNameStr());
    if (failed(mlir::tp::partition(*reference)))
      fail("cannot prepare the reference model");
  }

  if (!partitioned) {
    if (!planFile.empty()) {
      auto plan = mlir::tp::loadPlanFile(*module, planFile);
      if (failed(plan))
        fail("invalid plan " + planFile);
      mlir::tp::TPDialect::PlanAttrHelper(&context).setAttr(*module, *plan);
    }
    if (auto plan =
            mlir::tp::TPDialect::PlanAttrHelper(&context).getAttr(*module)) {
      // --np resizes a 1-D mesh; on N-D meshes it must match.
      auto mesh = mlir::tp::lookupMesh(*module, plan.getMesh());
      if (!mesh)
        fail("the plan's mesh is missing");
#if TP_HAVE_MPI
      if (worldComm && worldComm->size() == 1 &&
          !numRanks.getNumOccurrences() && mesh.getNumRanks() > 1)
        fail(mpiLaunchHint(mesh.getNumRanks()));
#endif
      if (numRanks > 0 && numRanks != mesh.getNumRanks()) {
        if (mesh.getRank() != 1)
          fail(ranksText() + " does not match the " +
               std::to_string(mesh.getRank()) + "-D mesh of " +
               std::to_string(mesh.getNumRanks()) + " ranks");
        mesh.setShape({(int64_t)numRanks});
      }
    } else if (numRanks > 1) {
      fail("no plan: give --plan PLAN.json (or a tp.plan attribute in the "
           "model) to run on " +
           std::to_string(numRanks) + " ranks");
    }
    if ((*module)->hasAttr(mlir::tp::TPDialect::PlanAttrHelper::getNameStr())) {
      PassManager pm(&context);
      mlir::tp::buildTPPipeline(pm, mlir::tp::TPPipelineOptions());
      if (failed(pm.run(*module)))
        fail("lowering " + modelFile + " failed");
    } else if (failed(mlir::tp::partition(*module))) {
      // No plan: the unparallelized model on one rank.
      fail("cannot prepare " + modelFile + " for execution");
    }
    entry = entryFunction(*module);
  }

  try {
    Program program = Program::compile(entry);
    // The model's dtype: that of its parameters (f32 without any).
    rt::DType modelDtype = rt::DType::F32;
    for (const auto &p : program.params())
      if (p.dtype != rt::DType::F32) {
        modelDtype = p.dtype;
        break;
      }
    // The mesh verifier keeps the product within int64_t.
    int64_t n = 1;
    for (int64_t d : program.meshShape())
      n *= d;
#if TP_HAVE_MPI
    if (mpiWorld && mpiWorld->size() == 1 && n > 1 &&
        !numRanks.getNumOccurrences())
      fail(mpiLaunchHint(n));
#endif
    if (partitioned && numRanks > 0 && numRanks != n)
      fail(ranksText() + " does not match the " + "program's mesh of " +
           std::to_string(n) + " ranks");
    if (dumpProgram) {
      // SPMD: every rank runs this list, so the root prints it once.
      if (isRoot)
        program.print(llvm::outs());
      return shareExitCode(0);
    }
    bool onThreads = backend == "threads";
    if (onThreads)
      checkRankThreads(n, program.peakBytes(),
                       "the program's mesh of " + std::to_string(n) + " ranks");
    DataSource data;
    data.seed = seed;
    data.weightsFile = weights;
    data.inputsFile = inputs;

    if (isRoot && !saveWeights.empty()) {
      std::vector<Tensor> tensors;
      std::vector<std::pair<std::string, const Tensor *>> named;
      for (const auto &p : program.params())
        tensors.push_back(Program::globalParam(p, data));
      for (size_t i = 0; i < tensors.size(); ++i)
        named.push_back({program.params()[i].name, &tensors[i]});
      rt::writeSafetensors(saveWeights, named);
    }
    if (isRoot && !saveInputs.empty()) {
      std::vector<Tensor> tensors;
      std::vector<std::pair<std::string, const Tensor *>> named;
      for (const auto &in : program.inputs())
        tensors.push_back(Program::globalInput(in, data));
      for (size_t i = 0; i < tensors.size(); ++i)
        named.push_back({program.inputs()[i].name, &tensors[i]});
      rt::writeSafetensors(saveInputs, named);
    }

    RunResult run;
#if TP_HAVE_CUDA
    if (device == "cuda") {
      // The same instructions, run by the device interpreter.
      exec::DeviceProgram onDevice(program);
      if (backend == "nccl") {
        if (n != ncclRanks)
          fail("the program's mesh has " + std::to_string(n) + " ranks but " +
               std::to_string(ncclRanks) + " processes run it");
        std::unique_ptr<rt::NCCLCommunicator> comm =
            createNCCL(ncclRank, ncclRanks, ncclViaMPI);
        run = runNCCL(onDevice, *comm, data);
      } else {
        run = runDeviceThreads(onDevice, n, data, deviceId < 0 ? 0 : deviceId);
      }
    } else
#endif
    {
#if TP_HAVE_MPI
      if (mpiWorld && n != mpiWorld->size())
        fail("the program's mesh has " + std::to_string(n) + " ranks but " +
             std::to_string(mpiWorld->size()) + " MPI processes run it");
      run = mpiWorld ? runMPI(program, *mpiWorld, data)
                     : runThreads(program, n, data);
#else
      run = runThreads(program, n, data);
#endif
    }
    if (!isRoot)
      return shareExitCode(0);
    std::vector<Tensor> outputs;
    for (size_t i = 0; i < program.results().size(); ++i) {
      std::vector<Tensor> perRank;
      for (auto &r : run.perRank)
        perRank.push_back(r.at(i));
      outputs.push_back(program.assembleResult(i, perRank));
    }
    if (!dumpOutputs.empty()) {
      std::vector<std::pair<std::string, const Tensor *>> named;
      for (size_t i = 0; i < outputs.size(); ++i)
        named.push_back({outputs.size() == 1 ? std::string("output")
                                             : "output" + std::to_string(i),
                         &outputs[i]});
      rt::writeSafetensors(dumpOutputs, named);
    }

    double maxAbs = 0, maxRef = 0;
    bool verified = false;
    NonFinite nonFinite;
    if (verify) {
      Program ref = Program::compile(entryFunction(*reference));
      RunResult refRun = runThreads(ref, 1, data);
      if (refRun.perRank[0].size() != outputs.size())
        fail("the reference returns a different number of results");
      for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor &a = outputs[i], &b = refRun.perRank[0][i];
        if (a.shape() != b.shape())
          fail("result " + std::to_string(i) + " has shape [" +
               a.shapeString() + "] but the reference has [" + b.shapeString() +
               "]");
        rt::Comparison c = rt::compareWithReference(a, b);
        maxAbs = std::max(maxAbs, c.maxAbsError);
        maxRef = std::max(maxRef, c.maxReference);
        nonFinite.add(i, a, b, c);
      }
      if (nonFinite.count)
        nonFinite.source = findNonFiniteSource(program, data);
    }
    double maxRel = maxRef > 0 ? maxAbs / maxRef : maxAbs;
    double tolerance = rtol;
    if (rtol.getNumOccurrences() == 0 && modelDtype != rt::DType::F32)
      tolerance = modelDtype == rt::DType::BF16 ? 4e-2 : 5e-3;
    verified = verify && !nonFinite.mismatch && maxRel <= tolerance;

    std::string meshStr;
    for (size_t i = 0; i < program.meshShape().size(); ++i)
      meshStr += (i ? "x" : "") + std::to_string(program.meshShape()[i]);
    if (jsonOutput) {
      // Keys in sorted order: the layout llvm::json gave this output.
      std::string text;
      json::Writer w(text, /*indent=*/2);
      w.objectBegin();
      w.member("backend", std::string(backend));
      w.key("collectives");
      w.objectBegin();
      for (const char *k : {"all_gather", "all_reduce", "all_to_all",
                            "broadcast", "reduce_scatter"})
        w.member(k, run.collectives.count(k) ? run.collectives[k] : 0);
      w.objectEnd();
      w.member("dtype", rt::dtypeName(modelDtype));
      w.key("max_abs_error");
      verify ? w.value(maxAbs) : w.value(nullptr);
      w.key("max_rel_error");
      verify ? w.value(maxRel) : w.value(nullptr);
      w.member("mesh", meshStr);
      if (verify && nonFinite.count) {
        w.key("non_finite");
        nonFinite.writeJSON(w);
      }
      w.member("np", n);
      w.member("peak_bytes_per_rank", run.peakBytes);
      w.member("time_ms", run.ms);
      w.member("verified", verified);
      w.objectEnd();
      llvm::outs() << text << "\n";
    } else {
      llvm::outs() << "tp-run: " << n << " rank(s), mesh " << meshStr
                   << ", backend " << backend << ", "
                   << rt::dtypeName(modelDtype) << ", " << program.size()
                   << " instructions, peak " << run.peakBytes << " bytes/rank, "
                   << llvm::format("%.2f", run.ms) << " ms\n";
      llvm::outs() << "collectives per rank:";
      if (run.collectives.empty())
        llvm::outs() << " none";
      for (auto &[k, v] : run.collectives)
        llvm::outs() << " " << k << "=" << v;
      llvm::outs() << "\n";
      if (verify)
        llvm::outs() << "verify against 1 rank"
                     << (modelDtype != rt::DType::F32 && referenceDtype == "f32"
                             ? " in F32"
                             : "")
                     << ": max abs error " << llvm::format("%.3g", maxAbs)
                     << ", max rel error " << llvm::format("%.3g", maxRel)
                     << (verified ? " (ok)" : " (FAILED)") << "\n";
      printDistributedResults(program);
    }
    // After the summary, also when both streams go to one pipe.
    llvm::outs().flush();
    if (nonFinite.count && !nonFinite.mismatch)
      llvm::errs() << "tp-run: warning: " << nonFinite.describe() << "\n";
    if (verify && !verified) {
      if (nonFinite.mismatch)
        llvm::errs() << "tp-run: error: verification failed: "
                     << nonFinite.describe() << "\n";
      else
        llvm::errs() << "tp-run: error: verification failed: max relative "
                        "error "
                     << maxRel << " exceeds " << tolerance << "\n";
      return shareExitCode(1);
    }
    return shareExitCode(0);
  } catch (const std::exception &e) {
    fail(e.what());
  }
  return 0;
}
