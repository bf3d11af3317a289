//===- ConfigFuzzer.cpp - fuzz target: JSON config -> model IR --*- C++ -*-===//
//
// tp-fuzz-config: builds model IR from the input as a tp-model config
// (mlir::model::buildModelFromConfig). A config that is accepted must
// give IR that verifies; the IR is then printed to a discarded stream.
// Seeds: fuzz/corpus/config/.
//
//===----------------------------------------------------------------------===//

#include "MLIRFuzzSupport.h"

#include "tp/Dialect/Model/Builder/ModelBuilder.h"

namespace mlir::tp::fuzz {

/// One input.
static int fuzzOne(StringRef text) {
  FuzzContext ctx;
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(&ctx.context, "config", 1, 1));
  if (model::buildModelFromConfig(*module, text, "config.json"))
    return 0;
  if (failed(verify(*module))) {
    llvm::errs() << "tp-fuzz-config: an accepted config gave IR that does "
                    "not verify\n";
    std::abort();
  }
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  return 0;
}

} // namespace mlir::tp::fuzz

TP_FUZZ_TARGET(fuzzOne)
