//===- tp-model.cpp - model IR from a JSON config ---------------*- C++ -*-===//
//
// Reads a JSON config of PyTorch-style hyperparameters (an MLP, the GPT-style
// transformer of PyTorch's TP tests, or a torchtitan Llama) and prints the
// model as `model` dialect IR with PyTorch FQNs; the reading and building is
// model::buildModelFromConfig (lib/Dialect/Model/Builder).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "tp/Dialect/Model/Builder/ModelBuilder.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/InitAll.h"
#include "tp/Support/InputLimits.h"
#include "tp/Support/Version.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>

using namespace mlir;
using namespace mlir::tp;

static llvm::cl::opt<std::string>
    inputFilename(llvm::cl::Positional, llvm::cl::Required,
                  llvm::cl::desc("<config.json, or - for stdin>"));
static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file (default: stdout)"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"));

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "tp version " << mlir::tp::getVersion() << "\n";
  });
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "tp-model: builds model IR (mlp, transformer, llama) from a JSON "
      "config\n");

  std::string shownName =
      inputFilename == "-" ? std::string("<stdin>") : inputFilename.getValue();
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> input =
      readFileBounded(inputFilename, kMaxJSONFileBytes);
  if (!input) {
    llvm::errs() << "tp-model: cannot open input file '" << shownName
                 << "': " << llvm::toString(input.takeError()) << "\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadDialect<model::ModelDialect, func::FuncDialect>();

  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(&context, shownName, 1, 1));
  if (std::optional<std::string> error = model::buildModelFromConfig(
          *module, (*input)->getBuffer(), shownName)) {
    llvm::errs() << "tp-model: " << shownName << ": " << *error << "\n";
    return 1;
  }
  if (failed(verify(*module))) {
    llvm::errs() << "tp-model: " << shownName
                 << ": internal error: the generated IR does not verify\n";
    return 1;
  }

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "tp-model: " << errorMessage << "\n";
    return 1;
  }
  // Like tp-opt: the module, then an empty line.
  module->print(output->os());
  output->os() << "\n";
  if (llvm::Error e = finishOutput(output->os(), outputFilename == "-"
                                                     ? StringRef("<stdout>")
                                                     : outputFilename)) {
    llvm::errs() << "tp-model: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  output->keep();
  return 0;
}
