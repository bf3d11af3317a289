//===- gpu_bench.cpp - GEMMs, NCCL and device-thread collectives on a GPU -===//
//
//   gpu_bench [--layers N] [Google Benchmark flags]
//
// GPU benchmarks (scripts/gpu-check.sh runs them; docs/gpu.md describes
// them). Without a usable CUDA device the binary says why and exits 0
// without running anything. Registered benchmarks:
//
//   gemm/cublas/DT/M:K:N    gpu::linear (cuBLAS) of x[M, K] and w[N, K] in DT
//                           (f32 or bf16) on preallocated operands; cudaEvent
//                           timing of a batch of GEMMs enqueued back to back
//                           (gpu::linear allocates its output; the batch lets
//                           that overlap with the previous GEMM), time = one
//                           GEMM. Counter tflops.
//   gemm/executor/DT/M:K:N/layers:L
//                           DeviceProgram::run of an unparallelized chain of L
//                           bias-less model.linear ops, all x[M, K] @ w[K, K]
//                           (so K = N), on 1 rank of gpu::runDeviceRanks with
//                           a RankState: parameters stay resident after an
//                           untimed first run. Every run also generates the
//                           input on the host, uploads it and downloads the
//                           result; tflops_with_io counts that time,
//                           io_ms measures it on its own (best of 3) and
//                           tflops_excl_io subtracts it (an estimate), to set
//                           next to gemm/cublas of the same shape.
//   nccl/1rank/OP/BYTES/check:on|off
//                           NCCLCommunicator with one rank, all_reduce or
//                           all_gather of BYTES of f32 device memory, with
//                           NCCLOptions::checkCollectives on or off: the
//                           per-call overhead of our communicator (watchdog
//                           deadline, the check all-gather and its
//                           device-to-host copy). Counter us_per_call.
//   threads-device/OP/np:N/BYTES
//                           N rank threads sharing one GPU
//                           (gpu::runDeviceRanks) doing all_reduce or
//                           all_gather of BYTES; each iteration is timed in
//                           every rank thread between two barriers and the
//                           manual time is the slowest rank's. Counters
//                           algbw_GBps and busbw_GBps as nccl-tests computes
//                           them.
//
// BYTES follows nccl-tests: all_reduce S = the per-rank buffer, all_gather
// S = the gathered output (each rank sends S/n).
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Executor/DeviceExecutor.h"
#include "tp/Executor/Executor.h"
#include "tp/InitAll.h"
#include "tp/Runtime/CUDA.h"
#include "tp/Runtime/NCCLCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace rt = ::mlir::tp::runtime;
namespace gpu = ::mlir::tp::runtime::gpu;
namespace exec = ::mlir::tp::exec;
using rt::DType;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The MLIR element type (also the name in benchmark names).
const char *mlirType(DType d) { return d == DType::BF16 ? "bf16" : "f32"; }

/// Throws rt::CudaError naming \p what when \p err is not cudaSuccess.
void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess)
    throw rt::CudaError(std::string(what) + ": " + cudaGetErrorString(err));
}

/// A device tensor of \p shape and \p dtype with uniform values in [-1, 1)
/// (zeros would let the GPU's power management flatter the GEMM).
gpu::DeviceTensor randomDevice(std::vector<int64_t> shape, DType dtype,
                               unsigned seed) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(n);
  for (float &v : host)
    v = dist(gen);
  gpu::DeviceTensor f32 =
      gpu::DeviceTensor::upload(rt::Tensor::fromData(shape, std::move(host)));
  return dtype == DType::F32 ? std::move(f32) : gpu::convert(f32, dtype);
}

/// Runs \p body, turning an exception into SkipWithError so that one failing
/// benchmark neither aborts the others nor passes silently (gpu-check.sh
/// fails on any error in the JSON output).
template <class Fn> void guarded(benchmark::State &state, Fn body) {
  try {
    body();
  } catch (const std::exception &e) {
    state.SkipWithError(e.what());
  }
}

//===----------------------------------------------------------------------===//
// GEMMs: cuBLAS alone and inside the executor
//===----------------------------------------------------------------------===//

struct GemmShape {
  int64_t m, k, n;
  std::string str() const {
    return std::to_string(m) + ":" + std::to_string(k) + ":" +
           std::to_string(n);
  }
  double flop() const { return 2.0 * m * k * n; }
};

/// GEMMs per timed batch of gemm/cublas.
constexpr int kBatch = 8;

