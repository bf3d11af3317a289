//===- Partition.cpp - one SPMD function per model function -----*- C++ -*-===//
//
// tp-partition: inlines composite modules, replaces each !tp.dtensor by this
// rank's local tensor type, turns tp.distribute into local tp.chunk and
// tp.partial_from_replicate ops, lookups into a split table into
// tp.sharded_embedding / tp.sharded_target_logit and training dropouts on
// a sharded tensor into tp.sharded_dropout, and drops
// tp.to_local/tp.from_local. The result is one function that every rank
// runs; its only communication is the collectives already in it.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPPARTITIONPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

void mlir::tp::inlineSubmodules(func::FuncOp func) {
  SmallVector<m::SubmoduleOp> subs;
  func.walk<WalkOrder::PreOrder>([&](m::SubmoduleOp s) { subs.push_back(s); });
  for (m::SubmoduleOp sub : subs) {
    Block &body = sub.getBody().front();
    auto yield = cast<m::YieldOp>(body.getTerminator());
    for (auto [arg, in] : llvm::zip(body.getArguments(), sub.getInputs()))
      arg.replaceAllUsesWith(in);
    for (auto [res, v] : llvm::zip(sub.getOutputs(), yield.getValues()))
      res.replaceAllUsesWith(v);
    yield.erase();
    sub->getBlock()->getOperations().splice(sub->getIterator(),
                                            body.getOperations());
    sub.erase();
  }
}

/// The mesh axes that shard dim `dim` of `v`, if it is a dtensor.
static SmallVector<int64_t> axesSharding(Value v, int64_t dim) {
  SmallVector<int64_t> axes;
  if (auto t = dyn_cast<DTensorType>(v.getType()))
    for (auto [axis, p] : llvm::enumerate(t.getPlacements()))
      if (auto s = dyn_cast<ShardAttr>(p); s && s.getDim() == dim)
        axes.push_back(axis);
  return axes;
}

namespace {
/// A lookup into a table split over mesh axes: a model.embedding whose
/// weight is sharded on its rows, or a model.target_logit whose logits are
/// sharded on the classes, or the backward of either (which writes this
/// rank's rows or classes of the gradient).
struct ShardedLookup {
  Operation *op;
  FlatSymbolRefAttr mesh;
  SmallVector<int64_t> axes;
  /// The global size of the split dim.
  int64_t fullSize;
};
} // namespace

/// The lookups of `func` into a split table, found while their operands
/// still carry their placements.
static SmallVector<ShardedLookup> findShardedLookups(func::FuncOp func) {
  SmallVector<ShardedLookup> found;
  auto record = [&](Operation *op, Value table, int64_t dim) {
    SmallVector<int64_t> axes = axesSharding(table, dim);
    if (axes.empty())
      return;
    auto type = cast<DTensorType>(table.getType());
    found.push_back(
        {op, type.getMesh(), std::move(axes), type.getShape()[dim]});
  };
  func.walk([&](Operation *op) {
    if (auto t = dyn_cast<m::TargetLogitOp>(op))
      record(op, t.getLogits(), 1);
    else if (auto emb = dyn_cast<m::EmbeddingOp>(op))
      record(op, emb.getWeight(), 0);
    else if (auto g = dyn_cast<m::EmbeddingGradOp>(op))
      record(op, g.getWeight(), 0);
    else if (auto g = dyn_cast<m::TargetLogitGradOp>(op))
      record(op, g.getLogits(), 1);
  });
  return found;
}

/// Once their operands are local, each lookup sees only this rank's rows or
/// classes: it becomes the tp op that says which (tp.sharded_embedding,
/// tp.sharded_target_logit).
static void localizeShardedLookups(ArrayRef<ShardedLookup> lookups) {
  for (const ShardedLookup &l : lookups) {
    PhaseListener marker(l.op);
    OpBuilder b(l.op, &marker);
    auto axes = b.getDenseI64ArrayAttr(l.axes);
    auto resultType = cast<RankedTensorType>(l.op->getResult(0).getType());
    Value replacement;
    if (auto emb = dyn_cast<m::EmbeddingOp>(l.op))
      replacement = ShardedEmbeddingOp::create(
          b, emb.getLoc(), resultType, l.mesh, axes, emb.getFqnAttr(),
          emb.getIds(), emb.getWeight(), b.getI64IntegerAttr(l.fullSize));
    else if (auto t = dyn_cast<m::TargetLogitOp>(l.op))
      replacement = ShardedTargetLogitOp::create(
          b, t.getLoc(), resultType, l.mesh, axes, /*module=*/nullptr,
          t.getLogits(), t.getTargets(), b.getI64IntegerAttr(l.fullSize));
    else if (auto g = dyn_cast<m::EmbeddingGradOp>(l.op))
      replacement = ShardedEmbeddingGradOp::create(
          b, g.getLoc(), resultType, l.mesh, axes, g.getFqnAttr(), g.getGrad(),
          g.getIds(), g.getWeight(), b.getI64IntegerAttr(l.fullSize));
    else {
      auto t = cast<m::TargetLogitGradOp>(l.op);
      replacement = ShardedTargetLogitGradOp::create(
          b, t.getLoc(), resultType, l.mesh, axes, /*module=*/nullptr,
          t.getGrad(), t.getLogits(), t.getTargets(),
          b.getI64IntegerAttr(l.fullSize));
    }
    l.op->getResult(0).replaceAllUsesWith(replacement);
    l.op->erase();
  }
}

