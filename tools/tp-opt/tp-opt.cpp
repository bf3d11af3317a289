//===- tp-opt.cpp - tp pass driver ------------------------------*- C++ -*-===//
//
// mlir-opt for tp: parses model and tp IR, runs tp passes and pipelines. The
// input is read with tp's size limit (an endless file fails instead of
// filling memory) and a write error on the output is an error message, not
// LLVM's fatal "IO failure on output stream".
//
// Unlike mlir-opt, tp-opt runs single-threaded unless told otherwise
// (--mlir-disable-threading=false): a tp program is one function, so the
// function pipeline has nothing to run side by side, while MLIR's verifier
// hands each isolated op (every `model.module` body, after every pass) to the
// thread pool one by one, which costs more than it saves on bodies of a few
// ops (bench/compile_bench.py, 1000-layer MLP: 81.6 ms threaded, 75.5 ms
// not; docs/benchmarks.md).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/InitAll.h"
#include "tp/InitUpstream.h"
#include "tp/Support/InputLimits.h"
#include "tp/Support/Version.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

static llvm::cl::list<std::string> stylePlugins(
    "load-style-plugin",
    llvm::cl::desc("Load a shared library that registers parallel styles "
                   "(see examples/style-plugin)"),
    llvm::cl::value_desc("file.so"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tp version " << mlir::tp::getVersion() << "\n";
  });
  // tp's passes and pipeline next to upstream's, on tp's dialects and the
  // upstream ones around them, so one --pass-pipeline mixes them.
  mlir::tp::registerUpstreamPasses();
  mlir::tp::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::tp::registerUpstreamDialects(registry);
  mlir::tp::registerAllDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "tp: tensor-parallel plan lowering driver\n", registry);
  // Single-threaded by default (see the header); an explicit
  // --mlir-disable-threading[=true|false] decides.
  if (llvm::cl::Option *threads =
          llvm::cl::getRegisteredOptions().lookup("mlir-disable-threading");
      threads && threads->getNumOccurrences() == 0)
    (void)threads->addOccurrence(0, threads->ArgStr, "true");
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  for (const std::string &plugin : stylePlugins)
    if (llvm::Error e = mlir::tp::loadStylePlugin(plugin)) {
      llvm::errs() << "tp-opt: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }

  auto input =
      mlir::tp::readFileBounded(inputFilename, mlir::tp::kMaxModelFileBytes);
  if (!input) {
    llvm::errs() << "tp-opt: cannot open input file '" << inputFilename
                 << "': " << llvm::toString(input.takeError()) << "\n";
    return 1;
  }
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(
          mlir::MlirOptMain(output->os(), std::move(*input), registry, config)))
    return 1;
  if (llvm::Error e = mlir::tp::finishOutput(
          output->os(), outputFilename == "-" ? "<stdout>" : outputFilename)) {
    llvm::errs() << "tp-opt: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  output->keep();
  return 0;
}
