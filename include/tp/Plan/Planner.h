//===- Planner.h - plans that write themselves ------------------*- C++ -*-===//
//
// tp-plan's search: finds, in a model's IR, the modules a tensor-parallel
// plan can shard (Megatron's pairs of linears: the ones reading a module's
// input column-wise, the one making its output row-wise; the norms between
// them for sequence parallelism; the embedding and the output head), builds
// PyTorch-style plans from a choice per kind of module (repeated layers
// choose once: `layers.*`), and searches the choices for the fastest plan
// the cost model predicts within a memory budget. The caller prices each
// candidate (tp-plan lowers and compiles it as tp-run would and asks
// Program::estimateCost and Program::memoryPlan).
//
//===----------------------------------------------------------------------===//

#ifndef TP_PLAN_PLANNER_H
#define TP_PLAN_PLANNER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tp::plan {

/// Megatron's pair: linears `in` that read one value (ColwiseParallel) and
/// the linear `out` that their results alone feed (RowwiseParallel), found
/// from the data flow (the linears may sit in sibling modules, as BERT's
/// attention output does). `module` is the common module of the linears,
/// a pattern over repeated layers ("layers.*.attention"; "" at the root),
/// and the names are relative to it.
struct LinearPair {
  std::string module;
  std::vector<std::string> in;
  std::string out;
  /// The `in` linears whose output features are cut into slices (GPT-2's
  /// fused c_attn): their ColwiseParallel shards each slice
  /// ("shard_pieces").
  std::vector<std::string> pieces;
  /// Whether `module` is a module whose first input is the value the `in`
  /// linears read: sequence parallel gathers it at the module's entry
  /// (PrepareModuleInput). Without it, the pair takes no part in sequence
  /// parallelism.
  bool moduleInput = false;
  /// How many inputs each instance of `module` takes, by FQN (T5's
  /// attention also takes the position bias, but in its first layer, which
  /// makes it): PrepareModuleInput names a layout for each, null for all
  /// but X, one entry for the pattern where the instances agree.
  std::vector<std::pair<std::string, int64_t>> moduleInputs;
};

/// What the planner can shard in a model.
struct ModelStructure {
  std::vector<LinearPair> pairs;
  /// Norms (patterns) at the level of the pairs' modules and at the top:
  /// SequenceParallel candidates.
  std::vector<std::string> norms;
  /// The token embedding (the first, at any depth) and the output head
  /// (the last linear at the top level); "" if none.
  std::string embedding;
  std::string output;
  /// Whether a cross-entropy reads the output head (loss_parallel).
  bool crossEntropy = false;
  /// The repeated layers' pattern ("layers.*"), which recompute names; ""
  /// when the pairs are not in numbered layers.
  std::string layers;
  /// The layers' FQNs in program order ("layers.0", "layers.1", ...).
  std::vector<std::string> layerNames;
  /// Finer FSDP units than the layers: the pairs' modules under them
  /// ("layers.*.attention", "layers.*.feed_forward"); empty when a pair's
  /// module is the layer itself.
  std::vector<std::string> fineUnits;
};

/// Finds the structure of \p model (an unparallelized model function,
/// with or without model.module ops). Pairs whose module's instances
/// disagree (another set of linears in one layer) are left out.
ModelStructure analyzeModel(mlir::func::FuncOp model);

/// Keeps the first \p keep of \p model's repeated layers (the top-level
/// model.module ops whose FQN matches \p layers, "layers.*", each reading
/// the one before): the later ones are erased and the last kept one's
/// result takes their place. Returns how many layers there were, or 0
/// (the model unchanged) when they are not such a chain or there are no
/// more than \p keep. The planner prices a choice on two and on three
/// layers and extrapolates to all of them.
int64_t keepLayers(mlir::func::FuncOp model, const std::string &layers,
                   int64_t keep);

/// The mesh a plan is for.
struct MeshSpec {
  std::vector<int64_t> shape;
  std::vector<std::string> axisNames;
  /// The axis that tensor parallelism shards over (named "tp", else the
  /// last); the other axis of a 2-D mesh carries data parallelism.
  int tpAxis = -1;
  int dataAxis = -1;
  /// On a 3-D mesh: hybrid sharding (HSDP) over the two axes that are not
  /// tensor-parallel; the parameters are sharded over `dataAxis`
  /// (`fsdp_axis`) and replicated over this one (`dp_axis`), the first.
  int replicaAxis = -1;
};

