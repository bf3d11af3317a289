//===- Optimize.cpp - remove redistributions the math does not need -*- C++
//-*-===//
//
// tp-optimize: before redistributions become collectives, composes chains
// (A -> B -> C becomes A -> C when B has no other user, so inverse pairs
// cancel and all_reduce + chunk becomes one reduce_scatter), folds identity
// redistributions, merges identical redistributions of one value, and
// computes a linear's weight gradient on the shard its parameter's update
// takes instead of whole. A composed redistribution has the phase
// (tp.phase) of the one it replaces, the last of the chain; of merged ones
// the first survives, with its phase.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
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

/// Whether \p dist places a parameter as FSDP stores it: sharded over the
/// plan's fsdp_axis (tp-lower-styles). That placement is what each rank
/// keeps of the parameter between its gathers, so it must stay even where
/// nothing else reads it (a frozen parameter has no gradient or update).
static bool isFSDPStorage(DistributeOp dist) {
  if (!dist.getInput().getDefiningOp<model::ParamOp>())
    return false;
  auto module = dist->getParentOfType<ModuleOp>();
  PlanAttr plan =
      module ? TPDialect::PlanAttrHelper(dist.getContext()).getAttr(module)
             : PlanAttr();
  if (!plan || !plan.getFsdpAxis())
    return false;
  DTensorType type = dist.getResult().getType();
  auto mesh =
      SymbolTable::lookupNearestSymbolFrom<MeshOp>(dist, type.getMesh());
  if (!mesh)
    return false;
  int64_t axis = mesh.getAxisIndex(plan.getFsdpAxis().getValue());
  return axis >= 0 &&
         axis < static_cast<int64_t>(type.getPlacements().size()) &&
         getSplitDim(type.getPlacements()[axis]).has_value();
}

