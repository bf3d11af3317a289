//===- MemoryReport.h - a memory plan as text and JSON ----------*- C++ -*-===//
//
// How tp-run --memory-report, its --json report and the pipeline's
// memory-report option show a Program's MemoryPlan. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_MEMORYREPORT_H
#define TP_EXECUTOR_MEMORYREPORT_H

#include "tp/Executor/Executor.h"

#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::tp::exec {

/// "12.34 MiB" (binary units, two decimals), or "512 B".
std::string formatBytes(int64_t bytes);

/// The error of \p predicted against \p measured, in percent of \p measured
/// (0 when nothing was measured).
double memoryErrorPercent(int64_t predicted, int64_t measured);

/// Prints \p plan, \p program's memory per rank over \p runs runs
/// (Program::memoryPlan), as a table: the totals, then the peak by kind
/// and the instruction it falls on.
void printMemoryPlan(llvm::raw_ostream &os, const Program &program,
                     const MemoryPlan &plan, int runs);

/// \p plan as one JSON object, keys in sorted order: "predicted_peak_bytes",
/// "parameter_bytes", "gradient_bytes", "optimizer_bytes", "input_bytes",
/// "peak_by_kind" ("activations", "communication", "optimizer_state",
/// "parameters", "workspace"), "peak_at" ("instruction", "op", "run"),
/// "uneven_values", "np" and "runs"; with \p measured also
/// "measured_peak_bytes" and "error_percent".
std::string memoryJSON(const Program &program, const MemoryPlan &plan, int runs,
                       std::optional<int64_t> measured = std::nullopt);

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_MEMORYREPORT_H
