//===- main.cpp - tp embedded in another program ----------------*- C++ -*-===//
//
// An out-of-tree program that uses tp as a library, as a compiler that
// embeds it would: its own MLIRContext with tp's dialects registered, a
// model built in the model dialect, a tensor-parallel plan built in C++ (no
// plan file), the tp pipeline run by its own PassManager (the communication
// report printed, errors collected by its own diagnostic handler), and the
// SPMD program run on N rank threads and checked against the model on one
// rank. Exits 1 when the N ranks do not compute what one rank does.
//
//   tp-embed [--np N] [--corrupt]
//
// --corrupt changes one output element before the check, to show that the
// check fails then.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/Builder/ModelBuilder.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PlanBuilder.h"
#include "tp/InitAll.h"
#include "tp/Launch/Launcher.h"
#include "tp/Launch/Prepare.h"
#include "tp/Launch/Report.h"
#include "tp/Launch/Verify.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace exec = mlir::tp::exec;

namespace {

/// PyTorch's two-layer MLP (net1 = Linear(16, 48), ReLU, net2 = Linear(48,
/// 16)) on a batch of 8, as tp-model's configs describe it.
constexpr const char *kModelConfig = R"json({
  "arch": "mlp", "in_features": 16, "hidden": 48, "out_features": 16,
  "bias": true, "batch": 8
})json";

int usage(const char *argv0) {
  llvm::errs() << "usage: " << argv0 << " [--np N] [--corrupt]\n";
  return 2;
}

/// Prints what the diagnostic handler collected and returns 1.
int failWith(const std::string &what, const std::vector<std::string> &errors) {
  llvm::errs() << "tp-embed: error: " << what << "\n";
  for (const std::string &e : errors)
    llvm::errs() << "  " << e << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  int numRanks = 2;
  bool corrupt = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--np") && i + 1 < argc)
      numRanks = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--corrupt"))
      corrupt = true;
    else
      return usage(argv[0]);
  }
  if (numRanks < 1)
    return usage(argv[0]);

  // tp's dialects and the upstream ones model IR uses (func, arith, tensor),
  // in this program's own registry and context.
  mlir::DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors are collected here instead of printed (a compiler reports them
  // its own way); warnings and notes are dropped.
  std::vector<std::string> errors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      errors.push_back(d.str());
    return mlir::success();
  });

  // The model, as `func.func @forward` of a new module.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  if (std::optional<std::string> error = mlir::tp::model::buildModelFromConfig(
          *module, kModelConfig, "embed-mlp"))
    return failWith("cannot build the model: " + *error, errors);
  // The one-rank reference: the model without a plan, partitioned for a
  // single rank.
  mlir::OwningOpRef<mlir::ModuleOp> reference = module->clone();
  if (mlir::failed(mlir::tp::partition(*reference)))
    return failWith("cannot prepare the reference", errors);

  // The plan, as PyTorch's parallelize_module would take it:
  // {"net1": ColwiseParallel(), "net2": RowwiseParallel(output_layouts=
  // Replicate())} on a 1-D mesh of numRanks ranks.
  mlir::tp::PlanBuilder plan(&context);
  plan.setMesh({numRanks}, {"tp"})
      .add("net1", plan.colwise())
      .add("net2", plan.rowwise(/*inputLayouts=*/{}, plan.replicate()));
  if (mlir::failed(plan.build(*module)))
    return failWith("invalid plan", errors);

  // The tp pipeline, with the communication report on stderr.
  mlir::PassManager pm(&context);
  mlir::tp::TPPipelineOptions options;
  options.reportTable = true;
  mlir::tp::buildTPPipeline(pm, options);
  llvm::errs() << "communication report (" << numRanks << " ranks):\n";
  if (mlir::failed(pm.run(*module)))
    return failWith("the tp pipeline failed", errors);

  try {
    // Compiled once, run by every rank thread.
    exec::Program program =
        exec::Program::compile(exec::entryFunction(*module, "embed-mlp"));
    exec::LaunchOptions launch;
    launch.toolName = "tp-embed";
    launch.backend = "threads";
    launch.numRanks = numRanks;
    std::unique_ptr<exec::Launcher> launcher =
        exec::Launcher::create(launch, &argc, &argv);
    // Seeded weights and inputs: every rank generates its own shard.
    exec::DataSource data;
    data.seed = 7;
    exec::RunResult run = launcher->run(program, data);
    std::vector<exec::Tensor> outputs = run.assemble(program);
    if (corrupt && !outputs.empty() && outputs[0].numel() > 0)
      outputs[0].data()[0] += 1.0f;

    // The same data through the model on one rank.
    exec::Program oneRank =
        exec::Program::compile(exec::entryFunction(*reference, "embed-mlp"));
    exec::Verification check =
        exec::verifyOutputs(program, outputs, oneRank, data, std::nullopt);
    exec::RunReport report;
    report.toolName = launch.toolName;
    report.backend = launch.backend;
    report.program = &program;
    report.run = &run;
    report.verification = &check;
    report.print(llvm::outs());
    llvm::outs().flush();
    if (!check.passed) {
      llvm::errs() << "tp-embed: error: " << numRanks
                   << " ranks differ from one rank: " << check.failure()
                   << "\n";
      return 1;
    }
    llvm::outs() << "tp-embed: " << numRanks
                 << " ranks match one rank (max relative error "
                 << check.maxRelError << ")\n";
    return 0;
  } catch (const std::exception &e) {
    return failWith(e.what(), errors);
  }
}
