//===- Calibrate.h - measure this machine's hardware profile ----*- C++ -*-===//
//
// tp-plan --calibrate (Calibrate.cpp says what it times and how it fits).
//
//===----------------------------------------------------------------------===//

#ifndef TP_TOOLS_TP_PLAN_CALIBRATE_H
#define TP_TOOLS_TP_PLAN_CALIBRATE_H

#include "tp/Executor/CostModel.h"

namespace llvm {
class raw_ostream;
} // namespace llvm
namespace mlir {
class MLIRContext;
} // namespace mlir

/// Measures this machine (a few seconds) and returns its profile, logging
/// each measurement to \p log. \p context must have the tp dialects loaded.
mlir::tp::exec::HardwareProfile calibrate(mlir::MLIRContext &context,
                                          llvm::raw_ostream &log);

#endif // TP_TOOLS_TP_PLAN_CALIBRATE_H
