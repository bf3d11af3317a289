//===- tp-run.cpp - run a tensor-parallel model on N ranks ------*- C++ -*-===//
//
// Lowers a model with a plan (or takes an already partitioned program), runs
// it on N ranks of a backend, and optionally verifies it against the
// unparallelized model on one rank.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/Executor.h"
#include "tp/InitAll.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <mutex>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::tp::runtime;
using ::tp::exec::DataSource;
using ::tp::exec::Program;
using rt::Tensor;

static cl::OptionCategory category("tp-run options");
static cl::opt<std::string> modelFile(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> planFile("plan", cl::desc("JSON plan file"),
                                     cl::value_desc("PLAN.json"),
                                     cl::cat(category));
static cl::opt<int> numRanks(
    "np", cl::desc("Number of ranks (default: the plan's mesh size); on a "
                   "1-D mesh this resizes the mesh"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string> backend("backend",
                                    cl::desc("threads (default), mpi, nccl"),
                                    cl::init("threads"), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of generated data"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string> weights("weights",
                                    cl::desc("Parameters (safetensors)"),
                                    cl::cat(category));
static cl::opt<std::string> inputs("inputs",
                                   cl::desc("Inputs (safetensors)"),
                                   cl::cat(category));
static cl::opt<std::string> saveWeights(
    "save-weights", cl::desc("Write the global parameters (safetensors)"),
    cl::cat(category));
static cl::opt<std::string> saveInputs(
    "save-inputs", cl::desc("Write the global inputs (safetensors)"),
    cl::cat(category));
static cl::opt<std::string> dumpOutputs(
    "dump-outputs", cl::desc("Write the gathered outputs (safetensors)"),
    cl::cat(category));
static cl::opt<bool> verify(
    "verify", cl::desc("Also run the unparallelized model on one rank and "
                       "compare"),
    cl::cat(category));
static cl::opt<double> rtol("rtol",
                            cl::desc("Largest relative error --verify "
                                     "accepts (default 1e-5)"),
                            cl::init(1e-5), cl::cat(category));
static cl::opt<bool> jsonOutput("json",
                                cl::desc("Print one JSON object as summary"),
                                cl::cat(category));
static cl::opt<int> timeoutSeconds(
    "timeout", cl::desc("Seconds a rank waits in a collective before "
                        "failing (default 30)"),
    cl::init(30), cl::cat(category));

namespace {

[[noreturn]] void fail(const std::string &message) {
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

/// Runs `program` on `n` threads and returns every rank's results and the
/// collective counts of rank 0.
struct RunResult {
  std::vector<std::vector<Tensor>> perRank;
  std::map<std::string, int64_t> collectives;
  double ms = 0;
};

RunResult runThreads(const Program &program, int n, const DataSource &data) {
  RunResult result;
  result.perRank.resize(n);
  std::mutex mutex;
  auto start = std::chrono::steady_clock::now();
  rt::runRanks(
      n,
      [&](rt::Communicator &comm) {
        std::vector<Tensor> out = program.run(comm, data);
        std::lock_guard<std::mutex> lock(mutex);
        result.perRank[comm.rank()] = std::move(out);
        if (comm.rank() == 0)
          for (auto &[k, v] : comm.stats().counts)
            result.collectives[k] += v;
      },
      std::chrono::seconds(timeoutSeconds));
  result.ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  return result;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "tp-run: run a tensor-parallel model on N "
                              "ranks\n");
  if (backend != "threads")
    fail("backend '" + backend +
         "' is not available in this build (available: threads)");
  if (numRanks < 0)
    fail("--np must be positive");
  if (timeoutSeconds <= 0)
    fail("--timeout must be positive");

  DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(modelFile, sourceMgr, &context);
  if (!module)
    fail("cannot parse " + modelFile);

  // The reference: the unparallelized model, before any plan touches it.
  OwningOpRef<ModuleOp> reference;
  func::FuncOp entry = entryFunction(*module);
  bool partitioned = entry->hasAttr("tp.spmd");
  if (verify) {
    if (partitioned)
      fail("--verify needs the model before lowering, not a partitioned "
           "program");
    reference = module->clone();
    reference->walk([](mlir::tp::MeshOp m) { m.erase(); });
    (*reference)->removeAttr("tp.plan");
    if (failed(mlir::tp::partition(*reference)))
      fail("cannot prepare the reference model");
  }

  if (!partitioned) {
    if (!planFile.empty()) {
      auto plan = mlir::tp::loadPlanFile(*module, planFile);
      if (failed(plan))
        fail("invalid plan " + planFile);
      (*module)->setAttr("tp.plan", *plan);
    }
    if (auto plan = (*module)->getAttrOfType<mlir::tp::PlanAttr>("tp.plan")) {
      // --np resizes a 1-D mesh; on N-D meshes it must match.
      auto mesh = mlir::tp::lookupMesh(*module, plan.getMesh());
      if (!mesh)
        fail("the plan's mesh is missing");
      if (numRanks > 0 && numRanks != mesh.getNumRanks()) {
        if (mesh.getRank() != 1)
          fail("--np " + std::to_string(numRanks) + " does not match the " +
               std::to_string(mesh.getRank()) + "-D mesh of " +
               std::to_string(mesh.getNumRanks()) + " ranks");
        mesh.setShape({(int64_t)numRanks});
      }
    } else if (numRanks > 1) {
      fail("no plan: give --plan PLAN.json (or a tp.plan attribute in the "
           "model) to run on " +
           std::to_string(numRanks) + " ranks");
    }
    if ((*module)->hasAttr("tp.plan")) {
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
    int n = 1;
    for (int64_t d : program.meshShape())
      n *= d;
    if (partitioned && numRanks > 0 && numRanks != n)
      fail("--np " + std::to_string(numRanks) + " does not match the " +
           "program's mesh of " + std::to_string(n) + " ranks");
    DataSource data;
    data.seed = seed;
    data.weightsFile = weights;
    data.inputsFile = inputs;

    if (!saveWeights.empty()) {
      std::vector<Tensor> tensors;
      std::vector<std::pair<std::string, const Tensor *>> named;
      for (const auto &p : program.params())
        tensors.push_back(Program::globalParam(p, data));
      for (size_t i = 0; i < tensors.size(); ++i)
        named.push_back({program.params()[i].name, &tensors[i]});
      rt::writeSafetensors(saveWeights, named);
    }
    if (!saveInputs.empty()) {
      std::vector<Tensor> tensors;
      std::vector<std::pair<std::string, const Tensor *>> named;
      for (const auto &in : program.inputs())
        tensors.push_back(Program::globalInput(in, data));
      for (size_t i = 0; i < tensors.size(); ++i)
        named.push_back({program.inputs()[i].name, &tensors[i]});
      rt::writeSafetensors(saveInputs, named);
    }

    RunResult run = runThreads(program, n, data);
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
    if (verify) {
      Program ref = Program::compile(entryFunction(*reference));
      RunResult refRun = runThreads(ref, 1, data);
      if (refRun.perRank[0].size() != outputs.size())
        fail("the reference returns a different number of results");
      for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor &a = outputs[i], &b = refRun.perRank[0][i];
        if (a.shape() != b.shape())
          fail("result " + std::to_string(i) + " has shape [" +
               a.shapeString() + "] but the reference has [" +
               b.shapeString() + "]");
        for (int64_t e = 0; e < a.numel(); ++e) {
          double d = std::fabs((double)a.data()[e] - b.data()[e]);
          if (std::isnan(d))
            d = INFINITY;
          maxAbs = std::max(maxAbs, d);
          maxRef = std::max(maxRef, (double)std::fabs(b.data()[e]));
        }
      }
    }
    double maxRel = maxRef > 0 ? maxAbs / maxRef : maxAbs;
    verified = verify && maxRel <= rtol;

    std::string meshStr;
    for (size_t i = 0; i < program.meshShape().size(); ++i)
      meshStr += (i ? "x" : "") + std::to_string(program.meshShape()[i]);
    if (jsonOutput) {
      llvm::json::Object coll;
      for (const char *k : {"all_reduce", "all_gather", "reduce_scatter",
                            "all_to_all", "broadcast"})
        coll[k] = run.collectives.count(k) ? run.collectives[k] : 0;
      llvm::json::Object o{{"np", n},
                           {"mesh", meshStr},
                           {"backend", backend},
                           {"verified", verified},
                           {"collectives", std::move(coll)},
                           {"peak_bytes_per_rank", program.peakBytes()},
                           {"time_ms", run.ms}};
      if (verify) {
        o["max_abs_error"] = maxAbs;
        o["max_rel_error"] = maxRel;
      } else {
        o["max_abs_error"] = nullptr;
        o["max_rel_error"] = nullptr;
      }
      llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(o)))
                   << "\n";
    } else {
      llvm::outs() << "tp-run: " << n << " rank(s), mesh " << meshStr
                   << ", backend " << backend << ", " << program.size()
                   << " instructions, peak " << program.peakBytes()
                   << " bytes/rank, " << llvm::format("%.2f", run.ms)
                   << " ms\n";
      llvm::outs() << "collectives per rank:";
      if (run.collectives.empty())
        llvm::outs() << " none";
      for (auto &[k, v] : run.collectives)
        llvm::outs() << " " << k << "=" << v;
      llvm::outs() << "\n";
      if (verify)
        llvm::outs() << "verify against 1 rank: max abs error "
                     << llvm::format("%.3g", maxAbs) << ", max rel error "
                     << llvm::format("%.3g", maxRel)
                     << (verified ? " (ok)" : " (FAILED)") << "\n";
    }
    if (verify && !verified) {
      llvm::errs() << "tp-run: error: verification failed: max relative "
                      "error "
                   << maxRel << " exceeds " << rtol << "\n";
      return 1;
    }
  } catch (const std::exception &e) {
    fail(e.what());
  }
  return 0;
}