/// The global number of \p targets' rows not ignored (-100), on every
/// rank: model.valid_rows, all-reduced over the mesh axes that split the
/// rows (of more than one rank), in the phase of \p user. The all_reduce
/// of one scalar runs while the rank computes until \p user reads it; it
/// is built after the last collective before \p user (collectives run in
/// order, so earlier it would delay those) or, with none, as soon as the
/// targets are.
static Value globalValidRows(Operation *user, Value targets,
                             SymbolTableCollection &symbols) {
  PhaseListener marker(user);
  OpBuilder b(user->getContext(), &marker);
  b.setInsertionPointAfterValue(targets);
  for (Operation *op = user->getPrevNode(); op && op != targets.getDefiningOp();
       op = op->getPrevNode())
    if (isa<AllGatherOp, AllReduceOp, ReduceScatterOp, AllToAllOp, BroadcastOp>(
            op)) {
      b.setInsertionPointAfter(op);
      break;
    }
  Location loc = user->getLoc();
  MLIRContext *ctx = b.getContext();
  auto f32 = b.getF32Type();
  auto type = dyn_cast<DTensorType>(targets.getType());
  if (!type)
    return m::ValidRowsOp::create(b, loc, RankedTensorType::get({}, f32),
                                  targets);
  MeshOp mesh = lookupMesh(user, type.getMesh(), &symbols);
  SmallVector<Attribute> placements, replicated;
  SmallVector<int64_t> axes;
  for (auto [axis, p] : llvm::enumerate(type.getPlacements())) {
    bool splits = isa<ShardAttr>(p) && mesh && mesh.getShape()[axis] > 1;
    if (splits)
      axes.push_back(axis);
    placements.push_back(
        splits ? Attribute(PartialAttr::get(ctx, ReductionKind::Sum))
               : Attribute(ReplicateAttr::get(ctx)));
    replicated.push_back(ReplicateAttr::get(ctx));
  }
  auto dtensor = [&](ArrayRef<Attribute> ps) {
    return DTensorType::get(ctx, {}, f32, type.getMesh(),
                            canonicalizePlacements(ps));
  };
  Value own = m::ValidRowsOp::create(b, loc, dtensor(placements), targets);
  if (axes.empty())
    return own;
  auto scalar = RankedTensorType::get({}, f32);
  Value local = ToLocalOp::create(b, loc, scalar, own);
  Value sum = AllReduceOp::create(
      b, loc, scalar, type.getMesh(), b.getDenseI64ArrayAttr(axes),
      /*module=*/nullptr, local,
      ReductionKindAttr::get(ctx, ReductionKind::Sum));
  return FromLocalOp::create(b, loc, dtensor(replicated), sum);
}

