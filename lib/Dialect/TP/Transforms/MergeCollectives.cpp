//===- MergeCollectives.cpp - fewer, larger all_reduces ---------*- C++ -*-===//
//
// tp-merge-collectives: on the partitioned program, an all_reduce of an
// all_reduce over other axes becomes one all_reduce over both (a Partial on
// two mesh axes, reduced at once), and all_reduces whose results nobody
// reads before the last of them share one collective: a bucket (tp.pack,
// all_reduce, tp.unpack), what PyTorch's DDP does with gradients. Neither
// rewrite changes a value; both are decided from the IR alone, so the
// gradients of a training step (read by the optimizer at its end) and its
// loss fall into buckets without the pass knowing what a gradient is.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPMERGECOLLECTIVESPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

/// all_reduce(all_reduce(x, A), B) with the inner one used only there and
/// disjoint axes A, B of one mesh and one reduction: all_reduce(x, A + B).
/// sum and avg over A then B are sum and avg over the group A + B (the
/// groups of a mesh are equal in size), max and min likewise. True when it
/// fused any.
static bool fuseChains(Block &block) {
  bool changed = false;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto outer = dyn_cast<AllReduceOp>(&op);
    if (!outer)
      continue;
    auto inner = outer.getInput().getDefiningOp<AllReduceOp>();
    if (!inner || !inner->hasOneUse() ||
        inner.getMeshAttr() != outer.getMeshAttr() ||
        inner.getReduction() != outer.getReduction())
      continue;
    SmallVector<int64_t> axes(inner.getMeshAxes());
    bool disjoint = llvm::none_of(outer.getMeshAxes(), [&](int64_t a) {
      return llvm::is_contained(axes, a);
    });
    if (!disjoint)
      continue;
    axes.append(outer.getMeshAxes().begin(), outer.getMeshAxes().end());
    llvm::sort(axes);
    OpBuilder b(outer);
    outer.setMeshAxes(axes);
    outer.getInputMutable().assign(inner.getInput());
    if (!outer.getModuleAttr())
      outer.setModuleAttr(inner.getModuleAttr());
    inner.erase();
    changed = true;
  }
  return changed;
}

namespace {
/// All_reduces that may share one collective.
struct BucketKey {
  FlatSymbolRefAttr mesh;
  SmallVector<int64_t> axes;
  ReductionKind kind;
  Type elementType;
  bool operator==(const BucketKey &o) const {
    return mesh == o.mesh && axes == o.axes && kind == o.kind &&
           elementType == o.elementType;
  }
};

/// An all_reduce that may move: anywhere after its input is defined
/// (`ready`, at `readyPos`; -1 for a block argument) and before its result
/// is first read (at `needPos`; the block's end when nothing reads it).
/// The local chunks that only feed it (`chain`, input side first) move
/// with it: a Partial gradient made the Shard of its parameter is chunked
/// where the optimizer reads it.
struct Candidate {
  AllReduceOp op;
  SmallVector<Operation *> chain;
  Operation *ready;
  int64_t readyPos, needPos;
};

struct Bucket {
  BucketKey key;
  SmallVector<Candidate> members;
  int64_t bytes = 0;
  /// The last input's definition and the first read of any result.
  Operation *ready = nullptr;
  int64_t readyPos = -1, needPos = 0;
};
} // namespace

static int64_t bytesOf(RankedTensorType t) {
  return t.getNumElements() *
         static_cast<int64_t>((t.getElementTypeBitWidth() + 7) / 8);
}

/// One collective for the members of `bucket`, right after the last of
/// their inputs is defined: every input is available there, and no result
/// is read before it. Collectives are Pure and every rank runs this same
/// program, so moving them keeps every rank's sequence of collectives
/// alike.
static bool emitBucket(Bucket &bucket, Block &block) {
  if (bucket.members.size() < 2)
    return false;
  OpBuilder b(bucket.members.back().op);
  if (bucket.ready)
    b.setInsertionPointAfter(bucket.ready);
  else
    b.setInsertionPointToStart(&block);
  Location loc = bucket.members.back().op.getLoc();
  SmallVector<Value> inputs;
  int64_t total = 0;
  for (Candidate &c : bucket.members) {
    inputs.push_back(c.op.getInput());
    total += c.op.getType().getNumElements();
  }
  auto flat = RankedTensorType::get({total}, bucket.key.elementType);
  Value packed = PackOp::create(b, loc, flat, inputs);
  // A bucket spans modules: it keeps a module name only when its members
  // share one.
  StringAttr module = bucket.members.front().op.getModuleAttr();
  for (Candidate &c : bucket.members)
    if (c.op.getModuleAttr() != module)
      module = nullptr;
  Value reduced = AllReduceOp::create(
      b, loc, flat, bucket.key.mesh, b.getDenseI64ArrayAttr(bucket.key.axes),
      module, packed, ReductionKindAttr::get(b.getContext(), bucket.key.kind));
  // A bucket belongs to the phase of the member read first: it runs for
  // that one, and the others ride along (a backward activation gradient's
  // all_reduce carries the norm weights' gradients the optimizer reads at
  // the end).
  const Candidate *firstRead = &bucket.members.front();
  for (Candidate &c : bucket.members)
    if (c.needPos < firstRead->needPos)
      firstRead = &c;
  Phase phase = getPhase(firstRead->op);
  setPhase(packed.getDefiningOp(), phase);
  setPhase(reduced.getDefiningOp(), phase);
  // The members go once every part exists: the builder inserts before the
  // op after `ready`, which may be a member.
  int64_t offset = 0;
  SmallVector<Value> parts;
  for (Candidate &c : bucket.members) {
    parts.push_back(UnpackOp::create(b, c.op.getLoc(), c.op.getType(), reduced,
                                     b.getI64IntegerAttr(offset)));
    offset += c.op.getType().getNumElements();
    setPhase(parts.back().getDefiningOp(), phase);
  }
  for (Candidate &c : bucket.members)
    for (Operation *op : c.chain)
      op->moveBefore(packed.getDefiningOp());
  for (auto [c, part] : llvm::zip(bucket.members, parts)) {
    c.op.getResult().replaceAllUsesWith(part);
    c.op.erase();
  }
  return true;
}

