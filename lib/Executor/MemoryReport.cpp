//===- MemoryReport.cpp - a memory plan as text and JSON ------------------===//

#include "tp/Executor/MemoryReport.h"

#include "tp/Support/JSON.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace mlir::tp::exec {

namespace {

/// The instruction the peak falls on, as the report names it:
/// "linear 'layers.0.fc1' (backward)", or "the inputs".
std::string peakAt(const Program &program, const MemoryPlan &plan) {
  if (plan.peakInstruction < 0)
    return "the inputs";
  if (plan.peakInstruction >= static_cast<int64_t>(program.size()))
    return "the results (the parameters returned are copied out)";
  const Instruction &in = program.instructions()[plan.peakInstruction];
  std::string text = std::string(instructionName(in));
  if (!in.name.empty())
    text += " '" + in.name + "'";
  return text + " (" + phaseName(in.phase) + ")";
}

} // namespace

std::string formatBytes(int64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (std::fabs(v) >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (u == 0)
    os << bytes << " B";
  else
    os << llvm::format("%.2f", v) << " " << units[u];
  return text;
}

double memoryErrorPercent(int64_t predicted, int64_t measured) {
  return measured ? 100.0 * static_cast<double>(predicted - measured) /
                        static_cast<double>(measured)
                  : 0.0;
}

void printMemoryPlan(llvm::raw_ostream &os, const Program &program,
                     const MemoryPlan &plan, int runs) {
  auto row = [&](const char *what, int64_t bytes) {
    os << "  " << llvm::left_justify(what, 18)
       << llvm::right_justify(formatBytes(bytes), 12) << "  (" << bytes
       << " bytes)\n";
  };
  os << "memory per rank (predicted; " << program.numRanks() << " rank(s), "
     << runs << (runs == 1 ? " run" : " runs") << "):\n";
  row("parameters", plan.parameterBytes);
  row("gradients", plan.gradientBytes);
  row("optimizer state", plan.optimizerBytes);
  row("inputs", plan.inputBytes);
  os << "peak " << formatBytes(plan.peakBytes) << " (" << plan.peakBytes
     << " bytes) at ";
  if (plan.peakInstruction >= 0 &&
      plan.peakInstruction < static_cast<int64_t>(program.size()))
    os << "instruction " << plan.peakInstruction << ", ";
  os << peakAt(program, plan)
     << (runs > 1 ? plan.peakRun ? ", in a later run" : ", in the first run"
                  : "")
     << ":\n";
  row("parameters", plan.peakParameterBytes);
  row("optimizer state", plan.peakOptimizerBytes);
  row("activations", plan.peakActivationBytes);
  row("communication", plan.peakCommunicationBytes);
  row("workspace", plan.peakWorkspaceBytes);
  if (plan.unevenValues)
    os << "not counted: " << plan.unevenValues
       << " value(s) of uneven (rank-dependent) size\n";
}

std::string memoryJSON(const Program &program, const MemoryPlan &plan, int runs,
                       std::optional<int64_t> measured) {
  std::string text;
  json::Writer w(text, /*indent=*/2);
  w.objectBegin();
  if (measured)
    w.member("error_percent", memoryErrorPercent(plan.peakBytes, *measured));
  w.member("gradient_bytes", plan.gradientBytes);
  w.member("input_bytes", plan.inputBytes);
  if (measured)
    w.member("measured_peak_bytes", *measured);
  w.member("np", program.numRanks());
  w.member("optimizer_bytes", plan.optimizerBytes);
  w.member("parameter_bytes", plan.parameterBytes);
  w.key("peak_at");
  w.objectBegin();
  w.member("instruction", plan.peakInstruction);
  w.member("op", peakAt(program, plan));
  w.member("run", plan.peakRun);
  w.objectEnd();
  w.key("peak_by_kind");
  w.objectBegin();
  w.member("activations", plan.peakActivationBytes);
  w.member("communication", plan.peakCommunicationBytes);
  w.member("optimizer_state", plan.peakOptimizerBytes);
  w.member("parameters", plan.peakParameterBytes);
  w.member("workspace", plan.peakWorkspaceBytes);
  w.objectEnd();
  // The peak of each stage of a step (the largest is the peak).
  w.key("peak_by_stage");
  w.objectBegin();
  w.member("backward", plan.stagePeakBytes[2]);
  w.member("forward", plan.stagePeakBytes[1]);
  w.member("inputs", plan.stagePeakBytes[0]);
  w.member("optimizer", plan.stagePeakBytes[3]);
  w.member("results", plan.stagePeakBytes[4]);
  w.objectEnd();
  w.member("predicted_peak_bytes", plan.peakBytes);
  w.member("runs", runs);
  w.member("uneven_values", plan.unevenValues);
  w.objectEnd();
  return text;
}

} // namespace mlir::tp::exec