void runCublas(benchmark::State &state, GemmShape s, DType dtype) {
  guarded(state, [&] {
    cudaStream_t stream = gpu::defaultStream();
    gpu::DeviceTensor x = randomDevice({s.m, s.k}, dtype, 1);
    gpu::DeviceTensor w = randomDevice({s.n, s.k}, dtype, 2);
    // cuBLAS handle creation and kernel selection happen here, untimed.
    {
      gpu::DeviceTensor y = gpu::linear(x, w, nullptr, stream);
    }
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    double total = 0;
    for (auto _ : state) {
      // The start event follows a first GEMM, so that the host work of
      // gpu::linear (cudaMalloc, launch) for the timed ones overlaps with a
      // busy GPU; the outputs are freed (cudaFree synchronizes) after the
      // stop event.
      std::vector<gpu::DeviceTensor> ys;
      ys.reserve(kBatch + 1);
      ys.push_back(gpu::linear(x, w, nullptr, stream));
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      for (int i = 0; i < kBatch; ++i)
        ys.push_back(gpu::linear(x, w, nullptr, stream));
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      double perGemm = ms * 1e-3 / kBatch;
      state.SetIterationTime(perGemm);
      total += perGemm;
    }
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    state.counters["tflops"] = s.flop() * state.iterations() / total / 1e12;
  });
}

/// The model: L bias-less linears x[M, K] @ w_i[K, K]^T, chained.
std::string chainModel(int64_t m, int64_t k, int layers, DType dtype) {
  std::string et = mlirType(dtype);
  std::string act =
      "tensor<" + std::to_string(m) + "x" + std::to_string(k) + "x" + et + ">";
  std::string wt =
      "tensor<" + std::to_string(k) + "x" + std::to_string(k) + "x" + et + ">";
  std::string text = "func.func @forward(%h0: " + act + ") -> " + act + " {\n";
  for (int i = 0; i < layers; ++i) {
    std::string l = "l" + std::to_string(i), in = "%h" + std::to_string(i),
                out = "%h" + std::to_string(i + 1),
                w = "%w" + std::to_string(i);
    text += "  " + w + " = model.param \"" + l + ".weight\" : " + wt + "\n";
    text += "  " + out + " = model.linear \"" + l + "\"(" + in + ", " + w +
            ") : (" + act + ", " + wt + ") -> " + act + "\n";
  }
  text += "  return %h" + std::to_string(layers) + " : " + act + "\n}\n";
  return text;
}

/// The linear chain of one gemm/executor benchmark, compiled for the device
/// and for the host (the latter only describes the input, for io_ms). The
/// module stays alive as long as the programs, as in tp-run.
struct Chain {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  GemmShape shape;
  DType dtype;
  int layers;
  exec::DeviceProgram device;
  exec::Program host;
};

/// Parses, partitions (as tp-run does for a model without a plan) and
/// compiles the chain; needs no GPU, so a broken model shows up anywhere.
std::unique_ptr<Chain> compileChain(mlir::MLIRContext &ctx, GemmShape s,
                                    DType dtype, int layers) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          chainModel(s.m, s.k, layers, dtype), &ctx);
  if (!module || mlir::failed(mlir::tp::partition(*module)))
    throw std::runtime_error("cannot prepare the linear chain " + s.str());
  mlir::func::FuncOp entry;
  for (auto f : module->getOps<mlir::func::FuncOp>())
    if (!f.isExternal() && (!entry || f.getName() == "forward"))
      entry = f;
  exec::DeviceProgram device = exec::DeviceProgram::compile(entry);
  exec::Program host = exec::Program::compile(entry);
  return std::unique_ptr<Chain>(new Chain{std::move(module), s, dtype, layers,
                                          std::move(device), std::move(host)});
}

