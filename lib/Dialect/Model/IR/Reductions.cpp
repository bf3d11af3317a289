//===- Reductions.cpp - reductions and losses: rules and gradients --------===//
//
// The sharding rules and backward rules of the keepdim reductions, the
// mean, cross entropy and the target logit (loss_parallel's pieces), and
// the rules of their backward ops. Each op's
// verifier is here too.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduce(Operation *op, int64_t dim) {
  auto in = shapeOf(op->getOperand(0));
  int64_t rank = in.size();
  if (dim < -rank || dim >= rank)
    return op->emitOpError()
           << "dim " << dim << " is out of range for rank " << rank;
  SmallVector<int64_t> out(in);
  out[dim < 0 ? dim + rank : dim] = 1;
  return expectShape(op, "result", shapeOf(op->getResult(0)), out);
}

LogicalResult ReduceMaxOp::verify() {
  return verifyReduce(*this, (int64_t)getDim());
}

LogicalResult ReduceSumOp::verify() {
  return verifyReduce(*this, (int64_t)getDim());
}

LogicalResult MeanOp::verify() {
  if (failed(verifyCount(*this, getCount())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), {});
}

LogicalResult TargetLogitOp::verify() {
  auto l = shapeOf(getLogits()), t = shapeOf(getTargets());
  if (l.size() != 2 || t.size() != 1 || !sameSize(l[0], t[0]))
    return emitOpError("target_logit takes logits [N, C] and targets [N]");
  if (!isa<IntegerType>(getTensorLikeElementType(getTargets().getType())))
    return emitOpError("targets must be integers");
  return expectShape(*this, "result", shapeOf(getResult()), {l[0], 1});
}

/// A cross entropy's divisor where its rows are split: `count` or the
/// operand `valid` (a rank-0 f32), not both.
static LogicalResult verifyDivisor(Operation *op, Value valid,
                                   std::optional<uint64_t> count) {
  if (failed(verifyCount(op, count)))
    return failure();
  if (!valid)
    return success();
  if (count)
    return op->emitOpError("takes one divisor: `count` or `valid`, not both");
  if (!shapeOf(valid).empty() ||
      !getTensorLikeElementType(valid.getType()).isF32())
    return op->emitOpError("valid (the rows not ignored) must be a rank-0 "
                           "f32 tensor");
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  auto l = shapeOf(getLogits()), t = shapeOf(getTargets());
  if (l.size() != 2 || t.size() != 1 || !sameSize(l[0], t[0]))
    return emitOpError("cross_entropy takes logits [N, C] and targets [N]");
  if (failed(verifyDivisor(*this, getValid(), getCount())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), {});
}

LogicalResult ValidRowsOp::verify() {
  if (shapeOf(getTargets()).size() != 1 ||
      !isa<IntegerType>(getTensorLikeElementType(getTargets().getType())))
    return emitOpError("takes integer targets [N]");
  if (!getTensorLikeElementType(getResult().getType()).isF32())
    return emitOpError("result must be f32");
  return expectShape(*this, "result", shapeOf(getResult()), {});
}

/// grad is input's shape with 1 at dim.
static LogicalResult verifyReduceGrad(Operation *op, int64_t rawDim) {
  auto x = shapeOf(op->getOperand(1));
  FailureOr<int64_t> dim = normalizedDim(op, rawDim, x.size());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> g(x);
  g[*dim] = 1;
  if (failed(expectShape(op, "gradient", shapeOf(op->getOperand(0)), g)))
    return failure();
  return expectShape(op, "result", shapeOf(op->getResult(0)), x);
}

LogicalResult ReduceSumGradOp::verify() {
  return verifyReduceGrad(*this, static_cast<int64_t>(getDim()));
}

LogicalResult ReduceMaxGradOp::verify() {
  return verifyReduceGrad(*this, static_cast<int64_t>(getDim()));
}

/// logits [N, C] and integer targets [N].
static LogicalResult verifyLogitsTargets(Operation *op, Value logits,
                                         Value targets) {
  auto l = shapeOf(logits), t = shapeOf(targets);
  if (l.size() != 2 || t.size() != 1 || !sameSize(l[0], t[0]))
    return op->emitOpError("takes logits [N, C] and targets [N]");
  if (!isa<IntegerType>(getTensorLikeElementType(targets.getType())))
    return op->emitOpError("targets must be integers");
  return expectShape(op, "result", shapeOf(op->getResult(0)), l);
}

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(expectShape(*this, "gradient", shapeOf(getGrad()), {})))
    return failure();
  if (failed(verifyDivisor(*this, getValid(), getCount())))
    return failure();
  return verifyLogitsTargets(*this, getLogits(), getTargets());
}