/// One candidate: a choice per kind of module.
struct Choice {
  /// Per pair (indexed like ModelStructure::pairs): sharded or replicated.
  std::vector<bool> pairs;
  bool embedding = false;
  /// 0: replicated, 1: ColwiseParallel gathered, 2: ColwiseParallel with
  /// loss_parallel (the logits stay sharded into the loss).
  int output = 0;
  /// Sequence parallel on the norms (needs every pair, the embedding and
  /// the output sharded).
  bool sequenceParallel = false;
  /// On a 2-D mesh: the data axis fully sharded (FSDP) instead of
  /// replicated (DDP); always on a 3-D mesh (HSDP).
  bool fsdp = false;
  /// With fsdp: each unit's parameters are kept gathered from the forward
  /// to the backward (FSDP2's reshard_after_forward=False): no gather
  /// again in the backward; the whole parameters live between the two.
  bool keepGathered = false;
  /// With fsdp: a unit per pair module under the layers (each layer's
  /// attention and MLP apart; ModelStructure::fineUnits) instead of one
  /// per layer: fewer parameters gathered at once, twice the collectives.
  bool fineUnits = false;
  /// On a 1-D mesh: no tensor parallelism, the axis data-parallel instead
  /// (DDP, or FSDP with `fsdp`); nothing else is sharded.
  bool dataOnly = false;
  /// Training: recompute the forward of the first `recompute` layers
  /// (ModelStructure::layerNames) in their backward; all of them at
  /// layerNames.size(). The first ones, because their activations would
  /// live longest: each one recomputed lowers the peak (at the start of the
  /// backward) by its activations less its input, where recomputing the
  /// last one saves next to nothing (its backward comes right after).
  int64_t recompute = 0;

  bool operator==(const Choice &o) const;
};

/// A short description: "tp(attention, feed_forward) sp embedding
/// output=loss_parallel fsdp recompute".
std::string describe(const ModelStructure &s, const Choice &c);

/// The plan JSON of choice \p c (the format tp-run --plan reads).
std::string planJSON(const ModelStructure &s, const MeshSpec &mesh,
                     const Choice &c);

/// What a candidate costs, or why it cannot run.
struct Evaluation {
  bool ok = false;
  std::string error;
  double stepSeconds = 0;
  /// Of the step, its kernels' and optimizer updates' seconds: what no
  /// overlap of the collectives hides, and no less with finer FSDP units.
  double kernelSeconds = 0;
  int64_t peakBytes = 0;
  /// The peak of each stage of the step (MemoryPlan::stagePeakBytes), for
  /// extrapolating over repeated layers; empty when not known.
  std::vector<int64_t> stagePeakBytes;
};

/// The peak of \p e that neither recompute nor finer FSDP units lower: before
/// the first instruction and after the last, where only the parameters,
/// the optimizer's state, the inputs and the results live (0 when the
/// stages are not known).
int64_t stateBytes(const Evaluation &e);

/// A choice the search did not price: a bound shows that it does not fit
/// the budget or cannot be faster than a plan that does.
struct Unpriced {
  Choice choice;
  enum class Bound {
    /// The same choice without recompute and with units per layer needs
    /// stateBytes before the first instruction or after the last, which
    /// neither recompute nor finer units lower, over the budget.
    State,
    /// Recompute only adds work: without it the choice takes boundSeconds,
    /// no less than fitSeconds of a plan that fits.
    Work,
    /// Finer FSDP units do not lessen the kernels (the same products, each
    /// parameter sliced out of its unit's gather as often): the same
    /// choice's kernels alone take boundSeconds, no less than fitSeconds of
    /// a plan that fits.
    Kernels,
  };
  Bound bound = Bound::State;
  int64_t stateBytes = 0;
  double boundSeconds = 0;
  double fitSeconds = 0;
};

/// Every candidate the search priced, in the order it priced them.
struct SearchResult {
  std::vector<std::pair<Choice, Evaluation>> tried;
  /// Those it did not: each cannot be the best (when nothing fits, the
  /// search prices them too, so that the smallest is exact).
  std::vector<Unpriced> unpriced;
  /// The best within the budget, if any (an index into tried).
  std::optional<size_t> best;
  /// The smallest peak of any candidate that runs (an index into tried).
  std::optional<size_t> smallest;
};

/// The search's options.
struct SearchOptions {
  bool train = false;
  /// Bytes per rank (0: no budget).
  int64_t budget = 0;
};

/// Searches the choices of \p s on \p mesh: every combination of the
/// dimensions that matter for the model (pairs, embedding, output, sequence
/// parallel, FSDP and recompute where they apply), each priced once by
/// \p evaluate; a choice with recompute (which only adds work) only when
/// the same choice without it does not fit the budget: recomputing every
/// layer, and where that fits, the fewest first layers that fit (a binary
/// search over their number; the peak falls with each one, the time
/// rises). The best fits the budget and is predicted fastest; ties go to
/// the one with less memory.
/// Every FSDP choice is priced with finer units too (a unit per pair
/// module: less memory, more and smaller collectives, which may hide
/// better), except where its kernels alone are no faster than a plan that
/// fits, and its recompute twins after it; neither finer units nor
/// recompute where the choice's stateBytes alone exceed the budget
/// (SearchResult::unpriced). Under training every FSDP choice
/// is priced keeping its units gathered from the forward to the backward too
/// (keepGathered: one gather less per unit; more memory or less, as the peak
/// falls).
SearchResult search(const ModelStructure &s, const MeshSpec &mesh,
                    const SearchOptions &options,
                    const std::function<Evaluation(const Choice &)> &evaluate);

/// The choices of the standard plans: Megatron-LM's (every pair, the
/// embedding and the output sharded, no sequence parallel) and
/// torchtitan's (the same with sequence parallel and loss_parallel).
Choice megatronChoice(const ModelStructure &s, const MeshSpec &mesh);
Choice torchtitanChoice(const ModelStructure &s, const MeshSpec &mesh);

} // namespace mlir::tp::plan

#endif // TP_PLAN_PLANNER_H
