//===- train_bench.cpp - training step time vs ranks and vs its GEMM floor
//-===//
//
//   train_bench --case NAME=MODEL.mlir=PLAN.json [--case ...]
//               [--memory-case NAME=MODEL.mlir=PLAN.json ...]
//               [--np 1,2,4] [--optimizer sgd|adamw] [--steps 3]
//               [Google Benchmark flags]
//
// MODEL.mlir is a tp-model model returning a loss (`"loss": true`). For
// each case and rank count it lowers the model as `tp-run --train` does
// (tp-pipeline with grad=true and the optimizer; np:1 is the unparallelized
// model on one rank, the plan's 1-D mesh is resized to the others), and
// registers:
//
//   NAME/step/np:N    training steps (forward, backward and optimizer
//                     update: one Program::run each) on N threads of the
//                     threads backend, with the parameters and the optimizer
//                     state resident (a RankState that an untimed first step
//                     filled), as a training loop runs them: --steps timed
//                     steps, each the slowest rank's wall time between two
//                     barriers; the iteration's (manual) time is their
//                     median.
//   NAME/floor/np:N   the step's GEMM floor: each sgemm call of the forward
//                     pass (recorded from the same model lowered without
//                     grad) and the two GEMMs of its backward (dA = dC B^T,
//                     dB = A^T dC), straight into OpenBLAS on N threads at
//                     once, on preallocated buffers.
//   NAME/memory/np:N  (memory cases, not run) the step's liveness plan;
//                     np:1 keeps the plan, on a mesh of one.
//
// OpenBLAS runs one thread per rank (setBlasThreads(1)). Memory counters
// (bytes per rank, from the static liveness plan of the compiled step;
// step and memory rows): param_bytes (the rank's parameter shards),
// grad_bytes (the gradients the step returns), updated_bytes (the updated
// parameters it returns), optimizer_state_bytes (AdamW: two moments per
// parameter element; SGD: a momentum buffer when momentum > 0),
// activation_peak_bytes (the peak of everything else that is live: the
// forward activations kept for the backward, the backward's temporaries),
// saved_bytes (those live when the loss is computed, i.e. what the forward
// keeps for the backward, plus the logits) and static_peak_bytes
// (Program::peakBytes: all of it, optimizer state excepted). Step counters:
// rank_cpu_ms (CPU time of the busiest rank thread), step_gflop (the GEMM
// flop the step ran, per rank, recorded), floor_gflop (the floor's),
// gemm_calls and floor_calls.
//
//===----------------------------------------------------------------------===//

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
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace mlir;
namespace rt = ::mlir::tp::runtime;
using ::mlir::tp::exec::DataSource;
using ::mlir::tp::exec::Opcode;
using ::mlir::tp::exec::Program;
using ::mlir::tp::exec::RankState;
using tpbench::GemmCall;
using tpbench::Replay;
using tpbench::replayOnRanks;
using tpbench::threadCpuSeconds;