LogicalResult TargetLogitGradOp::verify() {
  auto l = shapeOf(getLogits());
  if (failed(verifyLogitsTargets(*this, getLogits(), getTargets())))
    return failure();
  return expectShape(*this, "gradient", shapeOf(getGrad()), {l[0], 1});
}

LogicalResult MeanGradOp::verify() {
  return expectShape(*this, "gradient", shapeOf(getGrad()), {});
}

//===----------------------------------------------------------------------===//
// Keepdim reductions
//===----------------------------------------------------------------------===//

AxisRule ReduceMaxOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t dim = frontDim(getDim(), shapeOf(getInput()).size());
  return AxisRuleBuilder(getContext(), n)
      .keepdimReduce(in, dim, ReductionKind::Max);
}

LogicalResult ReduceMaxOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               ReduceMaxGradOp::create(b.getBuilder(), getLoc(),
                                       GradientBuilder::gradType(getInput()),
                                       grad, getInput(), getDimAttr()));
  return success();
}

AxisRule ReduceSumOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t dim = frontDim(getDim(), shapeOf(getInput()).size());
  return AxisRuleBuilder(getContext(), n)
      .keepdimReduce(in, dim, ReductionKind::Sum);
}

LogicalResult ReduceSumOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               ReduceSumGradOp::create(b.getBuilder(), getLoc(),
                                       GradientBuilder::gradType(getInput()),
                                       grad, getInput(), getDimAttr()));
  return success();
}

/// (grad, input), laid out as the input. A shard of the summed dim repeats
/// the whole gradient over the local extent; a max needs the whole slice
/// to find its maxima.
static AxisRule reduceGradRule(const AxisRuleBuilder &r, ArrayRef<Attribute> in,
                               int64_t dim, bool isMax) {
  if (r.shardDim(in[1]) == dim)
    return isMax ? r.replicateAll(2) : AxisRule{{r.rep(), in[1]}, in[1]};
  return r.independentRowsGrad(in, dim);
}

AxisRule ReduceSumGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t dim = frontDim(getDim(), shapeOf(getGrad()).size());
  return reduceGradRule(AxisRuleBuilder(getContext(), n), in, dim,
                        /*isMax=*/false);
}
AxisRule ReduceMaxGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  int64_t dim = frontDim(getDim(), shapeOf(getGrad()).size());
  return reduceGradRule(AxisRuleBuilder(getContext(), n), in, dim,
                        /*isMax=*/true);
}

//===----------------------------------------------------------------------===//
// Mean of all elements
//===----------------------------------------------------------------------===//

/// Linear in a partial sum; on a shard each rank divides its sum by the
/// global count (tp-partition sets `count`), a partial sum of the mean.
AxisRule MeanOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  if (r.isPartialSum(in[0]) || r.shardDim(in[0]))
    return {{in[0]}, r.partialSum()};
  return r.replicateAll(1);
}

LogicalResult MeanOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getInput(),
               MeanGradOp::create(b.getBuilder(), getLoc(),
                                  GradientBuilder::gradType(getInput()), grad));
  return success();
}

/// The gradient spread over the input's shape: linear.
AxisRule MeanGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).linearUnary(in);
}

//===----------------------------------------------------------------------===//
// Cross entropy: logits [N, C], targets [N]
//===----------------------------------------------------------------------===//

/// Rows are independent, so rows split over the ranks (a data-parallel
/// batch) give a partial sum of the mean over the global rows (`count` or
/// `valid`, which is replicated); a replicated operand is chunked alike,
/// for free.
AxisRule CrossEntropyOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  if (r.shardDim(in[0]) == 0 ||
      (isa<ReplicateAttr>(in[0]) && r.shardDim(in[1]) == 0)) {
    AxisRule rule{{r.shard(0), r.shard(0)}, r.partialSum()};
    if (getValid())
      rule.operands.push_back(r.rep());
    return rule;
  }
  return r.replicateAll(in.size());
}

LogicalResult CrossEntropyOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getLogits(),
               CrossEntropyGradOp::create(
                   b.getBuilder(), getLoc(),
                   GradientBuilder::gradType(getLogits()), grad, getLogits(),
                   getTargets(), getValid(), getCountAttr()));
  return success();
}

/// (grad, logits, targets[, valid]): rows as the forward's (split rows
/// divide by the global count); linear in the gradient.
AxisRule CrossEntropyGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  AxisRule rule = r.replicateAll(in.size());
  if (r.isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]) &&
      isa<ReplicateAttr>(in[2]))
    rule = {{in[0], in[1], in[2]}, in[0]};
  else if (r.shardDim(in[1]) == 0 || r.shardDim(in[2]) == 0)
    rule = {{r.rep(), r.shard(0), r.shard(0)}, r.shard(0)};
  else
    return rule;
  if (getValid())
    rule.operands.push_back(r.rep());
  return rule;
}

