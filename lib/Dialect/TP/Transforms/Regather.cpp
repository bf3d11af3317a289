//===- Regather.cpp - gather again in the backward --------------*- C++ -*-===//
//
// tp-regather: in a training step, a forward all_gather whose gathered
// value the backward reads again (under sequence parallelism: a norm's
// output, gathered for the colwise linears after it, is read again by
// their weight gradients) is gathered again right before its first
// backward reader, from the shard the forward kept. The gathered value then
// dies with the forward and only the shard lives across the step, so the
// activations kept for the backward fall as 1/np, as Megatron-LM's
// sequence parallelism does; the price is one more all_gather each, in the
// backward. Opt-in (tp-pipeline regather=true, tp-run --regather): the
// default keeps the gathered value and communicates less. FSDP's parameter
// gathers are regathered by default (the plan's reshard_after_forward),
// but for the units the backward reads again before any other unit is
// gathered (the root's, the last layer's): see unitsKeptGathered.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPREGATHERPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {

/// Where a forward gather's value is read: the last forward reader and the
/// first reader of a later phase (ops of the function's block), and those
/// later readers' operands.
struct Readers {
  Operation *lastForward = nullptr;
  Operation *firstLater = nullptr;
  SmallVector<OpOperand *> later;
};

Readers readersOf(AllGatherOp gather) {
  Block *block = gather->getBlock();
  Readers r;
  for (OpOperand &use : gather.getResult().getUses()) {
    Operation *reader = block->findAncestorOpInBlock(*use.getOwner());
    if (!reader || isa<func::ReturnOp>(reader))
      continue;
    if (getPhase(reader) == Phase::Forward) {
      if (!r.lastForward || r.lastForward->isBeforeInBlock(reader))
        r.lastForward = reader;
      continue;
    }
    r.later.push_back(&use);
    if (!r.firstLater || reader->isBeforeInBlock(r.firstLater))
      r.firstLater = reader;
  }
  return r;
}

/// FSDP's units (keyed by name; "" the root: the parameters of no unit)
/// whose gathered parameters need not be freed after the forward: no other
/// unit is first gathered between their last forward reader and their
/// first backward one. Freeing them there would only gather the same
/// parameters again at once, around the loss: FSDP2 keeps its root
/// module's parameters gathered so, and torchtitan its last transformer
/// block's. Only the backward's gathers of the units before them bring in
/// other parameters, and those are regathered.
llvm::StringSet<> unitsKeptGathered(ArrayRef<AllGatherOp> gathers,
                                    ArrayRef<Readers> readers,
                                    ArrayRef<std::string> units) {
  struct Span {
    Operation *firstGather = nullptr, *lastForward = nullptr,
              *firstLater = nullptr;
  };
  llvm::StringMap<Span> spans;
  for (auto [gather, r, unit] : llvm::zip_equal(gathers, readers, units)) {
    Span &s = spans[unit];
    if (!s.firstGather || gather->isBeforeInBlock(s.firstGather))
      s.firstGather = gather;
    if (r.lastForward &&
        (!s.lastForward || s.lastForward->isBeforeInBlock(r.lastForward)))
      s.lastForward = r.lastForward;
    if (r.firstLater &&
        (!s.firstLater || r.firstLater->isBeforeInBlock(s.firstLater)))
      s.firstLater = r.firstLater;
  }
  llvm::StringSet<> kept;
  for (auto &[unit, s] : spans) {
    if (!s.firstLater || !s.lastForward)
      continue; // nothing to regather, or read by the backward alone
    bool between = llvm::any_of(spans, [&](auto &other) {
      Operation *g = other.second.firstGather;
      return other.first() != unit && s.lastForward->isBeforeInBlock(g) &&
             g->isBeforeInBlock(s.firstLater);
    });
    if (!between)
      kept.insert(unit);
  }
  return kept;
}

} // namespace

LogicalResult mlir::tp::regatherForBackward(func::FuncOp func,
                                            bool parametersOnly) {
  if (failed(checkPassPrecondition(func, TPPass::Regather)))
    return failure();
  // FSDP: the mesh axis its parameters are gathered over, and its units.
  std::optional<int64_t> fsdpAxis;
  std::optional<FSDPUnitMatcher> matcher;
  if (parametersOnly) {
    FailureOr<std::optional<FSDPSetting>> fsdp = getFSDPSetting(func);
    if (failed(fsdp))
      return failure();
    if (!*fsdp || !(*fsdp)->plan.getReshardAfterForward())
      return success();
    fsdpAxis = (*fsdp)->axis;
    FailureOr<FSDPUnitMatcher> units =
        getFSDPUnitMatcher((*fsdp)->plan, [&] { return func.emitError(); });
    if (failed(units))
      return failure();
    matcher = std::move(*units);
  }
  SmallVector<AllGatherOp> gathers;
  SmallVector<std::string> units;
  func.walk([&](AllGatherOp g) {
    if (getPhase(g) != Phase::Forward)
      return;
    if (!fsdpAxis) {
      gathers.push_back(g);
      return;
    }
    auto param =
        dyn_cast_or_null<model::ParamOp>(getShardedParameter(g.getInput()));
    if (!param || !llvm::is_contained(g.getMeshAxes(), *fsdpAxis))
      return;
    gathers.push_back(g);
    units.push_back(matcher->unitOf(getParameterOwner(param.getName())));
  });
  // Each gather's readers, found once before any clone moves them.
  SmallVector<Readers> readers = llvm::map_to_vector(gathers, readersOf);
  llvm::StringSet<> kept;
  if (fsdpAxis)
    kept = unitsKeptGathered(gathers, readers, units);
  for (auto [i, gather] : llvm::enumerate(gathers)) {
    if (fsdpAxis && kept.contains(units[i]))
      continue;
    const Readers &r = readers[i];
    if (r.later.empty())
      continue;
    OpBuilder b(r.firstLater);
    auto again = cast<AllGatherOp>(b.clone(*gather));
    setPhase(again, getPhase(r.firstLater));
    for (OpOperand *use : r.later)
      use->set(again.getResult());
  }
  return success();
}

namespace {
struct RegatherPass : public tp::impl::TPRegatherPassBase<RegatherPass> {
  using TPRegatherPassBase::TPRegatherPassBase;
  void runOnOperation() override {
    if (failed(regatherForBackward(getOperation(), parametersOnly)))
      signalPassFailure();
  }
};
} // namespace
