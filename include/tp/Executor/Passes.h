//===- Passes.h - passes over the executor's compiled program ---*- C++ -*-===//
//
// tp-memory-report and its registration.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_PASSES_H
#define TP_EXECUTOR_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tp {

#define GEN_PASS_DECL
#include "tp/Executor/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tp/Executor/Passes.h.inc"

} // namespace mlir::tp

#endif // TP_EXECUTOR_PASSES_H