/// Split targets count their own rows: a partial sum of the global count.
AxisRule ValidRowsOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  if (r.shardDim(in[0]) == 0)
    return {{in[0]}, r.partialSum()};
  return r.replicateAll(1);
}

//===----------------------------------------------------------------------===//
// Target logit: logits[i, t_i]
//===----------------------------------------------------------------------===//

/// On class shards, out-of-shard targets give zero, so the sum over shards
/// is the value; row shards stay row shards.
AxisRule TargetLogitOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  if (r.shardDim(in[0]) == 1)
    return {{in[0], r.rep()}, r.partialSum()};
  if (r.shardDim(in[0]) == 0)
    return {{in[0], r.shard(0)}, r.shard(0)};
  return r.replicateAll(2);
}

LogicalResult TargetLogitOp::backward(GradientBuilder &b, Value grad) {
  b.accumulate(getLogits(),
               TargetLogitGradOp::create(b.getBuilder(), getLoc(),
                                         GradientBuilder::gradType(getLogits()),
                                         grad, getLogits(), getTargets()));
  return success();
}

/// (grad [N, 1], logits [N, C], targets [N]), laid out as the logits. On
/// class shards each rank writes the targets it holds (loss_parallel: no
/// communication); rows follow the rows.
AxisRule TargetLogitGradOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  if (r.shardDim(in[1]) == 1)
    return {{r.rep(), in[1], r.rep()}, in[1]};
  if (r.shardDim(in[1]) == 0 ||
      (r.shardDim(in[0]) == 0 && isa<ReplicateAttr>(in[1])))
    return {{r.shard(0), r.shard(0), r.shard(0)}, r.shard(0)};
  if (r.isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]))
    return {{in[0], r.rep(), r.rep()}, in[0]};
  return r.replicateAll(3);
}

//===----------------------------------------------------------------------===//
// Targets that may be ignored (-100)
//===----------------------------------------------------------------------===//

bool mlir::tp::model::movesIds(Operation *op) {
  return isa<SliceOp, ReshapeOp, TransposeOp, ConcatOp, ChunkOp, AllGatherOp,
             DistributeOp, RedistributeOp, ToLocalOp, FromLocalOp>(op);
}

/// Whether \p ids are read only where any integer may be (\p skips: and at
/// least once where -100 skips a row): as loss targets, counted, or
/// compared, through ops that move them.
static bool readAsTargets(Value ids, bool &skips) {
  bool any = false;
  for (OpOperand &use : ids.getUses()) {
    Operation *user = use.getOwner();
    any = true;
    if (movesIds(user)) {
      if (!readAsTargets(user->getResult(0), skips))
        return false;
      continue;
    }
    auto ce = dyn_cast<CrossEntropyOp>(user);
    auto grad = dyn_cast<CrossEntropyGradOp>(user);
    if ((ce && use.get() == ce.getTargets()) ||
        (grad && use.get() == grad.getTargets()) || isa<ValidRowsOp>(user)) {
      skips = true;
      continue;
    }
    // The class-parallel loss's pieces: a target outside the classes (or
    // this rank's) reads nothing; its rows are skipped by the mean that
    // counts them (tp-lower-styles' decomposition of the loss).
    auto tl = dyn_cast<TargetLogitOp>(user);
    auto tlGrad = dyn_cast<TargetLogitGradOp>(user);
    auto sharded = dyn_cast<ShardedTargetLogitOp>(user);
    auto shardedGrad = dyn_cast<ShardedTargetLogitGradOp>(user);
    if ((tl && use.get() == tl.getTargets()) ||
        (tlGrad && use.get() == tlGrad.getTargets()) ||
        (sharded && use.get() == sharded.getTargets()) ||
        (shardedGrad && use.get() == shardedGrad.getTargets()) ||
        isa<CompareOp>(user))
      continue;
    return false;
  }
  return any;
}

bool mlir::tp::model::takesIgnoreIndex(Value ids) {
  bool skips = false;
  return readAsTargets(ids, skips) && skips;
}

bool mlir::tp::model::mayHoldIgnoreIndex(Value targets) {
  // Float targets (integral f32, as old files hold ids) are never -100:
  // the data source refuses negative ones.
  if (!isa<IntegerType>(getTensorLikeElementType(targets.getType())))
    return false;
  SmallVector<Value> work{targets};
  llvm::SmallPtrSet<Value, 4> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (isa<BlockArgument>(v)) {
      if (takesIgnoreIndex(v))
        return true;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!movesIds(def))
      return true;
    // Their operands are all ids (a concat's every piece).
    llvm::append_range(work, def->getOperands());
  }
  return false;
}
