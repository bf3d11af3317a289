//===- Calibrate.cpp - measure this machine's hardware profile --*- C++ -*-===//
//
// tp-plan --calibrate: times small programs on the executor, one rank and
// one OpenBLAS thread (as scripts/bench.sh runs each rank), and the threads
// backend's all_reduce, and fits the cost model's numbers to them, so that
// the model predicts what it measured:
//
//   instruction_overhead  a chain of relus of 16 elements, per instruction;
//   memory_bandwidth      a chain of relus of 2^21 elements (16 MiB moved
//                         per instruction): bytes / (time - overhead);
//   vector_flops          a chain of negations of 2^14 elements (in
//                         cache), one flop each;
//   transcendental_rate   a chain of exps of 2^14 elements: the time
//                         beyond the negations';
//   matmul_flops,         chains of linears [n, n] x [n, n]^T for n = 8
//   matmul_call_overhead  to 256: the rate and the cost per call (each
//                         linear is one GEMM) that minimize the relative
//                         errors of all six;
//   intra_node            all_reduce between two rank threads of 4 bytes
//                         (latency: per ring step) and 4 MiB (bus
//                         bandwidth); under MPI (mpirun -np N tp-plan
//                         --calibrate --backend mpi), between the job's N
//                         processes, each one rank;
//   oversubscribed        the same between twice as many threads as cores
//                         (MPI: N processes when N exceeds the cores), and
//                         between pairs of as many threads: what a group
//                         smaller than all pays per call beyond its steps
//                         (the pairs' 2-step all_reduce costs as much as
//                         the whole group's, or more);
//   shared_cores          the cores the ranks share; overlap is on, for
//                         the programs whose ranks leave a core each for
//                         their communication thread (the executor runs
//                         async collectives on it only then).
//
//===----------------------------------------------------------------------===//

#include "Calibrate.h"

#include "tp/Executor/Executor.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

using namespace mlir;
namespace exec = ::mlir::tp::exec;
namespace rt = ::mlir::tp::runtime;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The median of \p reps timings of \p fn.
template <class Fn> double median(int reps, Fn fn) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    Clock::time_point start = Clock::now();
    fn();
    t.push_back(secondsSince(start));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// A program of \p count instructions: `op` applied in a chain to a
/// tensor<\p type>.
std::string chainOf(const char *op, const std::string &type, int count) {
  std::string text = "func.func @forward(%v0: tensor<" + type +
                     ">) -> tensor<" + type + "> {\n";
  for (int i = 0; i < count; ++i)
    text += llvm::formatv("  %v{0} = model.{1} %v{2} : (tensor<{3}>) -> "
                          "tensor<{3}>\n",
                          i + 1, op, i, type)
                .str();
  text += llvm::formatv("  return %v{0} : tensor<{1}>\n}\n", count, type).str();
  return text;
}

/// \p count linears of [n, n] weights in a chain on a [n, n] input.
std::string linearChain(int64_t n, int count) {
  std::string t = llvm::formatv("{0}x{0}xf32", n).str();
  std::string text =
      "func.func @forward(%v0: tensor<" + t + ">) -> tensor<" + t + "> {\n";
  for (int i = 0; i < count; ++i)
    text += llvm::formatv("  %w{0} = model.param \"l{0}.weight\" : tensor<{1}>"
                          "\n  %v{2} = model.linear \"l{0}\"(%v{0}, %w{0}) : "
                          "(tensor<{1}>, tensor<{1}>) -> tensor<{1}>\n",
                          i, t, i + 1)
                .str();
  text += llvm::formatv("  return %v{0} : tensor<{1}>\n}\n", count, t).str();
  return text;
}

/// The median over \p world's ranks of each one's \p value.
double medianOver(rt::Communicator &world, double value) {
  int64_t mine = static_cast<int64_t>(value * 1e9);
  std::vector<int64_t> all(world.size());
  world.allGather(&mine, 1, all.data(), rt::DType::I64);
  std::sort(all.begin(), all.end());
  return static_cast<double>(all[all.size() / 2]) / 1e9;
}