/// Buckets the all_reduces of `block`. Those of one kind, in the order
/// their inputs become ready, join a bucket while the newest input is
/// ready before any member's result is read and the bucket stays within
/// `capBytes` (0: no limit); then the bucket closes and the next one
/// starts. True when any bucket has two or more members.
static bool bucketAllReduces(Block &block, int64_t capBytes) {
  DenseMap<Operation *, int64_t> pos;
  int64_t n = 0;
  for (Operation &op : block)
    pos[&op] = n++;
  SmallVector<std::pair<BucketKey, SmallVector<Candidate>>> groups;
  for (Operation &op : block) {
    auto ar = dyn_cast<AllReduceOp>(&op);
    // Dynamic shapes (uneven shards) have no static place in a bucket; an
    // all_reduce of an all_reduce stays behind its input.
    if (!ar || !ar.getType().hasStaticShape() ||
        ar.getInput().getDefiningOp<AllReduceOp>())
      continue;
    Candidate c{ar, {}, nullptr, -1, n};
    Value input = ar.getInput();
    while (auto chunk = input.getDefiningOp<ChunkOp>()) {
      if (!chunk->hasOneUse() || chunk->getBlock() != &block)
        break;
      c.chain.insert(c.chain.begin(), chunk);
      input = chunk.getInput();
    }
    c.ready = input.getDefiningOp();
    if (c.ready)
      c.readyPos = pos.lookup(block.findAncestorOpInBlock(*c.ready));
    if (c.ready)
      c.ready = block.findAncestorOpInBlock(*c.ready);
    for (Operation *user : ar->getUsers())
      if (Operation *u = block.findAncestorOpInBlock(*user))
        c.needPos = std::min(c.needPos, pos.lookup(u));
    BucketKey key{ar.getMeshAttr(), SmallVector<int64_t>(ar.getMeshAxes()),
                  ar.getReduction(), ar.getType().getElementType()};
    auto *it = llvm::find_if(groups, [&](auto &g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({std::move(key), {}});
      it = std::prev(groups.end());
    }
    it->second.push_back(c);
  }
  SmallVector<Bucket> buckets;
  for (auto &[key, candidates] : groups) {
    llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
      return a.readyPos < b.readyPos;
    });
    Bucket open{key, {}, 0, nullptr, -1, n};
    for (Candidate &c : candidates) {
      int64_t bytes = bytesOf(c.op.getType());
      bool fits = capBytes <= 0 || open.bytes + bytes <= capBytes;
      if (!open.members.empty() &&
          (c.readyPos >= open.needPos || c.needPos <= open.readyPos || !fits)) {
        buckets.push_back(std::move(open));
        open = Bucket{key, {}, 0, nullptr, -1, n};
      }
      open.members.push_back(c);
      open.bytes += bytes;
      if (c.readyPos >= open.readyPos) {
        open.readyPos = c.readyPos;
        open.ready = c.ready;
      }
      open.needPos = std::min(open.needPos, c.needPos);
    }
    buckets.push_back(std::move(open));
  }
  bool changed = false;
  for (Bucket &b : buckets)
    changed |= emitBucket(b, block);
  return changed;
}

LogicalResult mlir::tp::mergeCollectives(func::FuncOp func, int64_t bucketBytes,
                                         bool *changed) {
  if (changed)
    *changed = false;
  if (failed(checkPassPrecondition(func, TPPass::MergeCollectives)))
    return failure();
  if (func.isExternal())
    return success();
  bool any = false;
  for (Block &block : func.getBody()) {
    any |= fuseChains(block);
    any |= bucketAllReduces(block, bucketBytes);
  }
  if (changed)
    *changed = any;
  return success();
}

namespace {
struct MergeCollectivesPass
    : public tp::impl::TPMergeCollectivesPassBase<MergeCollectivesPass> {
  using TPMergeCollectivesPassBase::TPMergeCollectivesPassBase;
  void runOnOperation() override {
    bool changed = false;
    if (failed(mergeCollectives(getOperation(), bucketBytes, &changed)))
      return signalPassFailure();
    // Unchanged IR needs no verifier run after this pass.
    if (!changed)
      markAllAnalysesPreserved();
  }
};
} // namespace
