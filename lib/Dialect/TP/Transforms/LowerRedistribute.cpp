//===- LowerRedistribute.cpp - redistributions to collectives ---*- C++ -*-===//
//
// tp-lower-redistribute: each tp.redistribute becomes, per changed mesh axis,
// one collective on local tensors (the table in docs/guide.md, section 3),
// between tp.to_local and tp.from_local. Axes that drop a shard or a partial
// are handled from the last mesh axis to the first, axes that add a shard from
// the first to the last, so a tensor dim split over several axes is split in
// mesh order; axes made Partial come last (a local op, after any reduction of
// another kind of Partial), and Shard -> Partial is rejected.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPLOWERREDISTRIBUTEPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

/// Emits the collective that changes `axis` of `current` to `to`, and
/// returns the new distributed value.
static FailureOr<Value> lowerStep(OpBuilder &b, Location loc, MeshOp mesh,
                                  Value current, int64_t axis, Attribute to,
                                  StringAttr module) {
  auto type = cast<DTensorType>(current.getType());
  Attribute from = type.getPlacements()[axis];
  SmallVector<Attribute> placements(type.getPlacements());
  placements[axis] = to;
  auto newType =
      DTensorType::get(b.getContext(), type.getShape(), type.getElementType(),
                       type.getMesh(), canonicalizePlacements(placements));
  if (mesh.getShape()[axis] == 1)
    return Value(FromLocalOp::create(
        b, loc, newType,
        ToLocalOp::create(b, loc, getLocalType(type, mesh), current)));

  RankedTensorType inLocal = getLocalType(type, mesh);
  RankedTensorType outLocal = getLocalType(newType, mesh);
  // Uneven shards (torch.chunk sizes) are dynamic dims; collectives pad to
  // the chunk size and trim. A gather whose full size is itself uneven (the
  // dim is also split on earlier mesh axes) records the global size and
  // those axes, from which each rank computes its group's size.
  bool uneven = !inLocal.hasStaticShape() || !outLocal.hasStaticShape();
  Value local = ToLocalOp::create(b, loc, inLocal, current);
  FlatSymbolRefAttr meshSym = type.getMesh();
  auto axes = b.getDenseI64ArrayAttr({axis});
  // A shard or an inner shard: on the local tensor, this axis splits its
  // dim last (the planner only removes or adds it there), so the
  // collectives are the same.
  std::optional<int64_t> fromShard = getSplitDim(from);
  auto fromPartial = dyn_cast<PartialAttr>(from);
  std::optional<int64_t> toShard = getSplitDim(to);
  Value result;
  auto gather = [&](RankedTensorType resultType, Value input, int64_t dim,
                    ArrayRef<Attribute> placements) -> Value {
    IntegerAttr globalSize;
    DenseI64ArrayAttr outerAxes;
    if (resultType.isDynamicDim(dim)) {
      // The axes that split the dim before this one, in split order.
      SmallVector<int64_t> outer = getSplitOrder(placements, dim);
      outer.erase(llvm::find(outer, axis), outer.end());
      globalSize = b.getI64IntegerAttr(type.getShape()[dim]);
      outerAxes = b.getDenseI64ArrayAttr(outer);
    }
    return AllGatherOp::create(b, loc, resultType, meshSym, axes, module, input,
                               b.getI64IntegerAttr(dim), globalSize, outerAxes);
  };
  if (fromShard && isa<ReplicateAttr>(to)) {
    result = gather(outLocal, local, *fromShard, type.getPlacements());
  } else if (fromPartial && isa<ReplicateAttr>(to)) {
    result = AllReduceOp::create(
        b, loc, outLocal, meshSym, axes, module, local,
        ReductionKindAttr::get(b.getContext(), fromPartial.getKind()));
  } else if (fromPartial && toShard) {
    result = ReduceScatterOp::create(
        b, loc, outLocal, meshSym, axes, module, local,
        ReductionKindAttr::get(b.getContext(), fromPartial.getKind()),
        b.getI64IntegerAttr(*toShard));
  } else if (fromShard && toShard && uneven) {
    // Uneven Shard(i) -> Shard(j): gather dim i, keep this rank's chunk of j.
    SmallVector<Attribute> mid(type.getPlacements());
    mid[axis] = ReplicateAttr::get(b.getContext());
    auto midType =
        DTensorType::get(b.getContext(), type.getShape(), type.getElementType(),
                         type.getMesh(), canonicalizePlacements(mid));
    Value gathered = gather(getLocalType(midType, mesh), local, *fromShard,
                            type.getPlacements());
    result = ChunkOp::create(b, loc, outLocal, meshSym, axes, module, gathered,
                             b.getI64IntegerAttr(*toShard));
  } else if (fromShard && toShard) {
    result = AllToAllOp::create(b, loc, outLocal, meshSym, axes, module, local,
                                b.getI64IntegerAttr(*toShard),
                                b.getI64IntegerAttr(*fromShard));
  } else if (isa<ReplicateAttr>(from) && toShard) {
    result = ChunkOp::create(b, loc, outLocal, meshSym, axes, module, local,
                             b.getI64IntegerAttr(*toShard));
  } else if (auto toPartial = dyn_cast<PartialAttr>(to);
             toPartial && isa<ReplicateAttr>(from)) {
    result = PartialFromReplicateOp::create(
        b, loc, outLocal, meshSym, axes, module, local,
        ReductionKindAttr::get(b.getContext(), toPartial.getKind()));
  } else {
    auto name = [](Attribute p) {
      return cast<PlacementAttrInterface>(p).toTorchString();
    };
    return emitError(loc) << "cannot redistribute " << name(from) << " to "
                          << name(to) << " on mesh axis "
                          << mesh.getAxisName(axis);
  }
  return Value(FromLocalOp::create(b, loc, newType, result));
}