namespace {

[[noreturn]] void die(const std::string &msg) {
  std::fprintf(stderr, "train_bench: %s\n", msg.c_str());
  std::exit(2);
}

//===----------------------------------------------------------------------===//
// The step's memory, from its liveness plan
//===----------------------------------------------------------------------===//

/// Bytes per rank of the parts of a training step (see the file comment).
struct StepMemory {
  int64_t params = 0, grads = 0, updated = 0, optimizerState = 0;
  int64_t activationPeak = 0, saved = 0, staticPeak = 0;
};

StepMemory stepMemory(const Program &p) {
  const auto &instrs = p.instructions();
  const auto &slots = p.slotTypes();
  enum Kind { Activation, Param, Result };
  std::vector<Kind> kind(slots.size(), Activation);
  StepMemory m;
  for (const auto &in : instrs)
    if (in.op == Opcode::Param || in.op == Opcode::ParamChunk) {
      kind[in.result] = Param;
      m.params += slots[in.result].staticBytes;
    }
  for (size_t i = 0; i < p.resultSlots().size(); ++i) {
    int s = p.resultSlots()[i];
    const auto &layout = p.results()[i];
    if (!layout.gradOf.empty())
      m.grads += slots[s].staticBytes;
    else if (!layout.updated.empty())
      m.updated += slots[s].staticBytes;
    else
      continue; // the loss: a scalar, counted with the activations
    kind[s] = Result;
  }
  for (const auto &in : instrs) {
    int64_t bytes =
        slots[in.operands.empty() ? in.result : in.operands[0]].staticBytes;
    if (in.op == Opcode::AdamWUpdate)
      m.optimizerState += 2 * bytes;
    else if (in.op == Opcode::SGDUpdate && in.hyper.size() > 1 &&
             in.hyper[1] > 0)
      m.optimizerState += bytes;
  }
  int lossSlot = p.resultSlots().empty() ? -1 : p.resultSlots()[0];
  int64_t live = 0;
  for (int s : p.inputSlots())
    live += slots[s].staticBytes;
  m.activationPeak = live;
  for (const auto &in : instrs) {
    if (kind[in.result] == Activation)
      live += slots[in.result].staticBytes;
    m.activationPeak = std::max(m.activationPeak, live);
    if (in.result == lossSlot)
      m.saved = live;
    for (int s : in.frees)
      if (kind[s] == Activation)
        live -= slots[s].staticBytes;
  }
  m.staticPeak = p.peakBytes();
  return m;
}

void setMemoryCounters(benchmark::State &state, const StepMemory &m) {
  auto set = [&](const char *name, int64_t v) {
    state.counters[name] = static_cast<double>(v);
  };
  set("param_bytes", m.params);
  set("grad_bytes", m.grads);
  set("updated_bytes", m.updated);
  set("optimizer_state_bytes", m.optimizerState);
  set("activation_peak_bytes", m.activationPeak);
  set("saved_bytes", m.saved);
  set("static_peak_bytes", m.staticPeak);
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

struct Options {
  std::string optimizer = "sgd";
  /// Timed steps per iteration of NAME/step (after one untimed step).
  int steps = 3;
};

struct CaseSpec {
  std::string name, model, plan;
  bool memoryOnly = false;
};

/// One case lowered for one rank count: the training step, and (for the
/// floor) each rank's forward GEMMs with their backward ones.
struct Lowered {
  int np = 1;
  OwningOpRef<ModuleOp> module, forwardModule;
  std::unique_ptr<Program> step;
  StepMemory memory;
  std::vector<Replay> floors; // one per rank
  double stepFlop = 0;        // GEMM flop of one step, rank 0
  size_t stepCalls = 0;
};

func::FuncOp entryFunction(ModuleOp module) {
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && (!entry || f.getName() == "forward"))
      entry = f;
  if (!entry)
    die("the module has no function to run");
  return entry;
}

/// Parses spec.model and lowers it for \p np ranks: a training step with
/// \p optimizer, or (empty) the forward pass alone. One rank runs the
/// unparallelized model, except for a memory case, which keeps its plan on
/// a mesh of one (the same program, e.g. loss_parallel's decomposed loss,
/// on one rank).
OwningOpRef<ModuleOp> lowerModel(MLIRContext &ctx, const CaseSpec &spec, int np,
                                 const std::string &optimizer) {
  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler diag(sm, &ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(spec.model, sm, &ctx);
  if (!module)
    die("cannot parse " + spec.model);
  ModuleOp m = *module;
  bool train = !optimizer.empty();
  if (np == 1 && !spec.memoryOnly) {
    mlir::tp::OptimizerOptions o;
    o.kind = optimizer;
    if (train && (failed(mlir::tp::differentiate(m)) ||
                  failed(mlir::tp::addOptimizerStep(m, o))))
      die("cannot differentiate " + spec.model);
    if (failed(mlir::tp::partition(m)))
      die("cannot prepare " + spec.model);
    return module;
  }
  auto plan = mlir::tp::loadPlanFile(m, spec.plan);
  if (failed(plan))
    die("invalid plan " + spec.plan);
  m->setAttr("tp.plan", *plan);
  auto mesh = mlir::tp::lookupMesh(m, plan->getMesh());
  if (!mesh || mesh.getRank() != 1)
    die(spec.plan + ": needs a 1-D mesh");
  mesh.setShape({(int64_t)np});
  PassManager pm(&ctx);
  mlir::tp::TPPipelineOptions pipeline;
  pipeline.grad = train;
  // Megatron's sequence parallelism: the backward gathers again what the
  // forward gathered, so only shards live across the step.
  pipeline.regather = train;
  pipeline.optimizer = optimizer;
  mlir::tp::buildTPPipeline(pm, pipeline);
  if (failed(pm.run(m)))
    die("lowering " + spec.model + " for " + std::to_string(np) +
        " ranks failed");
  return module;
}

std::unique_ptr<Lowered> lower(MLIRContext &ctx, const CaseSpec &spec, int np,
                               const Options &options) {
  auto l = std::make_unique<Lowered>();
  l->np = np;
  l->module = lowerModel(ctx, spec, np, options.optimizer);
  l->step =
      std::make_unique<Program>(Program::compile(entryFunction(*l->module)));
  l->memory = stepMemory(*l->step);
  if (spec.memoryOnly)
    return l;

  // The floor: each rank's forward GEMMs, recorded from the forward pass of
  // the same lowering, each followed by its two backward GEMMs.
  l->forwardModule = lowerModel(ctx, spec, np, "");
  Program forward = Program::compile(entryFunction(*l->forwardModule));
  l->floors.resize(np);
  DataSource data;
  rt::runRanks(np, [&](rt::Communicator &comm) {
    std::vector<GemmCall> calls;
    {
      tpbench::GemmRecorder record(calls);
      forward.run(comm, data);
    }
    Replay &floor = l->floors[comm.rank()];
    for (const GemmCall &g : calls) {
      floor.calls.push_back(g);
      for (const GemmCall &b : tpbench::backwardGemms(g))
        floor.calls.push_back(b);
    }
  });
  for (Replay &r : l->floors)
    r.prepare();
  // What the step itself runs (rank 0).
  rt::runRanks(np, [&](rt::Communicator &comm) {
    std::vector<GemmCall> calls;
    {
      tpbench::GemmRecorder record(calls);
      l->step->run(comm, data);
    }
    if (comm.rank() == 0) {
      for (const GemmCall &g : calls)
        l->stepFlop += g.flop();
      l->stepCalls = calls.size();
    }
  });
  return l;
}

//===----------------------------------------------------------------------===//
// Benchmarks
//===----------------------------------------------------------------------===//

/// The median of \p v (not empty).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Steps with resident parameters and optimizer state: each rank runs an
/// untimed step (which loads the parameters and creates the optimizer
/// state), then `steps` more, each timed between two barriers. The
/// iteration's time is their median (manual time: the slowest rank's wall
/// time); rank_cpu_ms is the median of the busiest rank's CPU time,
/// rank_cpu_min_ms its minimum.
void runStep(benchmark::State &state, Lowered *l, int steps) {
  DataSource data;
  std::vector<double> walls(steps), cpus(steps);
  for (auto _ : state) {
    std::mutex mu;
    std::fill(walls.begin(), walls.end(), 0.0);
    std::fill(cpus.begin(), cpus.end(), 0.0);
    rt::runRanks(l->np, [&](rt::Communicator &comm) {
      RankState rs;
      // A training loop: the updated parameters stay in the RankState, the
      // step returns the loss and the gradients.
      rs.setReturnsUpdated(false);
      l->step->run(comm, data, nullptr, nullptr, &rs);
      for (int i = 0; i < steps; ++i) {
        comm.barrier();
        auto t0 = std::chrono::steady_clock::now();
        double c0 = threadCpuSeconds();
        l->step->run(comm, data, nullptr, nullptr, &rs);
        double c = threadCpuSeconds() - c0;
        comm.barrier();
        double w =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                .count();
        std::lock_guard<std::mutex> lock(mu);
        cpus[i] = std::max(cpus[i], c);
        walls[i] = std::max(walls[i], w);
      }
    });
    state.SetIterationTime(median(walls));
  }
  state.counters["rank_cpu_ms"] = median(cpus) * 1e3;
  state.counters["rank_cpu_min_ms"] =
      *std::min_element(cpus.begin(), cpus.end()) * 1e3;
  state.counters["step_gflop"] = l->stepFlop / 1e9;
  state.counters["floor_gflop"] = l->floors[0].flop / 1e9;
  state.counters["gemm_calls"] = static_cast<double>(l->stepCalls);
  setMemoryCounters(state, l->memory);
}

void runFloor(benchmark::State &state, Lowered *l) {
  double cpu = 0;
  for (auto _ : state)
    cpu = replayOnRanks(l->floors);
  state.counters["rank_cpu_ms"] = cpu * 1e3;
  state.counters["floor_gflop"] = l->floors[0].flop / 1e9;
  state.counters["floor_calls"] =
      static_cast<double>(l->floors[0].calls.size());
}

void runMemory(benchmark::State &state, Lowered *l) {
  for (auto _ : state)
    benchmark::DoNotOptimize(l->memory.staticPeak);
  setMemoryCounters(state, l->memory);
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

CaseSpec parseCase(const std::string &v, bool memoryOnly) {
  size_t e1 = v.find('='), e2 = v.rfind('=');
  if (e1 == std::string::npos || e1 == e2)
    die("a case is NAME=MODEL.mlir=PLAN.json, got " + v);
  return {v.substr(0, e1), v.substr(e1 + 1, e2 - e1 - 1), v.substr(e2 + 1),
          memoryOnly};
}

} // namespace

int main(int argc, char **argv) {
  // Declared before the cases so that their modules die before the context.
  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext ctx(registry);
  std::vector<CaseSpec> specs;
  std::vector<int> nps = {1, 2, 4};
  Options options;
  std::vector<char *> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--case" && i + 1 < argc)
      specs.push_back(parseCase(argv[++i], false));
    else if (a == "--memory-case" && i + 1 < argc)
      specs.push_back(parseCase(argv[++i], true));
    else if (a == "--np" && i + 1 < argc)
      nps = parseList(argv[++i]);
    else if (a == "--optimizer" && i + 1 < argc)
      options.optimizer = argv[++i];
    else if (a == "--steps" && i + 1 < argc)
      options.steps = std::stoi(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  if (specs.empty())
    die("give at least one --case or --memory-case NAME=MODEL.mlir=PLAN.json");
  if (options.steps < 1)
    die("--steps must be at least 1");
  if (options.optimizer != "sgd" && options.optimizer != "adamw")
    die("--optimizer must be sgd or adamw, not '" + options.optimizer + "'");

  rt::setBlasThreads(1);
  // As tp-run: freed tensors' memory is reused, not faulted in again.
  rt::keepFreedTensorMemory();
  ctx.loadAllAvailableDialects();

  std::vector<std::unique_ptr<Lowered>> lowered;
  for (const CaseSpec &spec : specs) {
    for (int np : nps) {
      lowered.push_back(lower(ctx, spec, np, options));
      Lowered *lp = lowered.back().get();
      std::string suffix = "/np:" + std::to_string(np);
      if (spec.memoryOnly) {
        benchmark::RegisterBenchmark(
            (spec.name + "/memory" + suffix).c_str(),
            [lp](benchmark::State &s) { runMemory(s, lp); })
            ->Iterations(1);
        continue;
      }
      benchmark::RegisterBenchmark(
          (spec.name + "/step" + suffix).c_str(),
          [lp, steps = options.steps](benchmark::State &s) {
            runStep(s, lp, steps);
          })
          ->Unit(benchmark::kMillisecond)
          ->UseManualTime()
          ->Iterations(1);
      benchmark::RegisterBenchmark(
          (spec.name + "/floor" + suffix).c_str(),
          [lp](benchmark::State &s) { runFloor(s, lp); })
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
