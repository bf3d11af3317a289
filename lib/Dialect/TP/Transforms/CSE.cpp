//===- CSE.cpp - common subexpressions across training phases -------------===//
//
// tp-cse: MLIR's CSE with the `tp.phase` mark set aside. The mark is a
// discardable attribute, which MLIR's CSE compares, so a backward collective
// equal to a forward one would otherwise be kept and communicate twice.
// The phases are taken off, CSE runs, and the surviving ops get theirs back:
// CSE keeps the op that dominates, the first in program order.
//
// MLIR's CSE hashes every op; most programs reach this pass with nothing
// to eliminate, so a linear scan first looks for what CSE could act on (a
// trivially dead op, two ops of one name on the same operands, two
// operand-less ops of one name and equal properties) and CSE runs only when
// it finds one.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPCSEPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {
/// Forgets the phase of every op CSE erases.
struct ForgetErased : public RewriterBase::Listener {
  explicit ForgetErased(DenseMap<Operation *, Phase> &phases)
      : phases(phases) {}
  void notifyOperationErased(Operation *op) override { phases.erase(op); }
  DenseMap<Operation *, Phase> &phases;
};
} // namespace

/// False only when MLIR's CSE would find nothing under `root`: no op is
/// trivially dead and no two ops can be equal (equal ops have one name and
/// the same operands, or no operands and equal properties). Pointer
/// comparisons and a hash of the operand-less ops' properties, no more.
static bool mayEliminate(Operation *root) {
  // Beyond this many same-name readers of one value as their first
  // operand, the scan gives up and lets CSE decide.
  constexpr size_t kMaxSiblings = 16;
  DenseSet<std::tuple<const void *, size_t, const void *>> operandless;
  DenseMap<const void *, SmallVector<Operation *, 2>> siblings;
  auto sameOperands = [](Operation *a, Operation *b) {
    return a->getNumOperands() == b->getNumOperands() &&
           llvm::equal(a->getOperands(), b->getOperands()) &&
           a->getResultTypes() == b->getResultTypes();
  };
  // Whether two readers of `v` (as operand 0) may be equal.
  auto equalReaders = [&](Value v) {
    siblings.clear();
    for (OpOperand &use : v.getUses()) {
      if (use.getOperandNumber() != 0)
        continue;
      Operation *user = use.getOwner();
      auto &seen = siblings[user->getName().getAsOpaquePointer()];
      if (seen.size() >= kMaxSiblings || llvm::any_of(seen, [&](Operation *o) {
            return sameOperands(o, user);
          }))
        return true;
      seen.push_back(user);
    }
    return false;
  };
  WalkResult result = root->walk([&](Operation *op) {
    if (op == root)
      return WalkResult::advance();
    if (isOpTriviallyDead(op))
      return WalkResult::interrupt();
    if (op->getNumOperands() == 0) {
      Type type = op->getNumResults() ? op->getResult(0).getType() : Type();
      if (!operandless
               .insert({op->getName().getAsOpaquePointer(),
                        static_cast<size_t>(op->hashProperties()),
                        type.getAsOpaquePointer()})
               .second)
        return WalkResult::interrupt();
    }
    for (Value v : op->getResults())
      if (equalReaders(v))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value v : block.getArguments())
          if (equalReaders(v))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return true;
  // The root's own block arguments (a function's parameters).
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (Value v : block.getArguments())
        if (equalReaders(v))
          return true;
  return false;
}

bool mlir::tp::eliminateCommonSubexpressionsAcrossPhases(Operation *root) {
  if (!mayEliminate(root))
    return false;
  DenseMap<Operation *, Phase> phases;
  root->walk([&](Operation *op) {
    if (Phase phase = getPhase(op); phase != Phase::Forward) {
      phases[op] = phase;
      setPhase(op, Phase::Forward);
    }
  });
  ForgetErased listener(phases);
  IRRewriter rewriter(root->getContext(), &listener);
  DominanceInfo dominance(root);
  bool changed = false;
  eliminateCommonSubExpressions(rewriter, dominance, root, &changed);
  for (auto [op, phase] : phases)
    setPhase(op, phase);
  return changed;
}

namespace {
struct CSEPass : public tp::impl::TPCSEPassBase<CSEPass> {
  void runOnOperation() override {
    // Unchanged IR needs no verifier run after this pass.
    if (!eliminateCommonSubexpressionsAcrossPhases(getOperation()))
      markAllAnalysesPreserved();
  }
};
} // namespace