/// Seconds per instruction of the program \p text, run with its parameters
/// resident on one rank per core at once (each its own single-rank job),
/// as the ranks of a real job share the machine: the median over the
/// cores of each one's median run. With \p world (an MPI job), each
/// process is one of those ranks.
double perInstruction(MLIRContext &context, const std::string &text, int count,
                      int reps, int64_t cores, rt::Communicator *world) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    throw std::runtime_error("the calibration program does not parse");
  func::FuncOp entry;
  module->walk([&](func::FuncOp f) { entry = f; });
  exec::Program program = exec::Program::compile(entry);
  exec::DataSource data;
  if (world) {
    // One rank per process: every process times its own, together.
    world->barrier();
    double mine = 0;
    rt::runRanks(1, [&](rt::Communicator &comm) {
      exec::RankState state;
      program.run(comm, data, nullptr, nullptr, &state);
      mine = median(reps,
                    [&] { program.run(comm, data, nullptr, nullptr, &state); });
    });
    return medianOver(*world, mine) / (count + 1);
  }
  std::vector<double> seconds(cores, 0);
  std::vector<std::thread> threads;
  for (int64_t c = 0; c < cores; ++c)
    threads.emplace_back([&, c] {
      rt::runRanks(1, [&](rt::Communicator &comm) {
        exec::RankState state;
        program.run(comm, data, nullptr, nullptr, &state); // loads, warms
        seconds[c] = median(
            reps, [&] { program.run(comm, data, nullptr, nullptr, &state); });
      });
    });
  for (std::thread &t : threads)
    t.join();
  std::sort(seconds.begin(), seconds.end());
  // Each run also reads its input and hands out its result: one more
  // instruction's worth, roughly.
  return seconds[seconds.size() / 2] / (count + 1);
}

/// Seconds of one all_reduce of \p floats f32 elements between \p ranks
/// threads, each computing \p work relus of 2^14 elements before it (as a
/// program computes between its collectives, so that the ranks arrive at
/// different times and the waiting ones sleep), less that compute.
double allReduceOn(rt::Communicator &comm, size_t floats, int work, int reps) {
  std::vector<float> in(floats, 1.0f), out(floats);
  rt::Tensor x = rt::Tensor::full({int64_t(1) << 14}, 1.0f);
  auto compute = [&] {
    for (int i = 0; i < work; ++i)
      x = rt::relu(x);
  };
  auto reduce = [&] {
    comm.allReduce(in.data(), out.data(), floats, rt::DType::F32,
                   rt::ReduceOp::Sum);
  };
  for (int i = 0; i < 3; ++i)
    reduce();
  double alone = median(reps, compute);
  reduce();
  double both = median(reps, [&] {
    compute();
    reduce();
  });
  return std::max(both - alone, 0.0);
}

double allReduceSeconds(int ranks, size_t floats, int work, int reps,
                        rt::Communicator *world) {
  if (world)
    return medianOver(*world, allReduceOn(*world, floats, work, reps));
  std::vector<double> seconds(ranks, 0);
  rt::runRanks(ranks, [&](rt::Communicator &comm) {
    seconds[comm.rank()] = allReduceOn(comm, floats, work, reps);
  });
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

/// Seconds of one all_reduce of 4 bytes within pairs of \p ranks threads
/// (ranks 0 and 1, 2 and 3, ...), each computing before it as
/// allReduceOn's do: the median over the threads.
double pairAllReduceSeconds(int ranks, int reps) {
  std::vector<double> seconds(ranks, 0);
  rt::runRanks(ranks, [&](rt::Communicator &comm) {
    std::unique_ptr<rt::Communicator> pair =
        comm.split(comm.rank() / 2, comm.rank());
    seconds[comm.rank()] = allReduceOn(*pair, 1, 8, reps);
  });
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

std::string cpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos)
        return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

} // namespace