void runExecutorGemm(benchmark::State &state, const Chain &c) {
  guarded(state, [&] {
    const GemmShape s = c.shape;
    const DType dtype = c.dtype;
    const int layers = c.layers;
    const exec::DeviceProgram &program = c.device;
    const exec::Program &host = c.host;
    exec::DataSource data;
    double total = 0, io = 1e30;
    int64_t paramBytes = 0;
    gpu::runDeviceRanks(1, [&](rt::Communicator &comm) {
      exec::RankState rs;
      // Untimed: generates and uploads the parameters, which stay resident.
      program.run(comm, data, nullptr, nullptr, &rs);
      paramBytes = rs.paramBytes();
      // What every run does besides the GEMMs: the input generated on the
      // host and uploaded, the result downloaded.
      for (int i = 0; i < 3; ++i) {
        auto t0 = Clock::now();
        rt::Tensor in = exec::Program::globalInput(host.inputs()[0], data);
        gpu::DeviceTensor dIn = gpu::DeviceTensor::upload(in);
        gpu::DeviceTensor dOut({s.m, s.n}, dtype);
        check(cudaStreamSynchronize(gpu::defaultStream()),
              "cudaStreamSynchronize");
        auto t1 = Clock::now();
        rt::Tensor out = dOut.download();
        io = std::min(io, secondsSince(t1) +
                              std::chrono::duration<double>(t1 - t0).count());
        benchmark::DoNotOptimize(out.raw());
      }
      for (auto _ : state) {
        auto t0 = Clock::now();
        std::vector<rt::Tensor> out =
            program.run(comm, data, nullptr, nullptr, &rs);
        double t = secondsSince(t0);
        benchmark::DoNotOptimize(out.data());
        state.SetIterationTime(t);
        total += t;
      }
    });
    double flop = s.flop() * layers * state.iterations();
    state.counters["tflops_with_io"] = flop / total / 1e12;
    double gemmOnly = total - io * state.iterations();
    state.counters["tflops_excl_io"] =
        gemmOnly > 0 ? flop / gemmOnly / 1e12 : 0.0;
    state.counters["io_ms"] = io * 1e3;
    state.counters["param_bytes"] = static_cast<double>(paramBytes);
  });
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

enum class Op { AllReduce, AllGather };

const char *opName(Op op) {
  return op == Op::AllReduce ? "all_reduce" : "all_gather";
}

/// One collective of nccl-tests size \p bytes on \p in / \p out (device
/// buffers of the sizes bufferCounts gives).
void collective(rt::Communicator &comm, Op op, size_t bytes, const float *in,
                float *out) {
  size_t count = bytes / sizeof(float);
  if (op == Op::AllReduce)
    comm.allReduce(in, out, count, rt::ReduceOp::Sum);
  else
    comm.allGather(in, count / comm.size(), out);
}

/// Element counts of the input and output buffers for \p n ranks.
std::pair<int64_t, int64_t> bufferCounts(Op op, size_t bytes, int n) {
  auto count = static_cast<int64_t>(bytes / sizeof(float));
  if (op == Op::AllReduce)
    return {count, count};
  return {count / n, count / n * n};
}

/// The 1-rank NCCL communicators, one per checkCollectives setting, made on
/// first use and destroyed by main() before the CUDA runtime shuts down.
std::map<bool, std::unique_ptr<rt::NCCLCommunicator>> &ncclComms() {
  static std::map<bool, std::unique_ptr<rt::NCCLCommunicator>> comms;
  return comms;
}

void runNccl1Rank(benchmark::State &state, Op op, size_t bytes, bool checks) {
  guarded(state, [&] {
    std::unique_ptr<rt::NCCLCommunicator> &comm = ncclComms()[checks];
    if (!comm) {
      rt::NCCLOptions options;
      options.device = 0;
      options.checkCollectives = checks;
      comm = rt::NCCLCommunicator::create(1, 0, rt::ncclNewId(), options);
    }
    auto [inCount, outCount] = bufferCounts(op, bytes, 1);
    gpu::DeviceTensor in({inCount}), out({outCount});
    collective(*comm, op, bytes, in.data(), out.data()); // warm-up
    double total = 0;
    for (auto _ : state) {
      auto t0 = Clock::now();
      collective(*comm, op, bytes, in.data(), out.data());
      double t = secondsSince(t0);
      state.SetIterationTime(t);
      total += t;
    }
    state.counters["us_per_call"] = total / state.iterations() * 1e6;
    state.counters["bytes"] = static_cast<double>(bytes);
  });
}

void runThreadsDevice(benchmark::State &state, Op op, int n, size_t bytes) {
  guarded(state, [&] {
    const benchmark::IterationCount iters = state.max_iterations;
    std::vector<double> secs(n, 0.0);
    double total = 0;
    gpu::runDeviceRanks(n, [&](rt::Communicator &comm) {
      int r = comm.rank();
      auto [inCount, outCount] = bufferCounts(op, bytes, n);
      gpu::DeviceTensor in({inCount}), out({outCount});
      // The barriers order the writes of secs before rank 0 reads them, and
      // rank 0's read before the next round's writes.
      auto round = [&] {
        comm.barrier();
        auto t0 = Clock::now();
        collective(comm, op, bytes, in.data(), out.data());
        secs[r] = secondsSince(t0);
        comm.barrier();
      };
      round(); // warm-up
      if (r != 0) {
        for (benchmark::IterationCount i = 0; i < iters; ++i)
          round();
        return;
      }
      // Rank 0 drives the benchmark loop, which runs exactly `iters` times.
      for (auto _ : state) {
        round();
        double slowest = *std::max_element(secs.begin(), secs.end());
        state.SetIterationTime(slowest);
        total += slowest;
      }
    });
    double algbw = static_cast<double>(bytes) * state.iterations() / total;
    double factor = op == Op::AllReduce ? 2.0 * (n - 1) / n
                                        : static_cast<double>(n - 1) / n;
    state.counters["algbw_GBps"] = algbw / 1e9;
    state.counters["busbw_GBps"] = algbw * factor / 1e9;
    state.counters["bytes"] = static_cast<double>(bytes);
  });
}

/// 1 KiB .. 64 MiB in steps of 4, as bench/collectives_bench.cpp.
std::vector<size_t> collectiveSizes() {
  std::vector<size_t> out;
  for (size_t s = 1 << 10; s <= (size_t(64) << 20); s *= 4)
    out.push_back(s);
  return out;
}

} // namespace

