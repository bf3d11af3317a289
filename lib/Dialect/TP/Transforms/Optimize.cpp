//===- Optimize.cpp - remove redistributions the math does not need -*- C++
//-*-===//
//
// tp-optimize: before redistributions become collectives, composes chains
// (A -> B -> C becomes A -> C when B has no other user, so inverse pairs
// cancel and all_reduce + chunk becomes one reduce_scatter), folds identity
// redistributions, and merges identical redistributions of one value. A
// composed redistribution has the phase (tp.phase) of the one it replaces,
// the last of the chain; of merged ones the first survives, with its phase.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPOPTIMIZEPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {

/// Composing must not create what tp-lower-redistribute rejects: Shard ->
/// Partial (Replicate -> Partial and Partial -> Partial lower).
static bool isLegalTransition(ArrayRef<Attribute> from,
                              ArrayRef<Attribute> to) {
  for (auto [f, t] : llvm::zip(from, to))
    if (isa<PartialAttr>(t) && isa<ShardAttr>(f))
      return false;
  return true;
}

struct ComposeRedistributes : public OpRewritePattern<RedistributeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RedistributeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<RedistributeOp>();
    if (!producer || !producer->hasOneUse())
      return failure();
    // Nor hide one: a plan that asks for Shard -> Partial is rejected
    // whatever follows it, as in PyTorch.
    if (!isLegalTransition(producer.getInput().getType().getPlacements(),
                           producer.getResult().getType().getPlacements()) ||
        !isLegalTransition(producer.getInput().getType().getPlacements(),
                           op.getResult().getType().getPlacements()))
      return failure();
    Phase phase = getPhase(op);
    if (producer.getInput().getType() == op.getResult().getType()) {
      rewriter.replaceOp(op, producer.getInput());
      return success();
    }
    auto composed = rewriter.replaceOpWithNewOp<RedistributeOp>(
        op, op.getResult().getType(), producer.getInput(),
        op.getModuleAttr() ? op.getModuleAttr() : producer.getModuleAttr());
    // It serves op's users, where op was: op's phase.
    setPhase(composed, phase);
    return success();
  }
};

/// Redistributing a freshly distributed full tensor is distributing it
/// straight to the target: every rank already holds the whole value, so no
/// communication is needed (e.g. an input declared Shard(0) and then
/// gathered back to Replicate).
struct DistributeThenRedistribute : public OpRewritePattern<RedistributeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RedistributeOp op,
                                PatternRewriter &rewriter) const override {
    auto dist = op.getInput().getDefiningOp<DistributeOp>();
    if (!dist || !dist->hasOneUse())
      return failure();
    // Partial targets are not free (zeros on all but one rank); keep them.
    if (llvm::any_of(op.getResult().getType().getPlacements(),
                     [](Attribute p) { return isa<PartialAttr>(p); }))
      return failure();
    Phase phase = getPhase(op);
    auto direct = rewriter.replaceOpWithNewOp<DistributeOp>(
        op, op.getResult().getType(), dist.getInput(),
        op.getModuleAttr() ? op.getModuleAttr() : dist.getModuleAttr());
    setPhase(direct, phase);
    rewriter.eraseOp(dist);
    return success();
  }
};

/// Two identical redistributions of one value become one: the first in
/// program order, with its phase (a backward op that needs what the forward
/// already redistributed reuses it, and communicates nothing).
struct MergeSiblingRedistributes : public OpRewritePattern<RedistributeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RedistributeOp op,
                                PatternRewriter &rewriter) const override {
    for (Operation *user : op.getInput().getUsers()) {
      auto other = dyn_cast<RedistributeOp>(user);
      if (!other || other == op ||
          other.getResult().getType() != op.getResult().getType() ||
          other->getBlock() != op->getBlock() || !other->isBeforeInBlock(op))
        continue;
      rewriter.replaceOp(op, other.getResult());
      return success();
    }
    return failure();
  }
};

struct OptimizePass : public tp::impl::TPOptimizePassBase<OptimizePass> {
  void runOnOperation() override {
    if (failed(checkPassPrecondition(getOperation(), TPPass::Optimize)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<ComposeRedistributes, DistributeThenRedistribute,
                 MergeSiblingRedistributes>(&getContext());
    RedistributeOp::getCanonicalizationPatterns(patterns, &getContext());
    // The patterns never touch control flow, and the driver erases what they
    // leave dead itself: skip region simplification (its liveness analysis
    // was half of this pass at 1000 layers).
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
