//===- e2e_bench.cpp - executor forward time vs ranks and vs raw sgemm ----===//
//
//   e2e_bench --case NAME=MODEL.mlir=PLAN.json [--case ...] [--np 1,2,4]
//             [Google Benchmark flags]
//
// For each case it lowers MODEL.mlir (tp-model output) with PLAN.json (1-D
// mesh, resized to each rank count like `tp-run --np`), compiles it with the
// executor, and registers:
//
//   NAME/executor/np:N  one forward pass (Program::run, seeded parameters, as
//                       tp-run runs it) on N threads of the threads backend;
//                       np:1 is the unparallelized model on one rank.
//   NAME/resident/np:N  one forward pass with the parameters resident (a
//                       RankState that an untimed first run filled): what a
//                       serving loop pays per request.
//   NAME/params/np:1    materializing every parameter with the seeded
//                       generator, which Program::run does inside the forward
//                       pass (so that the GEMM-only share can be told apart).
//   NAME/sgemm/np:N     the exact sequence of cblas_sgemm calls that rank r of
//                       the executor made (recorded once by interposing
//                       cblas_sgemm), replayed straight into OpenBLAS on N
//                       threads at once, on preallocated buffers.
//
// OpenBLAS runs one thread per rank (setBlasThreads(1)). Counters:
// rank_cpu_ms (CPU time of the busiest rank thread: what the wall time would
// be on idle cores; the machine these run on is shared), gflop
// (per rank), peak_bytes (live tensor bytes measured by Program::run, largest
// rank), static_peak_bytes (Program::peakBytes), param_sharded_bytes and
// param_replicated_bytes (parameter bytes one rank loads, from the
// partitioned IR: chunks of sharded parameters, whole replicated ones).
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Executor/Executor.h"
#include "tp/InitAll.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include "GemmReplay.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace mlir;
namespace rt = ::mlir::tp::runtime;
using ::mlir::tp::exec::DataSource;
using ::mlir::tp::exec::Program;

namespace {

using tpbench::GemmCall;
using tpbench::Replay;
using tpbench::replayOnRanks;
using tpbench::threadCpuSeconds;

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

struct Lowered {
  int np;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<Program> program;
  int64_t shardedParamBytes = 0, replicatedParamBytes = 0;
  std::vector<Replay> replays; // one per rank
};

struct Case {
  std::string name, model, plan;
  std::vector<std::unique_ptr<Lowered>> lowered;
};

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "e2e_bench: %s\n", msg.c_str());
  std::exit(2);
}

func::FuncOp entryFunction(ModuleOp module) {
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && (!entry || f.getName() == "forward"))
      entry = f;
  return entry;
}

/// Bytes of parameters one rank loads, split into sharded ones (the only
/// user is a one-axis tp.chunk, which the executor loads as that chunk) and
/// replicated ones.
std::pair<int64_t, int64_t> paramBytesPerRank(func::FuncOp f) {
  int64_t sharded = 0, replicated = 0;
  auto bytes = [](Type t) {
    return cast<RankedTensorType>(t).getNumElements() * 4;
  };
  f.walk([&](mlir::tp::model::ParamOp p) {
    if (p->hasOneUse())
      if (auto chunk = dyn_cast<mlir::tp::ChunkOp>(*p->getUsers().begin()))
        if (chunk.getMeshAxes().size() == 1) {
          sharded += bytes(chunk.getResult().getType());
          return;
        }
    replicated += bytes(p.getResult().getType());
  });
  return {sharded, replicated};
}

std::unique_ptr<Lowered> lower(MLIRContext &ctx, const Case &c, int np) {
  auto l = std::make_unique<Lowered>();
  l->np = np;
  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler diag(sm, &ctx);
  l->module = parseSourceFile<ModuleOp>(c.model, sm, &ctx);
  if (!l->module)
    die("cannot parse " + c.model);
  ModuleOp m = *l->module;
  if (np == 1) {
    if (failed(mlir::tp::partition(m)))
      die("cannot prepare " + c.model);
  } else {
    auto plan = mlir::tp::loadPlanFile(m, c.plan);
    if (failed(plan))
      die("invalid plan " + c.plan);
    m->setAttr("tp.plan", *plan);
    auto mesh = mlir::tp::lookupMesh(m, plan->getMesh());
    if (!mesh || mesh.getRank() != 1)
      die(c.plan + ": needs a 1-D mesh");
    mesh.setShape({(int64_t)np});
    PassManager pm(&ctx);
    mlir::tp::buildTPPipeline(pm, mlir::tp::TPPipelineOptions());
    if (failed(pm.run(m)))
      die("lowering " + c.model + " for " + std::to_string(np) +
          " ranks failed");
  }
  func::FuncOp entry = entryFunction(m);
  std::tie(l->shardedParamBytes, l->replicatedParamBytes) =
      paramBytesPerRank(entry);
  l->program = std::make_unique<Program>(Program::compile(entry));
  // Record each rank's sgemm sequence once.
  l->replays.resize(np);
  DataSource data;
  rt::runRanks(np, [&](rt::Communicator &comm) {
    std::vector<GemmCall> calls;
    {
      tpbench::GemmRecorder record(calls);
      l->program->run(comm, data);
    }
    l->replays[comm.rank()].calls = std::move(calls);
  });
  for (Replay &r : l->replays)
    r.prepare();
  return l;
}

