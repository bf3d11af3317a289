//===- ProgramFlags.h - the flags that shape a run's program ----*- C++ -*-===//
//
// The command-line flags that decide which program a run compiles: the
// forward alone, its backward (--grad) or a training step (--train) with
// its optimizer and the optimizer's options, mixed precision, regather and
// FSDP prefetch. tp-run and tp-plan declare them once, here, so that
// tp-plan prices the program a tp-run command runs (the same flags, the
// same checks, the same defaults).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LAUNCH_PROGRAMFLAGS_H
#define TP_LAUNCH_PROGRAMFLAGS_H

#include "tp/Launch/Prepare.h"

#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace mlir::tp::exec {

/// The flags, registered in a tool's option category on construction
/// (construct one, as a static, before parsing the command line).
class ProgramFlags {
public:
  explicit ProgramFlags(llvm::cl::OptionCategory &category);
  ProgramFlags(const ProgramFlags &) = delete;
  ProgramFlags &operator=(const ProgramFlags &) = delete;

  llvm::cl::opt<bool> grad;
  llvm::cl::opt<bool> train;
  llvm::cl::opt<std::string> optimizer;
  llvm::cl::opt<double> lr;
  llvm::cl::opt<double> momentum;
  llvm::cl::opt<double> weightDecay;
  llvm::cl::opt<std::string> betas;
  llvm::cl::opt<double> eps;
  llvm::cl::opt<double> maxGradNorm;
  llvm::cl::opt<std::string> paramDtype;
  llvm::cl::opt<std::string> reduceDtype;
  llvm::cl::opt<bool> regather;
  llvm::cl::opt<bool> fsdpPrefetch;

  /// Every flag, for a tool's "does not go with" checks.
  std::vector<const llvm::cl::Option *> all() const;

  /// Checks the flags (the optimizer's belong to --train, --regather to
  /// --grad or --train; the dtypes; the optimizer's options as PyTorch's
  /// constructors check them) and sets \p prepare's paramDtype,
  /// differentiate, regather, fsdpPrefetch and optimizer from them.
  /// Returns the first problem, naming its flag, or "".
  std::string apply(PrepareOptions &prepare) const;
};

} // namespace mlir::tp::exec

#endif // TP_LAUNCH_PROGRAMFLAGS_H
