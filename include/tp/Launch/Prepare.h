//===- Prepare.h - a model file made ready to run ---------------*- C++ -*-===//
//
// From a model file (a model, lowered here with a plan, or a program
// tp-pipeline already partitioned) to the SPMD function a Program compiles,
// with the mesh sized for the job's ranks, and the unparallelized model
// that a verification runs on one rank.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LAUNCH_PREPARE_H
#define TP_LAUNCH_PREPARE_H

#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Launch/Launcher.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::tp::exec {

/// What to prepare.
struct PrepareOptions {
  /// The model or partitioned program (MLIR text or bytecode).
  std::string modelFile;
  /// modelFile already parsed (in the context prepareModel is given): a
  /// clone of it is prepared instead of reading the file again (tp-plan
  /// lowers hundreds of plans of one model).
  mlir::ModuleOp parsedModel;
  /// A JSON plan (unset: the model's tp.plan attribute, if any).
  std::optional<std::string> planFile;
  /// Also prepare the reference: the model before any plan, on one rank.
  bool reference = false;
  /// The reference computes 16-bit models in f32 (and, with paramDtype,
  /// without the mixed-precision policy: the model as written).
  bool referenceInF32 = true;
  /// Mixed precision (tp-mixed-precision): compute in this dtype ("bf16",
  /// "f16") on the f32 master parameters; "f32": as the model is written.
  /// The reduce dtype is the optimizer's (OptimizerOptions::reduceDtype).
  std::string paramDtype = "f32";
  /// Differentiate the model (tp-differentiate), and the reference alike:
  /// the program returns the loss and every parameter's gradient.
  bool differentiate = false;
  /// With differentiate: also update every parameter (tp-optimizer-step);
  /// the program then returns the updated parameters too.
  std::optional<mlir::tp::OptimizerOptions> optimizer;
  /// With differentiate: gather again in the backward what the forward
  /// gathered (tp-regather): less activation memory, more all_gathers.
  bool regather = false;
  /// Under a plan with an fsdp_axis: gather each FSDP unit's parameters
  /// while the unit before it computes (tp-fsdp-prefetch).
  bool fsdpPrefetch = true;
  /// Verify the IR after each pass of the pipeline (MLIR's default); when
  /// false, once after the last (tp-plan, which lowers hundreds of
  /// candidates its own search writes: a fifth of its time was the
  /// verifier's).
  bool verifyEachPass = true;
};

/// A model ready to compile.
struct PreparedModel {
  /// The SPMD program (or, without a plan, the model for one rank).
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The reference (PrepareOptions::reference).
  mlir::OwningOpRef<mlir::ModuleOp> reference;
  /// Whether the file held a program tp-pipeline had partitioned.
  bool partitioned = false;
};

/// The function a module runs: `forward`, else its first function with a
/// body. Throws LaunchError naming \p file when there is none.
mlir::func::FuncOp entryFunction(mlir::ModuleOp module,
                                 const std::string &file);

/// Reads and parses the model file into \p context (its buffer becomes the
/// main buffer of \p sourceMgr, which must hold no other, so that the
/// caller's diagnostic handler shows its lines), sizes a 1-D mesh for the job's
/// ranks
/// (\p launcher's requestedRanks; N-D meshes must match), lowers it with
/// the plan through the tp pipeline, and prepares the reference. Throws
/// LaunchError naming the file, the plan or the mismatch; the pipeline's
/// own diagnostics go to \p context first.
PreparedModel prepareModel(mlir::MLIRContext &context,
                           llvm::SourceMgr &sourceMgr,
                           const PrepareOptions &options,
                           const Launcher &launcher);

/// Checks that \p launcher's job runs \p program: an mpi job of one
/// process without mpirun, and a partitioned program on another number of
/// ranks, are refused. Throws LaunchError.
void checkProgramRanks(const Program &program, const Launcher &launcher,
                       bool partitioned);

/// Rewrites every bf16/f16 tensor type in \p module to f32: the same model
/// computed in f32.
void widenFloatTypes(mlir::ModuleOp module);

} // namespace mlir::tp::exec

#endif // TP_LAUNCH_PREPARE_H
