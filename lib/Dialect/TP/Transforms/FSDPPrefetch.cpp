//===- FSDPPrefetch.cpp - gather the next unit one unit early --*- C++ -*-===//
//
// tp-fsdp-prefetch: FSDP2 issues the all_gather of the next unit's
// parameters before the current unit computes (forward prefetch; in the
// backward, the next unit in backward order), so that the gather runs
// while the current unit computes. Here that is a schedule: each FSDP
// parameter gather of a phase moves up to right before the first op that
// reads the previous gather of that phase, with the pure ops that make its
// operand (the parameter, its chunks and cast, the unit's pack). The
// executor runs a collective whose result is read later asynchronously,
// and its liveness plan counts the early gather's buffer from the new
// position: one more unit's parameters at the peak, as FSDP2 holds.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPFSDPPREFETCHPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

/// Whether \p g gathers FSDP parameter shards over \p axis: one
/// parameter's (a chunk of it, maybe cast) or a unit's pack of them.
static bool isParameterGather(AllGatherOp g, int64_t axis) {
  if (!llvm::is_contained(g.getMeshAxes(), axis))
    return false;
  if (getShardedParameter(g.getInput()))
    return true;
  auto pack = g.getInput().getDefiningOp<PackOp>();
  return pack && !pack->getOperands().empty() &&
         llvm::all_of(pack->getOperands(),
                      [](Value v) { return getShardedParameter(v); });
}

/// The ops of \p block at or after \p point that \p op needs (itself, and
/// the defining ops of its operands there, recursively), in block order;
/// empty when one of them is not a pure op without regions (it cannot move
/// up) or when \p point is among them.
static SmallVector<Operation *> opsToHoist(Operation *op, Operation *point) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Operation *> work{op};
  while (!work.empty()) {
    Operation *o = work.pop_back_val();
    if (o == point || o->getNumRegions() != 0 || !isPure(o))
      return {};
    if (!needed.insert(o))
      continue;
    for (Value v : o->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() == point->getBlock() &&
          !def->isBeforeInBlock(point))
        work.push_back(def);
  }
  SmallVector<Operation *> ordered(needed.begin(), needed.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

LogicalResult mlir::tp::prefetchFSDPGathers(func::FuncOp func) {
  if (failed(checkPassPrecondition(func, TPPass::FSDPPrefetch)))
    return failure();
  FailureOr<std::optional<FSDPSetting>> fsdp = getFSDPSetting(func);
  if (failed(fsdp))
    return failure();
  if (!*fsdp)
    return success();
  int64_t axis = (*fsdp)->axis;

  // Each phase's parameter gathers in program order, with the first op
  // that reads each (before anything moves).
  Block &block = func.getBody().front();
  std::map<int, SmallVector<std::pair<AllGatherOp, Operation *>>> byPhase;
  for (Operation &op : block) {
    auto g = dyn_cast<AllGatherOp>(op);
    if (!g || !isParameterGather(g, axis))
      continue;
    Operation *first = nullptr;
    for (Operation *user : g->getUsers())
      if (Operation *reader = block.findAncestorOpInBlock(*user);
          reader && (!first || reader->isBeforeInBlock(first)))
        first = reader;
    byPhase[static_cast<int>(getPhase(g))].push_back({g, first});
  }
  for (auto &[phase, gathers] : byPhase)
    for (size_t k = 1; k < gathers.size(); ++k) {
      // Before the previous unit computes: right before its gather's first
      // reader.
      Operation *point = gathers[k - 1].second;
      AllGatherOp g = gathers[k].first;
      if (!point || !point->isBeforeInBlock(g))
        continue;
      for (Operation *o : opsToHoist(g, point))
        o->moveBefore(point);
    }
  return success();
}

namespace {
struct FSDPPrefetchPass
    : public tp::impl::TPFSDPPrefetchPassBase<FSDPPrefetchPass> {
  void runOnOperation() override {
    if (failed(prefetchFSDPGathers(getOperation())))
      signalPassFailure();
  }
};
} // namespace