int main(int argc, char **argv) {
  int layers = 16;
  std::vector<char *> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--layers" && i + 1 < argc)
      layers = std::stoi(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  int restc = static_cast<int>(rest.size());
  benchmark::Initialize(&restc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(restc, rest.data()))
    return 1;

  if (layers < 1) {
    std::fprintf(stderr, "gpu_bench: --layers wants a positive count\n");
    return 1;
  }

  // The executor's programs first: compiling needs no GPU, so even without
  // one a broken model fails here.
  // The executor chains x @ w^T with square weights, so K = N.
  const std::vector<GemmShape> executorShapes = {{4096, 4096, 4096},
                                                 {8192, 8192, 8192}};
  const DType dtypes[] = {DType::F32, DType::BF16};
  // Declared before the chains so that their modules die before it.
  mlir::DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  std::vector<std::unique_ptr<Chain>> chains;
  try {
    for (DType dt : dtypes)
      for (GemmShape s : executorShapes)
        chains.push_back(compileChain(ctx, s, dt, layers));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    return 1;
  }

  std::string why;
  if (!rt::cudaAvailable(&why)) {
    std::printf("gpu_bench: no GPU benchmarks run: %s\n", why.c_str());
    return 0;
  }

  const std::vector<GemmShape> cublasShapes = {{1024, 1024, 1024},
                                               {4096, 4096, 4096},
                                               {8192, 8192, 8192},
                                               {4096, 4096, 14336},
                                               {4096, 14336, 4096}};
  for (DType dt : dtypes) {
    std::string d = mlirType(dt);
    for (GemmShape s : cublasShapes)
      benchmark::RegisterBenchmark(
          ("gemm/cublas/" + d + "/" + s.str()).c_str(),
          [s, dt](benchmark::State &st) { runCublas(st, s, dt); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    for (const auto &c : chains) {
      if (c->dtype != dt)
        continue;
      const Chain *cp = c.get();
      benchmark::RegisterBenchmark(
          ("gemm/executor/" + d + "/" + c->shape.str() +
           "/layers:" + std::to_string(layers))
              .c_str(),
          [cp](benchmark::State &st) { runExecutorGemm(st, *cp); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          // One call of the function (the parameters are generated once per
          // call), a few timed runs.
          ->Iterations(5);
    }
  }
  for (Op op : {Op::AllReduce, Op::AllGather})
    for (size_t bytes : collectiveSizes())
      for (bool checks : {true, false})
        benchmark::RegisterBenchmark((std::string("nccl/1rank/") + opName(op) +
                                      "/" + std::to_string(bytes) +
                                      "/check:" + (checks ? "on" : "off"))
                                         .c_str(),
                                     [op, bytes, checks](benchmark::State &st) {
                                       runNccl1Rank(st, op, bytes, checks);
                                     })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
  for (Op op : {Op::AllReduce, Op::AllGather})
    for (int n : {2, 4})
      for (size_t bytes : collectiveSizes())
        benchmark::RegisterBenchmark((std::string("threads-device/") +
                                      opName(op) + "/np:" + std::to_string(n) +
                                      "/" + std::to_string(bytes))
                                         .c_str(),
                                     [op, n, bytes](benchmark::State &st) {
                                       runThreadsDevice(st, op, n, bytes);
                                     })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  ncclComms().clear();
  return 0;
}