/// Rejects what no sequence of steps lowers: a Shard made Partial on an
/// axis of more than one rank. Partial(sum) of a shard would be defined
/// (zeros outside it), but DTensor does not support it, and a user who
/// asks for it has usually mixed up two layouts.
static LogicalResult checkSupported(Location loc, MeshOp mesh,
                                    ArrayRef<Attribute> from,
                                    ArrayRef<Attribute> to, StringAttr module) {
  for (auto [axis, pair] : llvm::enumerate(llvm::zip(from, to))) {
    auto [f, t] = pair;
    if (!getSplitDim(f) || !isa<PartialAttr>(t) || mesh.getShape()[axis] == 1)
      continue;
    InFlightDiagnostic diag = emitError(loc)
                              << "cannot redistribute "
                              << cast<PlacementAttrInterface>(f).toTorchString()
                              << " to "
                              << cast<PlacementAttrInterface>(t).toTorchString()
                              << " on mesh axis " << mesh.getAxisName(axis);
    if (module)
      diag << " (in '" << module.getValue() << "')";
    return diag << ": DTensor does not support Shard -> Partial; "
                   "redistribute to Replicate() first";
  }
  return success();
}

/// Plans and emits the steps from `current`'s placements to `to`, one
/// collective per step. A dim split over several mesh axes is split in mesh
/// order (the first axis outermost), so a split of dim d may be removed on
/// axis a only when no later axis splits d, and added only when no later
/// axis splits d and the earlier axes splitting d are exactly the target's.
/// Among the legal steps the planner prefers those that shrink the data
/// (reduce_scatter, then a local chunk), then all_to_all, then all_reduce
/// of a partial wanted replicated, then all_gather on the last axis; when
/// nothing else is legal it reduces a partial, which always progresses.
/// Making a replicated axis Partial is local and comes last, so that a
/// Partial of another kind is first reduced to Replicate (Partial(a) ->
/// Replicate -> Partial(b)).
static FailureOr<Value> lowerTransition(OpBuilder &b, Location loc, MeshOp mesh,
                                        Value current, ArrayRef<Attribute> to,
                                        StringAttr module) {
  if (failed(checkSupported(
          loc, mesh, cast<DTensorType>(current.getType()).getPlacements(), to,
          module)))
    return failure();
  int64_t rank = mesh.getRank();
  MLIRContext *ctx = b.getContext();
  Attribute rep = ReplicateAttr::get(ctx);
  auto cur = [&]() {
    return SmallVector<Attribute>(
        cast<DTensorType>(current.getType()).getPlacements());
  };
  // Each dim's split order (getSplitOrder): outermost first.
  auto orderOf = [](ArrayRef<Attribute> placements, int64_t dim) {
    return getSplitOrder(placements, dim);
  };
  auto isPrefix = [](ArrayRef<int64_t> prefix, ArrayRef<int64_t> of) {
    return prefix.size() <= of.size() && prefix == of.take_front(prefix.size());
  };
  // Can axis `a` stop splitting `dim`? It must split it last.
  auto canRemove = [&](ArrayRef<Attribute> now, int64_t a, int64_t dim) {
    SmallVector<int64_t> order = orderOf(now, dim);
    return !order.empty() && order.back() == a;
  };
  // Can axis `a` start splitting `dim` as `target` (a shard or an inner
  // shard of it)? It must split it last, after axes that split it as the
  // target's first axes do.
  auto canAdd = [&](ArrayRef<Attribute> now, int64_t a, Attribute target) {
    int64_t dim = *getSplitDim(target);
    SmallVector<Attribute> next(now);
    next[a] = target;
    SmallVector<int64_t> order = orderOf(canonicalizePlacements(next), dim);
    return order.back() == a && isPrefix(order, orderOf(to, dim));
  };
  // A split that must go: the axis splits another dim or kind than the
  // target's, or the axes up to it are not the target's first ones.
  auto mustRemove = [&](ArrayRef<Attribute> now, int64_t a) {
    std::optional<int64_t> dim = getSplitDim(now[a]);
    if (!dim)
      return false;
    if (now[a] != to[a])
      return true;
    SmallVector<int64_t> order = orderOf(now, *dim);
    order.erase(std::next(llvm::find(order, a)), order.end());
    return !isPrefix(order, orderOf(to, *dim));
  };
  auto step = [&](int64_t axis, Attribute target) -> LogicalResult {
    auto next = lowerStep(b, loc, mesh, current, axis, target, module);
    if (failed(next))
      return failure();
    current = *next;
    return success();
  };
  for (int64_t guard = 0; guard < 4 * rank + 4; ++guard) {
    SmallVector<Attribute> now = cur();
    if (ArrayRef<Attribute>(now) == to)
      return current;
    // Each entry: (axis, target) of a legal step, by preference.
    std::optional<std::pair<int64_t, Attribute>> pick;
    // Adds go first axis first, removals last axis first.
    auto consider = [&](auto pred, bool firstAxisFirst = false) {
      for (int64_t i = 0; i < rank && !pick; ++i) {
        int64_t a = firstAxisFirst ? i : rank - 1 - i;
        if (auto t = pred(now, a))
          pick = std::make_pair(a, *t);
      }
    };
    using Choice = std::optional<Attribute>;
    // 1. Partial -> Shard: one reduce_scatter.
    consider(
        [&](ArrayRef<Attribute> n, int64_t a) -> Choice {
          if (isa<PartialAttr>(n[a]) && getSplitDim(to[a]) &&
              canAdd(n, a, to[a]))
            return to[a];
          return std::nullopt;
        },
        /*firstAxisFirst=*/true);
    // 2. Replicate -> Shard: a local chunk.
    consider(
        [&](ArrayRef<Attribute> n, int64_t a) -> Choice {
          if (isa<ReplicateAttr>(n[a]) && getSplitDim(to[a]) &&
              canAdd(n, a, to[a]))
            return to[a];
          return std::nullopt;
        },
        /*firstAxisFirst=*/true);
    // 3. Shard(i) -> Shard(j): one all_to_all.
    consider([&](ArrayRef<Attribute> n, int64_t a) -> Choice {
      std::optional<int64_t> s = getSplitDim(n[a]);
      std::optional<int64_t> t = getSplitDim(to[a]);
      if (s && t && *s != *t && canRemove(n, a, *s) && canAdd(n, a, to[a]))
        return to[a];
      return std::nullopt;
    });
    // 4. Partial -> Replicate: all_reduce.
    consider([&](ArrayRef<Attribute> n, int64_t a) -> Choice {
      if (isa<PartialAttr>(n[a]) && isa<ReplicateAttr>(to[a]))
        return rep;
      return std::nullopt;
    });
    // 5. Shard -> Replicate for a split that must go: all_gather.
    consider([&](ArrayRef<Attribute> n, int64_t a) -> Choice {
      std::optional<int64_t> s = getSplitDim(n[a]);
      if (s && mustRemove(n, a) && canRemove(n, a, *s))
        return rep;
      return std::nullopt;
    });
    // 6. Unblock: reduce a partial that cannot be scattered yet, or that is
    // wanted as a Partial of another kind.
    consider([&](ArrayRef<Attribute> n, int64_t a) -> Choice {
      if (isa<PartialAttr>(n[a]) && n[a] != to[a])
        return rep;
      return std::nullopt;
    });
    // 7. Replicate -> Partial: local (zeros off coordinate 0 for sum).
    consider([&](ArrayRef<Attribute> n, int64_t a) -> Choice {
      if (isa<ReplicateAttr>(n[a]) && isa<PartialAttr>(to[a]))
        return to[a];
      return std::nullopt;
    });
    if (!pick)
      break;
    if (failed(step(pick->first, pick->second)))
      return failure();
  }
  return emitError(loc) << "cannot plan the redistribution of "
                        << current.getType() << " to "
                        << placementsToString(to);
}