void runExecutor(benchmark::State &state, Lowered *l) {
  DataSource data;
  int64_t peak = 0;
  double cpu = 0;
  for (auto _ : state) {
    std::mutex mu;
    peak = 0;
    cpu = 0;
    rt::runRanks(l->np, [&](rt::Communicator &comm) {
      int64_t p = 0;
      double c0 = threadCpuSeconds();
      l->program->run(comm, data, &p);
      double c = threadCpuSeconds() - c0;
      std::lock_guard<std::mutex> lock(mu);
      peak = std::max(peak, p);
      cpu = std::max(cpu, c);
    });
  }
  state.counters["rank_cpu_ms"] = cpu * 1e3;
  state.counters["peak_bytes"] = static_cast<double>(peak);
  state.counters["static_peak_bytes"] =
      static_cast<double>(l->program->peakBytes());
  state.counters["param_sharded_bytes"] =
      static_cast<double>(l->shardedParamBytes);
  state.counters["param_replicated_bytes"] =
      static_cast<double>(l->replicatedParamBytes);
  state.counters["gflop"] = l->replays[0].flop / 1e9;
  state.counters["gemm_calls"] =
      static_cast<double>(l->replays[0].calls.size());
}

/// A forward pass with resident parameters: each rank fills its RankState
/// with an untimed run, then times one more run (manual time: the slowest
/// rank's wall time between two barriers).
void runResident(benchmark::State &state, Lowered *l) {
  DataSource data;
  double cpu = 0;
  for (auto _ : state) {
    std::mutex mu;
    double wall = 0;
    cpu = 0;
    rt::runRanks(l->np, [&](rt::Communicator &comm) {
      ::mlir::tp::exec::RankState rs;
      l->program->run(comm, data, nullptr, nullptr, &rs);
      comm.barrier();
      auto t0 = std::chrono::steady_clock::now();
      double c0 = threadCpuSeconds();
      l->program->run(comm, data, nullptr, nullptr, &rs);
      double c = threadCpuSeconds() - c0;
      comm.barrier();
      double w =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count();
      std::lock_guard<std::mutex> lock(mu);
      cpu = std::max(cpu, c);
      wall = std::max(wall, w);
    });
    state.SetIterationTime(wall);
  }
  state.counters["rank_cpu_ms"] = cpu * 1e3;
  state.counters["gflop"] = l->replays[0].flop / 1e9;
}

void runSgemm(benchmark::State &state, Lowered *l) {
  double cpu = 0;
  for (auto _ : state)
    cpu = replayOnRanks(l->replays);
  state.counters["rank_cpu_ms"] = cpu * 1e3;
  state.counters["gflop"] = l->replays[0].flop / 1e9;
  state.counters["gemm_calls"] =
      static_cast<double>(l->replays[0].calls.size());
}

void runParams(benchmark::State &state, Lowered *l) {
  DataSource data;
  double cpu = 0;
  for (auto _ : state) {
    double c0 = threadCpuSeconds();
    for (const auto &p : l->program->params()) {
      rt::Tensor t = Program::globalParam(p, data);
      benchmark::DoNotOptimize(t.data());
    }
    cpu = threadCpuSeconds() - c0;
  }
  state.counters["rank_cpu_ms"] = cpu * 1e3;
}

std::vector<int> parseList(const std::string &s) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos)
      comma = s.size();
    out.push_back(std::stoi(s.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  // Declared before the cases so that their modules die before the context.
  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext ctx(registry);
  std::vector<Case> cases;
  std::vector<int> nps = {1, 2, 4};
  std::vector<char *> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--case" && i + 1 < argc) {
      std::string v = argv[++i];
      size_t e1 = v.find('='), e2 = v.rfind('=');
      if (e1 == std::string::npos || e1 == e2)
        die("--case wants NAME=MODEL.mlir=PLAN.json, got " + v);
      cases.push_back({v.substr(0, e1),
                       v.substr(e1 + 1, e2 - e1 - 1),
                       v.substr(e2 + 1),
                       {}});
    } else if (a == "--np" && i + 1 < argc) {
      nps = parseList(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (cases.empty())
    die("give at least one --case NAME=MODEL.mlir=PLAN.json");

  rt::setBlasThreads(1);
  // As tp-run: freed tensors' memory is reused, not faulted in again.
  rt::keepFreedTensorMemory();
  ctx.loadAllAvailableDialects();

  for (Case &c : cases) {
    for (int np : nps)
      c.lowered.push_back(lower(ctx, c, np));
    for (auto &l : c.lowered) {
      std::string np = "/np:" + std::to_string(l->np);
      Lowered *lp = l.get();
      benchmark::RegisterBenchmark(
          (c.name + "/executor" + np).c_str(),
          [lp](benchmark::State &s) { runExecutor(s, lp); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
      benchmark::RegisterBenchmark(
          (c.name + "/resident" + np).c_str(),
          [lp](benchmark::State &s) { runResident(s, lp); })
          ->Unit(benchmark::kMillisecond)
          ->UseManualTime()
          ->Iterations(1);
      benchmark::RegisterBenchmark(
          (c.name + "/sgemm" + np).c_str(),
          [lp](benchmark::State &s) { runSgemm(s, lp); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
      if (l->np == 1)
        benchmark::RegisterBenchmark(
            (c.name + "/params" + np).c_str(),
            [lp](benchmark::State &s) { runParams(s, lp); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(1);
    }
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