exec::HardwareProfile calibrate(MLIRContext &context, llvm::raw_ostream &log,
                                rt::Communicator *world) {
  rt::setBlasThreads(1);
  rt::keepFreedTensorMemory();
  exec::HardwareProfile p;
  p.name = world ? "cpu-mpi" : "cpu";
  int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  if (world)
    log << "  " << cores << " cores, " << world->size()
        << " MPI processes of one rank each\n";
  else
    log << "  " << cores << " cores, each running one rank\n";

  const int chain = 64;
  double small = perInstruction(context, chainOf("relu", "16xf32", chain),
                                chain, 31, cores, world);
  p.instructionOverhead = small;
  log << llvm::formatv("  relu of 16 elements: {0:f3} us per instruction\n",
                       small * 1e6);

  const int64_t big = int64_t(1) << 21;
  double large =
      perInstruction(context, chainOf("relu", std::to_string(big) + "xf32", 16),
                     16, 9, cores, world);
  double moved = 8.0 * big;
  p.memoryBandwidth = moved / std::max(large - small, 1e-9);
  log << llvm::formatv("  relu of 2^21 elements: {0:f3} us, {1:f2} GB/s\n",
                       large * 1e6, p.memoryBandwidth / 1e9);

  // In cache: the arithmetic, not the memory.
  const int64_t mid = int64_t(1) << 14;
  std::string midType = std::to_string(mid) + "xf32";
  double negs = perInstruction(context, chainOf("neg", midType, 64), 64, 15,
                               cores, world);
  p.vectorFlops = static_cast<double>(mid) / std::max(negs - small, 1e-9);
  log << llvm::formatv("  neg of 2^14 elements: {0:f3} us, {1:f2} GFLOP/s\n",
                       negs * 1e6, p.vectorFlops / 1e9);
  double exps = perInstruction(context, chainOf("exp", midType, 32), 32, 15,
                               cores, world);
  p.transcendentalRate = static_cast<double>(mid) / std::max(exps - negs, 1e-9);
  log << llvm::formatv("  exp of 2^14 elements: {0:f3} us, {1:f2} G exp/s\n",
                       exps * 1e6, p.transcendentalRate / 1e9);

  // A product's time beyond the instruction's, y = c + x / rate for x
  // flops: the cost per call c and the rate that minimize the relative
  // errors (weighted least squares: the residuals (c + x b - y) / y).
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  for (int64_t n : {8, 16, 32, 64, 128, 256}) {
    int count = n <= 32 ? 64 : 16;
    double t = perInstruction(context, linearChain(n, count), count,
                              n <= 32 ? 15 : 9, cores, world);
    double x = 2.0 * n * n * n, y = std::max(t - small, 1e-9);
    s11 += 1 / (y * y);
    s12 += x / (y * y);
    s22 += x * x / (y * y);
    r1 += 1 / y;
    r2 += x / y;
    log << llvm::formatv("  linear {0}x{0}: {1:f3} us, {2:f2} GFLOP/s\n", n,
                         t * 1e6, x / y / 1e9);
  }
  double det = s11 * s22 - s12 * s12;
  double c = det > 0 ? (r1 * s22 - r2 * s12) / det : 0;
  double b = det > 0 ? (s11 * r2 - s12 * r1) / det : 0;
  if (c < 0 || b <= 0) {
    // No cost per call to speak of: the rate alone, 1/rate =
    // sum(x/y) / sum(x^2/y^2).
    c = 0;
    b = r2 / s22;
  }
  p.matmulCallOverhead = c;
  p.matmulFlops = 1 / b;
  log << llvm::formatv("  matmul fitted: {0:f3} us per call, {1:f2} GFLOP/s\n",
                       p.matmulCallOverhead * 1e6, p.matmulFlops / 1e9);

  // all_reduce of n ranks: 2(n-1) ring steps and 2(n-1)/n times its
  // bytes; 2 ranks, and twice as many ranks as cores (they block instead
  // of spinning).
  auto link = [&](int ranks, exec::LinkProfile &out) {
    double tiny = allReduceSeconds(ranks, 1, 8, ranks > 2 ? 51 : 101, world);
    double bulk = allReduceSeconds(ranks, size_t(1) << 20, 8, 11, world);
    double steps = 2.0 * (ranks - 1), bus = steps / ranks * 4.0 * (1 << 20);
    out.latency = tiny / steps;
    out.bandwidth = bus / std::max(bulk - tiny, 1e-9);
    log << llvm::formatv("  all_reduce of {0} {1}: 4 B {2:f3} us, 4 MiB "
                         "{3:f3} us: {4:f3} us per step, {5:f2} GB/s\n",
                         ranks, world ? "processes" : "threads", tiny * 1e6,
                         bulk * 1e6, out.latency * 1e6, out.bandwidth / 1e9);
  };
  if (world) {
    // The job's own size: the link of as many processes as it has (and,
    // more processes than cores, the oversubscribed one too).
    link(world->size(), p.intraNode);
    if (world->size() > cores)
      p.oversubscribed = p.intraNode;
  } else {
    link(2, p.intraNode);
    if (2 * cores <= rt::maxThreadRanks()) {
      int n = static_cast<int>(2 * cores);
      link(n, p.oversubscribed);
      if (n >= 4) {
        // Pairs among as many threads (the axis groups of a 2-D mesh on
        // these cores): their all_reduce of 2 steps costs as much as the
        // whole group's of 2(n-1), or more, the threads outside each pair
        // taking the cores in turn with it. What a pair pays beyond its
        // steps is the link's cost per call of such groups.
        double pairs = pairAllReduceSeconds(n, 51);
        p.oversubscribed.callLatency =
            std::max(pairs - 2 * p.oversubscribed.latency, 0.0);
        log << llvm::formatv("  all_reduce of pairs among {0} threads: 4 B "
                             "{1:f3} us: {2:f3} us per call of a group "
                             "smaller than all\n",
                             n, pairs * 1e6,
                             p.oversubscribed.callLatency * 1e6);
      }
    }
  }

  p.sharedCores = cores;
  // The executor's communication thread, for programs of at most half as
  // many ranks as cores.
  p.overlap = true;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  p.source = "tp-plan --calibrate on " + std::to_string(cores) + " cores of " +
             cpuName() + ", " + date + " (one OpenBLAS thread per rank, " +
             (world ? std::to_string(world->size()) + " MPI processes"
                    : std::string("threads backend")) +
             ")";
  return p;
}