/// Means over a shard divide by the global count, so that each rank's
/// result is a partial sum of the mean (the sharding rules of model.mean and
/// model.cross_entropy): set while the operands still have their global
/// types. A count already present is kept. A cross entropy whose targets
/// may hold -100 divides by the global number of rows not ignored, which
/// no rank knows alone: each counts its own and one all_reduce of a scalar
/// sums them, shared by the loss and its gradient.
static void setGlobalCounts(func::FuncOp func, SymbolTableCollection &symbols) {
  auto sharded = [](Value v) -> DTensorType {
    auto t = dyn_cast<DTensorType>(v.getType());
    if (t && llvm::any_of(t.getPlacements(), llvm::IsaPred<ShardAttr>))
      return t;
    return nullptr;
  };
  Builder b(func.getContext());
  llvm::DenseMap<Value, Value> validOf;
  func.walk([&](Operation *op) {
    if (auto mean = dyn_cast<m::MeanOp>(op)) {
      if (DTensorType t = sharded(mean.getInput()); t && !mean.getCount())
        mean.setCountAttr(
            b.getI64IntegerAttr(ShapedType::getNumElements(t.getShape())));
      return;
    }
    // Rows of the loss (logits [N, C], targets [N]).
    Value logits, targets;
    MutableOperandRange valid(op);
    if (auto ce = dyn_cast<m::CrossEntropyOp>(op)) {
      logits = ce.getLogits();
      targets = ce.getTargets();
      valid = ce.getValidMutable();
    } else if (auto g = dyn_cast<m::CrossEntropyGradOp>(op)) {
      logits = g.getLogits();
      targets = g.getTargets();
      valid = g.getValidMutable();
    } else {
      return;
    }
    if (op->hasAttr("count") || !valid.empty() ||
        (!sharded(logits) && !sharded(targets)))
      return;
    if (!m::mayHoldIgnoreIndex(targets)) {
      int64_t rows = getTensorLikeShape(targets.getType())[0];
      op->setAttr("count", b.getI64IntegerAttr(rows));
      return;
    }
    Value &divisor = validOf[targets];
    if (!divisor)
      divisor = globalValidRows(op, targets, symbols);
    valid.assign(divisor);
  });
}

namespace {
/// An operand of a model.sum_squares replicated over mesh axes where its
/// result is a partial sum: it must count on one rank of those axes only.
struct CountOnce {
  m::SumSquaresOp op;
  unsigned operand;
  FlatSymbolRefAttr mesh;
  SmallVector<int64_t> axes;
};
} // namespace

/// The operands of the sums of squares that are replicated where the sum
/// is partial, found while the values still carry their placements.
static SmallVector<CountOnce> findCountOnce(func::FuncOp func) {
  SmallVector<CountOnce> found;
  func.walk([&](m::SumSquaresOp op) {
    auto result = dyn_cast<DTensorType>(op.getResult().getType());
    if (!result)
      return;
    for (auto [i, v] : llvm::enumerate(op.getInputs())) {
      auto type = dyn_cast<DTensorType>(v.getType());
      CountOnce once{op, static_cast<unsigned>(i), result.getMesh(), {}};
      for (auto [axis, p] : llvm::enumerate(result.getPlacements()))
        if (isa<PartialAttr>(p) &&
            (!type || isa<ReplicateAttr>(type.getPlacements()[axis])))
          once.axes.push_back(axis);
      if (!once.axes.empty())
        found.push_back(std::move(once));
    }
  });
  return found;
}

namespace {
/// A dropout in training (forward or backward) on a sharded tensor.
struct ShardedDropout {
  Operation *op;
  DTensorType type;
};
} // namespace

/// The training dropouts of `func` whose operand is sharded on some mesh
/// axis, found while their operands still carry their placements. (A
/// dropout on a tensor no axis shards draws the whole mask: it stays a
/// model op.)
static SmallVector<ShardedDropout> findShardedDropouts(func::FuncOp func) {
  SmallVector<ShardedDropout> found;
  func.walk([&](Operation *op) {
    auto d = dyn_cast<m::DropoutOp>(op);
    if (!(d && d.getTrain()) && !isa<m::DropoutGradOp>(op))
      return;
    auto type = dyn_cast<DTensorType>(op->getOperand(0).getType());
    if (type && llvm::any_of(type.getPlacements(),
                             [](Attribute p) { return isa<ShardAttr>(p); }))
      found.push_back({op, type});
  });
  return found;
}

/// Each such operand keeps its value on coordinate 0 of those axes and
/// zeros elsewhere (tp.partial_from_replicate), so the ranks' partial sums
/// add it once.
static void countOnce(MutableArrayRef<CountOnce> operands) {
  for (CountOnce &c : operands) {
    OpBuilder b(c.op);
    Value v = c.op->getOperand(c.operand);
    Value once = PartialFromReplicateOp::create(
        b, c.op.getLoc(), cast<RankedTensorType>(v.getType()), c.mesh,
        b.getDenseI64ArrayAttr(c.axes), /*module=*/nullptr, v,
        ReductionKindAttr::get(b.getContext(), ReductionKind::Sum));
    c.op->setOperand(c.operand, once);
  }
}

