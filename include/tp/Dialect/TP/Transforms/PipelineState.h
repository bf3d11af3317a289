//===- PipelineState.h - which lowering state a module is in ----*- C++ -*-===//
//
// The markers each step of tp-pipeline leaves in the IR, one query per
// state, and the one table of which states each pass refuses, so a pass run
// on IR in the wrong state is an error naming the pass and the state instead
// of a program that computes something else.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_PIPELINESTATE_H
#define TP_DIALECT_TP_TRANSFORMS_PIPELINESTATE_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tp {

//===----------------------------------------------------------------------===//
// States, each recognised by the markers the IR carries. Each query looks
// under `root`, a module or one function (all a function pass may read), and
// returns the first op that shows the state, or nullptr.
//===----------------------------------------------------------------------===//

/// Partitioned: a function with `tp.spmd` (set by tp-partition): `root`
/// itself, or a function directly in it.
Operation *findPartitioned(Operation *root);

/// Styled: an op with a `tp.style` (set by tp-apply-plan, consumed by
/// tp-lower-styles).
Operation *findStyled(Operation *root);

/// Distributed: an op yielding a `!tp.dtensor` (made by tp-lower-styles or
/// by hand; gone after tp-partition).
Operation *findDistributed(Operation *root);

/// Unpropagated: an op that takes a `!tp.dtensor` but yields a plain tensor
/// (other than `tp.to_local` and composite modules), or a style's
/// `tp.tp_axis` marker; tp-propagate (which ends tp-lower-styles) leaves
/// neither.
Operation *findUnpropagated(Operation *root);

/// Unlowered plan: when no function under `module` (nested modules
/// included) is partitioned, the op holding a plan tp-pipeline has not
/// lowered yet, the first op with a `tp.style` or else the module with a
/// `tp.plan`; otherwise, or without a plan, nullptr. Such a module would
/// compile, report or export as if it had no plan.
Operation *findUnloweredPlan(ModuleOp module);
/// Unlowered redistributions: a `tp.redistribute` (lowered by
/// tp-lower-redistribute).
Operation *findRedistribution(Operation *root);

//===----------------------------------------------------------------------===//
// Pass preconditions
//===----------------------------------------------------------------------===//

/// The passes of tp-pipeline, in pipeline order.
enum class TPPass {
  ApplyPlan,
  LowerStyles,
  Propagate,
  MixedPrecision,
  Differentiate,
  OptimizerStep,
  Optimize,
  LowerRedistribute,
  Partition,
  MergeCollectives,
  Regather,
  FSDPUnits,
  FSDPPrefetch,
  CommReport,
  // tp-memory-report (lib/Executor), after tp-pipeline or on a model without
  // a plan.
  MemoryReport,
  // The exports, after tp-pipeline or instead of it.
  ConvertModelToLinalg,
  ConvertTPToShard,
};

/// The pass's flag (`tp-apply-plan`, ...).
StringRef getPassFlag(TPPass pass);

/// Succeeds if `root` (the module, or the function a function pass runs on)
/// is in a state `pass` can run on. Otherwise emits an
/// error at the op showing the state, naming the pass, the state and the
/// pass to run instead:
///
/// | pass                  | refuses                                       |
/// |-----------------------|-----------------------------------------------|
/// | tp-apply-plan         | partitioned, styled, distributed              |
/// | tp-lower-styles       | partitioned                                   |
/// | tp-propagate          | partitioned, styled                           |
/// | tp-mixed-precision    | partitioned, styled, unpropagated             |
/// | tp-differentiate      | partitioned, styled, unpropagated             |
/// | tp-optimizer-step     | partitioned, styled, unpropagated             |
/// | tp-optimize           | partitioned, styled, unpropagated             |
/// | tp-lower-redistribute | partitioned, styled, unpropagated             |
/// | tp-partition          | partitioned, styled, unpropagated,            |
/// |                       | redistributions                               |
/// | tp-merge-collectives, | styled, distributed, unpropagated,            |
/// | tp-regather           | redistributions                               |
/// | tp-comm-report        | styled, unpropagated, redistributions         |
/// | convert-model-to-linalg, | unlowered plan                             |
/// | convert-tp-to-shard   |                                               |
///
/// tp-lower-styles accepts hand-placed dtensors next to its styles and
/// propagates them; tp-comm-report also counts hand-written collectives.
/// The exports take a model without a plan or a partitioned program: a plan
/// set but not lowered would be exported as the unparallelized model with
/// the plan still attached. "Unlowered plan" is a module's state
/// (findUnloweredPlan); a function root never shows it.
LogicalResult checkPassPrecondition(Operation *root, TPPass pass);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_PIPELINESTATE_H
