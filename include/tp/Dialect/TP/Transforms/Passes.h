//===- Passes.h - tp passes and pipelines -----------------------*- C++ -*-===//
//
// Declarations of the tp passes, the `tp-pipeline` pipeline, and the public
// functions behind the passes that other compilers can call directly.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_PASSES_H
#define TP_DIALECT_TP_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "llvm/Support/GlobPattern.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tp {

#define GEN_PASS_DECL
#include "tp/Dialect/TP/Transforms/Passes.h.inc"

/// Options of `tp-pipeline`, the whole plan-to-SPMD lowering.
struct TPPipelineOptions : public PassPipelineOptions<TPPipelineOptions> {
  Option<std::string> plan{*this, "plan",
                           llvm::cl::desc("JSON plan file (default: the "
                                          "module's tp.plan attribute)"),
                           llvm::cl::init("")};
  Option<std::string> reportJson{
      *this, "report-json",
      llvm::cl::desc("Write the communication report as JSON here ('-' for "
                     "stdout)"),
      llvm::cl::init("")};
  Option<bool> reportTable{
      *this, "report-table",
      llvm::cl::desc("Print the communication table to stderr"),
      llvm::cl::init(false)};
  Option<bool> grad{
      *this, "grad",
      llvm::cl::desc("Differentiate: the SPMD program returns the loss and "
                     "every parameter's gradient (tp-differentiate)"),
      llvm::cl::init(false)};
  Option<std::string> optimizer{
      *this, "optimizer",
      llvm::cl::desc("With grad: also update every parameter (sgd or adamw; "
                     "tp-optimizer-step with the options below)"),
      llvm::cl::init("")};
  Option<double> lr{*this, "lr",
                    llvm::cl::desc("The optimizer's learning rate"),
                    llvm::cl::init(0.01)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(0)};
  Option<double> dampening{*this, "dampening", llvm::cl::desc("SGD dampening"),
                           llvm::cl::init(0)};
  Option<bool> nesterov{*this, "nesterov",
                        llvm::cl::desc("SGD Nesterov momentum"),
                        llvm::cl::init(false)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("Weight decay (default: 0 for SGD, 0.01 for AdamW)"),
      llvm::cl::init(-1)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("AdamW beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("AdamW beta2"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("AdamW eps"),
                     llvm::cl::init(1e-8)};
  Option<double> maxGradNorm{
      *this, "max-grad-norm",
      llvm::cl::desc("Clip the gradients to this global 2-norm before the "
                     "update (0: no clipping)"),
      llvm::cl::init(0)};
  Option<std::string> paramDtype{
      *this, "param-dtype",
      llvm::cl::desc("Compute in this dtype (bf16, f16) on f32 master "
                     "parameters (tp-mixed-precision; default f32: as "
                     "the model is written)"),
      llvm::cl::init("f32")};
  Option<std::string> reduceDtype{
      *this, "reduce-dtype",
      llvm::cl::desc("With an optimizer: reduce the gradients in this dtype "
                     "(f32 or the param-dtype; default: the param-dtype, as "
                     "FSDP2)"),
      llvm::cl::init("")};
  Option<bool> regather{
      *this, "regather",
      llvm::cl::desc("With grad: gather again in the backward what the "
                     "forward gathered (tp-regather): less activation "
                     "memory, more all_gathers"),
      llvm::cl::init(false)};
  Option<bool> fsdpPrefetch{
      *this, "fsdp-prefetch",
      llvm::cl::desc("With the plan's fsdp_axis: gather each FSDP unit's "
                     "parameters before the previous unit computes "
                     "(tp-fsdp-prefetch), as FSDP2 prefetches"),
      llvm::cl::init(true)};
  Option<int64_t> bucketBytes{
      *this, "bucket-bytes",
      llvm::cl::desc("Largest all_reduce bucket in bytes per rank "
                     "(tp-merge-collectives; 0: no limit)"),
      llvm::cl::init(25 * 1024 * 1024)};
  Option<std::string> memoryReport{
      *this, "memory-report",
      llvm::cl::desc("Write each rank's predicted tensor memory as JSON here "
                     "('-' for stdout; tp-memory-report, for 2 runs of a "
                     "training step with an optimizer, else 1)"),
      llvm::cl::init("")};
};

/// Appends the plan-to-SPMD lowering to `pm` (its options checked first by
/// checkTPPipelineOptions, below).
void buildTPPipeline(OpPassManager &pm, const TPPipelineOptions &options);

/// Registers `tp-pipeline`.
void registerTPPipelines();

//===----------------------------------------------------------------------===//
// Public API behind the passes
//===----------------------------------------------------------------------===//

/// Reads a JSON plan file into a `#tp.plan` attribute and the mesh it names
/// (created in `module` if absent). Errors name the file and the entry.
FailureOr<PlanAttr> loadPlanFile(ModuleOp module, StringRef path);

/// The mesh a plan names, `@mesh` of `shape` (axes `axisNames`, none: the
/// default names): created at the start of `module`, or the `tp.mesh
/// @mesh` already there if it has that shape and those names. Fails with
/// an error started by `fail()` on another symbol `@mesh`, a mesh of
/// another shape or other names, and with tp.mesh's own verifier error
/// (leaving no mesh behind) on names twice or empty, or more ranks than
/// int64 counts. What parsePlan and PlanBuilder::build share.
FailureOr<MeshOp> getOrCreatePlanMesh(ModuleOp module, ArrayRef<int64_t> shape,
                                      ArrayRef<StringRef> axisNames,
                                      function_ref<InFlightDiagnostic()> fail);

/// Parses a JSON plan text; `source` names it in diagnostics.
FailureOr<PlanAttr> parsePlan(ModuleOp module, StringRef text,
                              StringRef source);

/// Whether `style` can be applied to the module op `op` (as PyTorch: Colwise
/// and Rowwise on linear/embedding, SequenceParallel on norms and dropout,
/// the pairwise styles on composite modules, Prepare* on any module).
bool styleSupportsModule(Attribute style, Operation *op);

/// A module whose direct Linear children the seed's PairwiseParallel pairs:
/// `linears` (an even number, definition order) alternate colwise and
/// rowwise; the first takes the style's input preparation and the last its
/// output preparation.
struct PairwiseGroup {
  Operation *module;
  SmallVector<Operation *> linears;
};

/// What the seed's PairwiseParallel on `module` (a composite module or the
/// model function) parallelizes: the module itself when it has more than one
/// direct Linear child, otherwise each child module, recursively.
SmallVector<PairwiseGroup> getPairwiseGroups(Operation *module);

/// Fails, naming both, when a PairwiseParallel style reaches a linear that
/// another style also parallelizes (its own `tp.style`, or a second
/// PairwiseParallel). `describe` names where a style came from.
LogicalResult
checkPairwiseOverlaps(ModuleOp module,
                      function_ref<std::string(Operation *)> describe);

/// What a style says about the values it hands on (PyTorch's
/// use_local_output / use_local_input): whether its module's outputs, or
/// the inputs it prepares, are local tensors (true) or DTensors (false),
/// and the style's default for each.
struct StyleLocality {
  std::optional<bool> outputsLocal, inputsLocal;
  bool outputsDefault = true, inputsDefault = false;
  /// The argument that sets inputsLocal (use_local_output or
  /// use_local_input).
  StringRef inputsFlag;
};
StyleLocality getStyleLocality(Attribute style);

/// A module a style was applied to: its model function, FQN ("" for the
/// root), style, and where it is (for diagnostics).
struct StyledModule {
  Operation *func;
  std::string fqn;
  Attribute style;
  Location loc;
};

/// After styles are lowered and placements propagated: marks the model
/// results PyTorch would return as local tensors (`tp.local`), and
/// warns where a non-default use_local_output / use_local_input of a
/// `styled` module cannot change anything.
void markLocalResults(ModuleOp module, ArrayRef<StyledModule> styled);

/// Attaches the styles of `plan` to the matching module ops of `module`.
LogicalResult applyPlan(ModuleOp module, PlanAttr plan);

/// Marks `frozen` every `model.param` of `module` that a pattern of the
/// plan's `frozen` list matches (its FQN, or a module FQN above it; fnmatch
/// per dotted token); a pattern that matches no parameter is an error.
/// Part of applyPlan; also for a model compiled without its plan (the
/// one-rank reference of a parallel run).
LogicalResult markFrozenParameters(ModuleOp module, PlanAttr plan);

/// The composite modules (`model.module`) under `root` whose FQN matches one
/// of `plan`'s recompute patterns (every token matched, as for the plan's
/// keys), outermost only (a unit inside another is recomputed with it), in
/// program order; none without a plan or patterns. A pattern that is not
/// valid or matches no composite module is an error at `root`.
FailureOr<SmallVector<Operation *>> getRecomputedModules(Operation *root,
                                                         PlanAttr plan);

/// The module that owns parameter \p fqn: `layers.0.attention.wq` of
/// `layers.0.attention.wq.weight`, "" for a parameter of the root.
inline StringRef getParameterOwner(StringRef fqn) {
  auto [owner, name] = fqn.rsplit('.');
  return name.empty() ? StringRef() : owner;
}

/// The parameter \p v is a piece of (a model.param cut by tp.chunk ops, and
/// cast after them by tp-mixed-precision), or null; with \p chain, also the
/// ops that cut and cast it, parameter first.
Operation *getShardedParameter(Value v,
                               SmallVectorImpl<Operation *> *chain = nullptr);

/// The FSDP setting `func` is lowered under: its module's plan, the plan's
/// mesh and the index of its `fsdp_axis` in that mesh.
struct FSDPSetting {
  PlanAttr plan;
  MeshOp mesh;
  int64_t axis;
};

/// The FSDP setting of `func`: none when its module has no plan, the plan
/// no fsdp_axis, or `func` is external; failure (with a diagnostic) when
/// the plan's mesh is missing.
FailureOr<std::optional<FSDPSetting>> getFSDPSetting(func::FuncOp func);

/// FSDP's units of a plan: its `fsdp_units` patterns (default
/// `layers.*`), split into tokens.
struct FSDPUnitMatcher {
  SmallVector<SmallVector<llvm::GlobPattern>> patterns;
  /// The unit of module \p fqn (the module that owns a parameter): its
  /// prefix that the first pattern matching one matches (`layers.0` of
  /// `layers.0.attention.wq`, and of `layers.0` itself), or "" (the
  /// root's unit).
  std::string unitOf(StringRef fqn) const;
};

/// The unit matcher of \p plan; an invalid pattern is an error from
/// \p emit.
FailureOr<FSDPUnitMatcher>
getFSDPUnitMatcher(PlanAttr plan, function_ref<InFlightDiagnostic()> emit);

/// Lowers every `tp.style` in `module` to DTensor ops.
LogicalResult lowerStyles(ModuleOp module);

/// Propagates placements through every function of `module`.
/// `checkPrecondition` false skips the check of the module's state (for
/// callers that have just produced it, as tp-lower-styles).
LogicalResult propagatePlacements(ModuleOp module,
                                  bool checkPrecondition = true);

/// Propagates placements through one function (what tp-propagate, a
/// function pass, runs); the mesh is looked up in the module around it.
LogicalResult propagatePlacements(func::FuncOp func,
                                  bool checkPrecondition = true);

/// Rewrites `tp.redistribute` ops into collectives.
LogicalResult lowerRedistributions(ModuleOp module);

/// Rewrites the `tp.redistribute` ops of one function into collectives
/// (what `tp-lower-redistribute`, a function pass, runs).
LogicalResult lowerRedistributions(func::FuncOp func);

/// Common subexpression elimination under `root` in which the `tp.phase`
/// mark does not count: of equal ops, the first in program order survives
/// with its phase (tp-cse). True when it erased any op.
bool eliminateCommonSubexpressionsAcrossPhases(Operation *root);

/// Partitions `module` into one SPMD function per model function.
LogicalResult partition(ModuleOp module);

/// Partitions one function into its SPMD form (what tp-partition, a
/// function pass, runs); meshes are only looked up in the module around it.
LogicalResult partition(func::FuncOp func);

/// tp-fsdp-units on one function: FSDP's parameter gathers and gradient
/// reduce-scatters grouped per unit (see the pass).
LogicalResult groupFSDPUnits(func::FuncOp func);

/// tp-fsdp-prefetch on one function: each FSDP parameter gather moves up to
/// before the previous unit of its phase computes (see the pass).
LogicalResult prefetchFSDPGathers(func::FuncOp func);

/// Gathers again, right before the first backward reader, every forward
/// all_gather of `func` the backward reads (tp-regather). With
/// \p parametersOnly, only the all_gathers of parameter shards over
/// the plan's fsdp_axis, and only when its reshard_after_forward is set.
LogicalResult regatherForBackward(func::FuncOp func,
                                  bool parametersOnly = false);

/// The communication report of a partitioned `module` as JSON, what
/// tp-comm-report writes (without the final newline): collectives and bytes
/// per rank in total, per module and per phase. Fails with a diagnostic on
/// a module tp-comm-report refuses (styles, unpropagated placements or
/// redistributions left).
FailureOr<std::string> getCommReportJSON(ModuleOp module);

/// Fuses chained all_reduces and buckets the independent ones of `func`
/// (tp-merge-collectives); a bucket holds at most `bucketBytes` per rank
/// (0: no limit). `changed`, when given, says whether it rewrote anything.
LogicalResult mergeCollectives(func::FuncOp func, int64_t bucketBytes,
                               bool *changed = nullptr);

/// Moves the bodies of `func`'s composite modules into their parents (what
/// tp-partition and tp-differentiate start with).
void inlineSubmodules(func::FuncOp func);

/// Propagates placements through the ops of one block from `first` to its
/// terminator: ops a pass has just added after values whose placements are
/// known (tp-differentiate's backward program). The function's result
/// types follow what it now returns. A no-op in a module without a mesh.
LogicalResult propagatePlacementsFrom(Operation *first);

/// Turns each model function of `module` whose first result is a scalar
/// loss into a training step (the other results dropped): it returns the loss
/// and the gradient of every parameter (one per FQN, tied parameters summed;
/// results marked `tp.grad_of`), the backward ops placed by the same sharding
/// rules as the forward ones. Runs on a placed program (after tp-lower-styles)
/// or on a model without a mesh.
LogicalResult differentiate(ModuleOp module);

/// The canonical name ("f32", "bf16", "f16") of a compute dtype given as
/// "bf16"/"bfloat16", "f16"/"float16"/"half"/"fp16" or
/// "f32"/"float32"/"float"/"fp32" (any case); "" for anything else.
StringRef canonicalComputeDtype(StringRef name);

/// The float type a compute dtype name means (canonicalComputeDtype);
/// failure for anything else.
FailureOr<FloatType> parseComputeDtype(MLIRContext *ctx, StringRef name);

/// tp-mixed-precision on one function: it computes in \p paramType on its
/// f32 master parameters (see the pass). f32 changes nothing.
LogicalResult applyMixedPrecision(func::FuncOp func, FloatType paramType);

/// The optimizer of a training step (PyTorch's SGD or AdamW arguments).
struct OptimizerOptions {
  /// "sgd" or "adamw".
  std::string kind = "sgd";
  double lr = 0.01;
  double momentum = 0, dampening = 0;
  /// Negative: the optimizer's default (0 for SGD, 0.01 for AdamW).
  double weightDecay = -1;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  /// Positive: clip the gradients to this global 2-norm first
  /// (clip_grad_norm_); 0: no clipping.
  double maxGradNorm = 0;
  /// The dtype the gradients are reduced in ("f32", "bf16", "f16"; "": each
  /// gradient's own): FSDP2's reduce_dtype.
  std::string reduceDtype;
  /// The options the user set, by their pass-option names ("momentum",
  /// "beta1", "max-grad-norm", ...); the others hold defaults. One that
  /// belongs to the other optimizer is an error, never ignored.
  std::vector<std::string> given;
  bool isGiven(StringRef option) const {
    return llvm::is_contained(given, option);
  }
};

/// How a message names an option: as tp-run's flags (`--lr`, `--optimizer
/// sgd`; beta1 and beta2 are `--betas`) or as pass and pipeline options
/// (`lr`, `optimizer=sgd`).
enum class OptionSyntax { Flags, PassOptions };

/// Checks an optimizer's options as PyTorch's constructors check them, plus
/// what tp adds: every number finite, an option of the other optimizer
/// refused when given, a given max-grad-norm positive (0 would zero the
/// gradients in PyTorch; here leaving it out means no clipping). Returns
/// the first problem, naming the option in `syntax`, or "" if there is
/// none. tp-run, tp-pipeline (and so the C API) and tp-optimizer-step
/// check with it.
std::string checkOptimizerOptions(const OptimizerOptions &options,
                                  OptionSyntax syntax);

/// The optimizer options of `options` (tp-pipeline's), the ones it was
/// given marked so.
OptimizerOptions getOptimizerOptions(const TPPipelineOptions &options);

/// Checks `options` before buildTPPipeline: the optimizer's options
/// (checkOptimizerOptions) and how the training options combine (an
/// optimizer needs grad=true, its options need an optimizer, regather needs
/// grad=true, bucket-bytes is at least 0). Returns the first problem or "".
/// The registered tp-pipeline checks with it; an embedder calling
/// buildTPPipeline directly should too.
std::string checkTPPipelineOptions(const TPPipelineOptions &options);

/// Adds the update of every parameter from its gradient to each training
/// step of `module` (what tp-optimizer-step runs): the step then also
/// returns the updated parameters (`tp.updated`).
LogicalResult addOptimizerStep(ModuleOp module,
                               const OptimizerOptions &options);

/// Returns `value` laid out with `placements` on `mesh`: a plain tensor gets
/// a `tp.distribute`, a dtensor with other placements a `tp.redistribute`;
/// a plain tensor wanted fully replicated is returned as is. `module` names
/// the FQN the new op is attributed to in the communication report.
Value ensurePlacements(OpBuilder &builder, Location loc, Value value,
                       FlatSymbolRefAttr mesh, ArrayRef<Attribute> placements,
                       StringRef module = "");

/// The placements of `value`: its dtensor placements, or all Replicate for a
/// plain tensor.
SmallVector<Attribute> getPlacements(Value value, int64_t meshRank);

/// fnmatch-style match of one FQN token: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`.
bool fnmatchToken(StringRef pattern, StringRef name);

#define GEN_PASS_REGISTRATION
#include "tp/Dialect/TP/Transforms/Passes.h.inc"

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_PASSES_H
