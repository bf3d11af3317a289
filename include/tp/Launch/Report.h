//===- Report.h - what a run says and writes --------------------*- C++ -*-===//
//
// The summary of a run (ranks, mesh, backend, dtype, peak memory, time,
// collectives per rank, the verification and the results' layouts) as text
// or as one JSON object, and the safetensors files of a run: its global
// parameters, inputs and outputs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LAUNCH_REPORT_H
#define TP_LAUNCH_REPORT_H

#include "tp/Launch/Launcher.h"
#include "tp/Launch/Verify.h"

#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::tp::exec {

/// A run's measured time per step (RunResult::instructionSeconds over its
/// profiledSteps) in the rows tp-plan --evaluate predicts: by phase and by
/// module (moduleGroup of the instruction's module), each split into
/// compute and communication (the collectives, waiting for the peers
/// included), each figure the slowest rank's; the step, the slowest rank's
/// total; and the instructions that took longest on their slowest rank.
struct MeasuredProfile {
  struct Row {
    std::string name;
    double computeSeconds = 0, communicationSeconds = 0;
    int64_t collectives = 0;
  };
  double stepSeconds = 0;
  int steps = 0;
  /// The phases that occur, in step order; the modules in the order the
  /// program first reaches them ("<root>": outside every module).
  std::vector<Row> phases, modules;
  /// Instruction index and its seconds per step, longest first.
  std::vector<std::pair<size_t, double>> slowest;
};
/// The profile of \p run (which must have instructionSeconds, one entry
/// per instruction of \p program per rank), with its \p slowest longest
/// instructions.
MeasuredProfile measuredProfile(const Program &program, const RunResult &run,
                                size_t slowest = 10);

/// One run as tp-run reports it.
struct RunReport {
  /// The program the first line names (an embedder's own name).
  std::string toolName = "tp-run";
  std::string backend;
  const Program *program = nullptr;
  const RunResult *run = nullptr;
  /// The comparison with one rank (null without one).
  const Verification *verification = nullptr;
  /// Whether the reference computed a 16-bit model in f32 (a mixed-
  /// precision one without its policy).
  bool referenceInF32 = false;
  /// The dtype the model computes in, where it is not its parameters'
  /// (mixed precision, --param-dtype); unset: the parameters' dtype. The
  /// report names both.
  std::optional<runtime::DType> computeDType;
  /// The program's memory plan for the run's steps (null: not reported):
  /// the text report then adds the predicted and measured peaks, the JSON
  /// one a "memory" object (memoryJSON's members plus
  /// "measured_peak_bytes").
  const MemoryPlan *memory = nullptr;
  /// The runs (steps) `memory` was planned for.
  int memoryRuns = 1;
  /// The checkpoint the run resumed from (null: none): the report says so,
  /// and the JSON one has "resumed_from" {"checkpoint", "step"}; the saved
  /// checkpoints (RunResult::checkpoints) are listed either way.
  const Checkpoint *resumedFrom = nullptr;

  /// A few lines: the run, the collectives per rank (and per phase, for a
  /// training step), the verification and how each distributed result is
  /// handed out (PyTorch's use_local_output); a profiled run
  /// (RunResult::instructionSeconds) adds its MeasuredProfile, in the JSON
  /// one as "profile".
  void print(llvm::raw_ostream &os) const;
  /// One JSON object, keys in sorted order; "collectives_by_phase" holds
  /// the five collectives of each phase ("backward", "forward",
  /// "optimizer"), as "collectives" all of them.
  void printJSON(llvm::raw_ostream &os) const;
};

/// Writes the global value of every parameter of \p program (under its FQN)
/// or of every input (under its name), from \p data, to the safetensors
/// file \p path. The inputs are those \p steps steps read: an input \p data
/// holds a batch per step is written as the first \p steps of them (shape
/// [steps, ...]), the others as their one batch. Throws std::runtime_error
/// naming the file.
void writeParams(const Program &program, const DataSource &data,
                 const std::string &path);
void writeInputs(const Program &program, const DataSource &data,
                 const std::string &path, int steps = 1);
/// Writes \p outputs to \p path as "output" (one) or "output0", "output1",
/// ...
void writeOutputs(const std::vector<Tensor> &outputs, const std::string &path);

/// Writes the outputs of a training step that are parameter gradients
/// (\p updated false) or updated parameters (true) to \p path under their
/// parameters' FQNs. With \p updated and \p data, the parameters the step
/// does not update (frozen) are written too, as \p data gives them, so the
/// file holds the whole model. Throws std::runtime_error naming the file,
/// or when the program has no such output.
void writeTrainingOutputs(const Program &program,
                          const std::vector<Tensor> &outputs, bool updated,
                          const std::string &path,
                          const DataSource *data = nullptr);

} // namespace mlir::tp::exec

#endif // TP_LAUNCH_REPORT_H
