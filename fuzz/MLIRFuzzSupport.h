//===- MLIRFuzzSupport.h - MLIR pieces of the tp fuzz targets ---*- C++ -*-===//
//
// For the fuzz targets that build or parse IR: a fresh MLIRContext per input
// with tp's dialects and a handler that renders every diagnostic (so that
// diagnostic printing is fuzzed too) without printing it, and a tp-pipeline
// run that turns "a pass succeeded but left invalid IR" into a crash.
//
//===----------------------------------------------------------------------===//

#ifndef TP_FUZZ_MLIRFUZZSUPPORT_H
#define TP_FUZZ_MLIRFUZZSUPPORT_H

#include "FuzzSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "tp/Dialect/TP/IR/TPAttrs.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/InitAll.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace mlir::tp::fuzz {

/// What each input gets: a new context (nothing uniqued by one input leaks
/// into the next, so a crash reproduces from its input alone) without a
/// thread pool (one input at a time; threads would only slow each input
/// down), and a diagnostic handler that renders each diagnostic, its notes
/// and its location into a string it drops. TP_FUZZ_PRINT_DIAGNOSTICS=1
/// prints them to stderr instead, for reproducing.
class FuzzContext {
public:
  FuzzContext()
      : context(registry(), MLIRContext::Threading::DISABLED),
        handler(&context, [](Diagnostic &diag) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag << "\n";
          for (Diagnostic &note : diag.getNotes())
            os << note.getLocation() << ": note: " << note << "\n";
          if (std::getenv("TP_FUZZ_PRINT_DIAGNOSTICS"))
            llvm::errs() << text;
          return success();
        }) {}

  MLIRContext context;

private:
  static const DialectRegistry &registry() {
    static const DialectRegistry *instance = [] {
      auto *r = new DialectRegistry();
      tp::registerAllDialects(*r);
      return r;
    }();
    return *instance;
  }

  ScopedDiagnosticHandler handler;
};

/// Verifies the IR after each pass that succeeded (the pass manager's own
/// verifier is off): an invalid result aborts, naming the pass.
class VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "tp fuzz: " << pass->getArgument()
                 << " succeeded but left IR that does not verify\n";
    std::abort();
  }
};

/// Runs tp-pipeline on `module` (its plan: the module's tp.plan attribute)
/// and, if it succeeds, prints the result to a discarded stream. Failing is
/// fine; crashing or leaving invalid IR is not.
inline void runTPPipeline(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
  tp::buildTPPipeline(pm, tp::TPPipelineOptions());
  if (failed(pm.run(module)))
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
}

/// Parses the JSON plan `text` into `module`'s tp.plan attribute (creating
/// its mesh) and runs tp-pipeline with it; a plan that does not parse ends
/// there.
inline void lowerWithPlan(ModuleOp module, StringRef text, StringRef source) {
  FailureOr<PlanAttr> plan = parsePlan(module, text, source);
  if (failed(plan))
    return;
  module->setAttr("tp.plan", *plan);
  runTPPipeline(module);
}

} // namespace mlir::tp::fuzz

/// Defines LLVMFuzzerTestOneInput to call `fuzzOne(StringRef)` of
/// mlir::tp::fuzz.
#define TP_FUZZ_TARGET(fuzzOne)                                                \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {    \
    return mlir::tp::fuzz::fuzzOne(                                            \
        llvm::StringRef(reinterpret_cast<const char *>(data), size));          \
  }

#endif // TP_FUZZ_MLIRFUZZSUPPORT_H