/// Redistributing a freshly distributed full tensor is distributing it
/// straight to the target: every rank already holds the whole value, so no
/// communication is needed (e.g. an input declared Shard(0) and then
/// gathered back to Replicate). Not a parameter's FSDP storage.
struct DistributeThenRedistribute : public OpRewritePattern<RedistributeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RedistributeOp op,
                                PatternRewriter &rewriter) const override {
    auto dist = op.getInput().getDefiningOp<DistributeOp>();
    if (!dist || !dist->hasOneUse() || isFSDPStorage(dist))
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

/// A linear's weight gradient computed whole and then chunked (Replicate ->
/// Shard(0) or Shard(1) on an axis, e.g. for the update of a column- or
/// row-parallel weight whose output gradient is replicated, as it is after
/// a gathered output) is computed on the chunk instead: the gradient's
/// output features (Shard(0)) or the input's features (Shard(1)) are
/// chunked first, which needs no communication either, and each rank runs
/// 1/n of the GEMM. A training step that returns the whole gradient then
/// returns it laid out as its parameter (the same global value). An axis
/// the redistribution also reduces (the Partial gradient of data
/// parallelism) is reduced after, on the chunk.
struct ShardLinearGradWeight : public OpRewritePattern<RedistributeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RedistributeOp op,
                                PatternRewriter &rewriter) const override {
    auto gw = op.getInput().getDefiningOp<model::LinearGradWeightOp>();
    if (!gw)
      return failure();
    // Read by this redistribution, and returned at most.
    SmallVector<OpOperand *> returned;
    for (OpOperand &use : gw->getUses()) {
      if (use.getOwner() == op)
        continue;
      if (!isa<func::ReturnOp>(use.getOwner()))
        return failure();
      returned.push_back(&use);
    }
    DTensorType from = op.getInput().getType(), to = op.getResult().getType();
    // The placements of the gradient and the input: a plain tensor is the
    // whole value on every rank.
    auto placementsOf = [&](Value v) -> SmallVector<Attribute> {
      if (auto d = dyn_cast<DTensorType>(v.getType()))
        return SmallVector<Attribute>(d.getPlacements());
      return SmallVector<Attribute>(from.getPlacements().size(),
                                    ReplicateAttr::get(op.getContext()));
    };
    SmallVector<Attribute> g = placementsOf(gw.getGrad()),
                           x = placementsOf(gw.getInput());
    if (g.size() != from.getPlacements().size() ||
        x.size() != from.getPlacements().size())
      return failure();
    int64_t gLast = getTensorLikeShape(gw.getGrad().getType()).size() - 1;
    int64_t xLast = getTensorLikeShape(gw.getInput().getType()).size() - 1;
    bool changed = false;
    // The chunked gradient's placements: `to`'s, except that an axis the
    // redistribution reduces (Partial -> Replicate, a data-parallel
    // gradient) stays Partial and is reduced after, on the chunk.
    SmallVector<Attribute> mid(to.getPlacements());
    for (auto [a, pair] :
         llvm::enumerate(llvm::zip(from.getPlacements(), to.getPlacements()))) {
      auto [p, q] = pair;
      if (p == q)
        continue;
      if (isa<PartialAttr>(p) && isa<ReplicateAttr>(q)) {
        mid[a] = p;
        continue;
      }
      auto shard = dyn_cast<ShardAttr>(q);
      if (!isa<ReplicateAttr>(p) || !shard || shard.getDim() > 1 ||
          !isa<ReplicateAttr>(g[a]) || !isa<ReplicateAttr>(x[a]))
        return failure();
      // Rows of the gradient weight are the output's features, its columns
      // the input's.
      if (shard.getDim() == 0)
        g[a] = ShardAttr::get(op.getContext(), gLast);
      else
        x[a] = ShardAttr::get(op.getContext(), xLast);
      changed = true;
    }
    if (!changed)
      return failure();
    StringRef module =
        op.getModuleAttr() ? op.getModuleAttr().getValue() : gw.getFqn();
    // Where the whole gradient was computed, not where it was chunked (for
    // an update, after the whole backward): its operands then die there.
    rewriter.setInsertionPoint(gw);
    Value grad = ensurePlacements(rewriter, op.getLoc(), gw.getGrad(),
                                  to.getMesh(), g, module);
    Value input = ensurePlacements(rewriter, op.getLoc(), gw.getInput(),
                                   to.getMesh(), x, module);
    auto midType = DTensorType::get(op.getContext(), to.getShape(),
                                    to.getElementType(), to.getMesh(), mid);
    Value sharded = model::LinearGradWeightOp::create(
        rewriter, gw.getLoc(), midType, gw.getFqnAttr(), grad, input);
    // Backward computation, as the gradient it replaces (the redistribution
    // it replaces may be the optimizer's).
    Phase phase = getPhase(gw);
    for (Value v : {grad, input, sharded})
      if (Operation *made = v.getDefiningOp();
          made && v != gw.getGrad() && v != gw.getInput())
        rewriter.modifyOpInPlace(made, [&] { setPhase(made, phase); });
    // The reduction of the chunk, where the redistribution was and in its
    // phase.
    Value result = sharded;
    if (midType != to) {
      rewriter.setInsertionPoint(op);
      result = ensurePlacements(rewriter, op.getLoc(), sharded, to.getMesh(),
                                to.getPlacements(), module);
      if (Operation *reduce = result.getDefiningOp())
        rewriter.modifyOpInPlace(reduce,
                                 [&] { setPhase(reduce, getPhase(op)); });
    }
    rewriter.replaceOp(op, result);
    if (!returned.empty()) {
      auto func = gw->getParentOfType<func::FuncOp>();
      SmallVector<Type> results(func.getResultTypes());
      for (OpOperand *use : returned) {
        rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(sharded); });
        results[use->getOperandNumber()] = midType;
      }
      rewriter.modifyOpInPlace(func, [&] {
        func.setType(
            FunctionType::get(getContext(), func.getArgumentTypes(), results));
      });
    }
    rewriter.eraseOp(gw);
    return success();
  }
};

struct OptimizePass : public tp::impl::TPOptimizePassBase<OptimizePass> {
  void runOnOperation() override {
    if (failed(checkPassPrecondition(getOperation(), TPPass::Optimize)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<ComposeRedistributes, DistributeThenRedistribute,
                 MergeSiblingRedistributes, ShardLinearGradWeight>(
        &getContext());
    RedistributeOp::getCanonicalizationPatterns(patterns, &getContext());
    // The patterns never touch control flow, and the driver erases what they
    // leave dead itself: skip region simplification (its liveness analysis
    // was half of this pass at 1000 layers).
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    // Only tp ops match the patterns or fold (model ops have no folders and
    // none is constant-like), so the driver starts from them and from the
    // ops already dead, which it would erase; what the rewrites create or
    // leave dead joins on the way (AnyOp). The same fixpoint as a start
    // from every op, without visiting each model op once more.
    SmallVector<Operation *> start;
    getOperation().walk([&](Operation *op) {
      if (isa_and_nonnull<TPDialect>(op->getDialect()) || isOpTriviallyDead(op))
        start.push_back(op);
    });
    bool changed = false;
    if (failed(applyOpPatternsGreedily(start, std::move(patterns), config,
                                       &changed)))
      return signalPassFailure();
    // Unchanged IR needs no verifier run after this pass.
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