/// Once their operands are local, each dropout sees only this rank's shard:
/// it becomes the tp op that says which (tp.sharded_dropout and _grad).
static void localizeShardedDropouts(ArrayRef<ShardedDropout> dropouts) {
  for (const ShardedDropout &d : dropouts) {
    OpBuilder b(d.op);
    SmallVector<int64_t> shardDims;
    for (Attribute p : d.type.getPlacements()) {
      auto shard = dyn_cast<ShardAttr>(p);
      shardDims.push_back(shard ? shard.getDim() : -1);
    }
    auto fqn = cast<StringAttr>(d.op->getAttr("fqn"));
    auto p = cast<FloatAttr>(d.op->getAttr("p"));
    Type local = d.op->getResult(0).getType();
    auto dims = b.getDenseI64ArrayAttr(shardDims);
    auto global = b.getDenseI64ArrayAttr(d.type.getShape());
    Value replacement;
    if (isa<m::DropoutOp>(d.op))
      replacement =
          ShardedDropoutOp::create(b, d.op->getLoc(), local, d.type.getMesh(),
                                   dims, fqn, d.op->getOperand(0), global, p);
    else
      replacement = ShardedDropoutGradOp::create(
          b, d.op->getLoc(), local, d.type.getMesh(), dims, fqn,
          d.op->getOperand(0), global, p);
    d.op->getResult(0).replaceAllUsesWith(replacement);
    d.op->erase();
  }
}

/// Fails, naming the op, where the function's distributed values are not
/// all in its single block: partitioning rewrites that block only, and
/// would mark the function partitioned with layouts left in a loop or
/// branch.
static LogicalResult checkSingleBlockBody(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "tp-partition: @" << func.getSymName() << " has "
           << func.getBody().getBlocks().size()
           << " blocks; tp-partition partitions single-block functions";
  auto isDistributed = [](Type t) { return isa<DTensorType>(t); };
  WalkResult nested = func.walk([&](Operation *op) {
    if (op->getParentOp() == func.getOperation())
      return WalkResult::advance();
    if (!isa<DistributeOp, FromLocalOp, ToLocalOp>(op) &&
        llvm::none_of(op->getOperandTypes(), isDistributed) &&
        llvm::none_of(op->getResultTypes(), isDistributed))
      return WalkResult::advance();
    op->emitError() << "tp-partition: " << op->getName() << " inside "
                    << op->getParentOp()->getName()
                    << " works on distributed tensors; tp-partition "
                       "partitions the function's body, not nested regions";
    return WalkResult::interrupt();
  });
  return failure(nested.wasInterrupted());
}

