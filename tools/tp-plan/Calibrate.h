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
namespace tp::runtime {
class Communicator;
} // namespace tp::runtime
} // namespace mlir

/// Measures this machine (a few seconds) and returns its profile, logging
/// each measurement to \p log. \p context must have the tp dialects loaded.
/// With \p world (an MPI job's), every process takes part as one rank and
/// the link measured is the MPI backend's.
mlir::tp::exec::HardwareProfile
calibrate(mlir::MLIRContext &context, llvm::raw_ostream &log,
          mlir::tp::runtime::Communicator *world = nullptr);

#endif // TP_TOOLS_TP_PLAN_CALIBRATE_H
