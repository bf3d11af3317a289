//===- CSE.cpp - common subexpressions across training phases -------------===//
//
// tp-cse: MLIR's CSE with the `tp.phase` mark set aside. The mark is a
// discardable attribute, which MLIR's CSE compares, so a backward collective
// equal to a forward one would otherwise be kept and communicate twice.
// The phases are taken off, CSE runs, and the surviving ops get theirs back:
// CSE keeps the op that dominates, the first in program order.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

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

void mlir::tp::eliminateCommonSubexpressionsAcrossPhases(Operation *root) {
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
  eliminateCommonSubExpressions(rewriter, dominance, root);
  for (auto [op, phase] : phases)
    setPhase(op, phase);
}

namespace {
struct CSEPass : public tp::impl::TPCSEPassBase<CSEPass> {
  void runOnOperation() override {
    eliminateCommonSubexpressionsAcrossPhases(getOperation());
  }
};
} // namespace