static LogicalResult partitionFunc(func::FuncOp func,
                                   SymbolTableCollection &symbols) {
  inlineSubmodules(func);
  if (failed(checkSingleBlockBody(func)))
    return failure();
  SmallVector<ShardedLookup> lookups = findShardedLookups(func);
  setGlobalCounts(func, symbols);
  SmallVector<CountOnce> countedOnce = findCountOnce(func);
  SmallVector<ShardedDropout> dropouts = findShardedDropouts(func);
  Block &block = func.getBody().front();
  // Arguments: each rank receives its local piece of a distributed input;
  // the global (dtensor) types stay for the runtime to cut them.
  SmallVector<Attribute> argTypes;
  bool anyDistributedArg = false;
  for (BlockArgument arg : block.getArguments()) {
    argTypes.push_back(TypeAttr::get(arg.getType()));
    auto type = dyn_cast<DTensorType>(arg.getType());
    if (!type)
      continue;
    anyDistributedArg = true;
    MeshOp mesh = lookupMesh(func, type.getMesh(), &symbols);
    if (!mesh)
      return failure();
    arg.setType(getLocalType(type, mesh));
  }
  if (anyDistributedArg)
    TPDialect::ArgTypesAttrHelper(func.getContext())
        .setAttr(func, ArrayAttr::get(func.getContext(), argTypes));
  for (Operation &opRef : llvm::make_early_inc_range(block)) {
    Operation *op = &opRef;
    if (auto from = dyn_cast<FromLocalOp>(op)) {
      from.getResult().replaceAllUsesWith(from.getInput());
      op->erase();
      continue;
    }
    if (auto to = dyn_cast<ToLocalOp>(op)) {
      // The input is already local by now: no longer the dtensor that
      // getInput() would cast it to.
      to.getResult().replaceAllUsesWith(op->getOperand(0));
      op->erase();
      continue;
    }
    if (auto dist = dyn_cast<DistributeOp>(op)) {
      DTensorType type = dist.getResult().getType();
      MeshOp mesh = lookupMesh(op, type.getMesh(), &symbols);
      if (!mesh)
        return failure();
      PhaseListener marker(op);
      OpBuilder b(op, &marker);
      Value current = dist.getInput();
      auto shape = llvm::to_vector(type.getShape());
      // Cut in split order: the inner shards after every other placement.
      SmallVector<std::pair<int64_t, Attribute>> cuts;
      for (bool inner : {false, true})
        for (auto [axis, p] : llvm::enumerate(type.getPlacements()))
          if (isa<InnerShardAttr>(p) == inner)
            cuts.emplace_back(static_cast<int64_t>(axis), p);
      for (auto [axis, p] : cuts) {
        if (mesh.getShape()[axis] == 1)
          continue;
        auto axes = b.getDenseI64ArrayAttr({(int64_t)axis});
        // The global value on every rank, made a Partial whose reduction is
        // that value.
        if (auto partial = dyn_cast<PartialAttr>(p)) {
          current = PartialFromReplicateOp::create(
              b, op->getLoc(), cast<RankedTensorType>(current.getType()),
              type.getMesh(), axes, dist.getModuleAttr(), current,
              ReductionKindAttr::get(b.getContext(), partial.getKind()));
          continue;
        }
        std::optional<int64_t> dim = getSplitDim(p);
        if (!dim)
          continue;
        int64_t &d = shape[*dim];
        // An uneven chunk has a rank-dependent (dynamic) size.
        if (!ShapedType::isDynamic(d))
          d = d % mesh.getShape()[axis] == 0 ? d / mesh.getShape()[axis]
                                             : ShapedType::kDynamic;
        auto localType = RankedTensorType::get(shape, type.getElementType());
        current = ChunkOp::create(b, op->getLoc(), localType, type.getMesh(),
                                  axes, dist.getModuleAttr(), current,
                                  b.getI64IntegerAttr(*dim));
      }
      dist.getResult().replaceAllUsesWith(current);
      op->erase();
      continue;
    }
    for (Value result : op->getResults()) {
      auto type = dyn_cast<DTensorType>(result.getType());
      if (!type)
        continue;
      MeshOp mesh = lookupMesh(op, type.getMesh(), &symbols);
      if (!mesh)
        return failure();
      // Uneven shards become dynamic dims (their size is the rank's
      // torch.chunk size); the largest rank's shape is kept for the
      // executor's memory plan.
      RankedTensorType local = getLocalType(type, mesh);
      result.setType(local);
      if (!local.hasStaticShape() && op->getNumResults() == 1)
        TPDialect::LocalBoundAttrHelper(op->getContext())
            .setAttr(op, DenseI64ArrayAttr::get(op->getContext(),
                                                getMaxLocalShape(type, mesh)));
    }
  }

  localizeShardedLookups(lookups);
  countOnce(countedOnce);
  localizeShardedDropouts(dropouts);

  // Results: local types, with their placements kept for the runtime.
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  // The global (dtensor) type of each distributed result, so a runtime can
  // reassemble it; plain results are replicated and need nothing.
  SmallVector<Attribute> resultTypes;
  bool anyDistributed = false;
  for (Type t : func.getResultTypes()) {
    anyDistributed |= isa<DTensorType>(t);
    resultTypes.push_back(TypeAttr::get(t));
  }
  if (anyDistributed)
    TPDialect::ResultTypesAttrHelper(func.getContext())
        .setAttr(func, ArrayAttr::get(func.getContext(), resultTypes));
  func.setType(FunctionType::get(func.getContext(), block.getArgumentTypes(),
                                 ret.getOperandTypes()));
  TPDialect::SpmdAttrHelper(func.getContext())
      .setAttr(func, UnitAttr::get(func.getContext()));
  return success();
}

LogicalResult mlir::tp::partition(ModuleOp module) {
  if (failed(checkPassPrecondition(module, TPPass::Partition)))
    return failure();
  SymbolTableCollection symbols;
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!func.isExternal() && failed(partitionFunc(func, symbols)))
      return failure();
  return success();
}

LogicalResult mlir::tp::partition(func::FuncOp func) {
  if (func.isExternal())
    return success();
  if (failed(checkPassPrecondition(func, TPPass::Partition)))
    return failure();
  SymbolTableCollection symbols;
  return partitionFunc(func, symbols);
}

namespace {
struct PartitionPass : public tp::impl::TPPartitionPassBase<PartitionPass> {
  void runOnOperation() override {
    if (failed(partition(getOperation())))
      signalPassFailure();
  }
};
} // namespace
