//===- MemoryReportPass.cpp - tp-memory-report ----------------------------===//
//
// Compiles the module's entry function with the executor's compiler and
// writes its memory plan (Program::memoryPlan) as JSON or a table.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/Executor/Executor.h"
#include "tp/Executor/MemoryReport.h"
#include "tp/Executor/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <stdexcept>

namespace mlir::tp {
#define GEN_PASS_DEF_TPMEMORYREPORTPASS
#include "tp/Executor/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

namespace {

struct MemoryReportPass
    : mlir::tp::impl::TPMemoryReportPassBase<MemoryReportPass> {
  using TPMemoryReportPassBase::TPMemoryReportPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (runs < 1) {
      emitError(module.getLoc())
          << "tp-memory-report: runs must be at least 1, got "
          << static_cast<int>(runs);
      return signalPassFailure();
    }
    // A partitioned program, or a model without a plan (one rank); not a
    // plan halfway lowered, which would be reported as if it had none.
    if (failed(tp::checkPassPrecondition(module, tp::TPPass::MemoryReport)))
      return signalPassFailure();
    // The function tp-run would run: `forward`, else the one with a body.
    func::FuncOp entry;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal() && (!entry || f.getName() == "forward"))
        entry = f;
    if (!entry) {
      emitError(module.getLoc()) << "tp-memory-report: the module has no "
                                    "function with a body";
      return signalPassFailure();
    }
    try {
      tp::exec::Program program = tp::exec::Program::compile(entry);
      tp::exec::MemoryPlan plan = program.memoryPlan(runs);
      if (table)
        tp::exec::printMemoryPlan(llvm::errs(), program, plan, runs);
      if (!jsonFile.empty()) {
        std::string text = tp::exec::memoryJSON(program, plan, runs) + "\n";
        if (jsonFile == "-") {
          llvm::outs() << text;
          llvm::outs().flush();
        } else {
          std::error_code ec;
          llvm::raw_fd_ostream os(jsonFile, ec, llvm::sys::fs::OF_Text);
          if (!ec) {
            os << text;
            os.close();
            ec = os.error();
          }
          if (ec) {
            emitError(module.getLoc()) << "tp-memory-report: cannot write '"
                                       << jsonFile << "': " << ec.message();
            return signalPassFailure();
          }
        }
      }
    } catch (const std::exception &e) {
      entry.emitError() << "tp-memory-report: " << e.what();
      return signalPassFailure();
    }
  }
};

} // namespace