/// Lowers the redistributions under `root` (a module or one function); the
/// meshes are only looked up, so a function pass may call it.
static LogicalResult lowerRedistributionsIn(Operation *root) {
  if (failed(checkPassPrecondition(root, TPPass::LowerRedistribute)))
    return failure();
  SmallVector<RedistributeOp> ops;
  root->walk([&](RedistributeOp op) { ops.push_back(op); });
  for (RedistributeOp op : ops) {
    MeshOp mesh = lookupMesh(op, op.getInput().getType().getMesh());
    if (!mesh)
      return failure();
    ArrayRef<Attribute> to = op.getResult().getType().getPlacements();
    // The collectives communicate in the redistribution's phase.
    PhaseListener marker(op);
    OpBuilder b(op, &marker);
    Value current = op.getInput();
    StringAttr module = op.getModuleAttr();
    FailureOr<Value> lowered =
        lowerTransition(b, op.getLoc(), mesh, current, to, module);
    if (failed(lowered))
      return failure();
    current = *lowered;
    op.getResult().replaceAllUsesWith(current);
    op.erase();
  }
  return success();
}

LogicalResult mlir::tp::lowerRedistributions(ModuleOp module) {
  return lowerRedistributionsIn(module);
}

LogicalResult mlir::tp::lowerRedistributions(func::FuncOp func) {
  return lowerRedistributionsIn(func);
}

namespace {
struct LowerRedistributePass
    : public tp::impl::TPLowerRedistributePassBase<LowerRedistributePass> {
  void runOnOperation() override {
    if (failed(lowerRedistributions(getOperation())))
      signalPassFailure();
  }
};
} // namespace
