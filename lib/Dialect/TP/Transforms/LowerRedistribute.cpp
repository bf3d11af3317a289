//===- LowerRedistribute.cpp - redistributions to collectives ---*- C++ -*-===//
//
// tp-lower-redistribute: each tp.redistribute becomes, per changed mesh axis,
// one collective on local tensors (DESIGN 4.3), between tp.to_local and
// tp.from_local. Axes that drop a shard or a partial are handled from the
// last mesh axis to the first, axes that add a shard from the first to the
// last, so a tensor dim split over several axes is split in mesh order.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Passes.h"
#include "mlir/IR/Builders.h"

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
  auto newType = DTensorType::get(b.getContext(), type.getShape(),
                                  type.getElementType(), type.getMesh(),
                                  placements);
  if (mesh.getShape()[axis] == 1)
    return Value(FromLocalOp::create(
        b, loc, newType,
        ToLocalOp::create(b, loc, getLocalType(type, mesh), current)));

  RankedTensorType inLocal = getLocalType(type, mesh);
  RankedTensorType outLocal = getLocalType(newType, mesh);
  // Uneven shards (torch.chunk sizes) are dynamic dims; collectives pad to
  // the chunk size and trim. A gather needs the full size of its dim.
  auto fromShardDim = dyn_cast<ShardAttr>(from);
  if (fromShardDim && ShapedType::isDynamic(
                          inLocal.getDimSize(fromShardDim.getDim())) &&
      isa<ReplicateAttr>(to) &&
      ShapedType::isDynamic(outLocal.getDimSize(fromShardDim.getDim())))
    return emitError(loc)
           << "redistributing " << type << " gathers an uneven dim that is "
           << "also sharded on another mesh axis, which tp does not support";
  bool uneven = !inLocal.hasStaticShape() || !outLocal.hasStaticShape();
  Value local = ToLocalOp::create(b, loc, inLocal, current);
  FlatSymbolRefAttr meshSym = type.getMesh();
  auto axes = b.getDenseI64ArrayAttr({axis});
  auto fromShard = dyn_cast<ShardAttr>(from);
  auto fromPartial = dyn_cast<PartialAttr>(from);
  auto toShard = dyn_cast<ShardAttr>(to);
  Value result;
  if (fromShard && isa<ReplicateAttr>(to)) {
    result = AllGatherOp::create(b, loc, outLocal, meshSym, axes, module,
                                 local, b.getI64IntegerAttr(fromShard.getDim()));
  } else if (fromPartial && isa<ReplicateAttr>(to)) {
    result = AllReduceOp::create(
        b, loc, outLocal, meshSym, axes, module, local,
        ReductionKindAttr::get(b.getContext(), fromPartial.getKind()));
  } else if (fromPartial && toShard) {
    result = ReduceScatterOp::create(
        b, loc, outLocal, meshSym, axes, module, local,
        ReductionKindAttr::get(b.getContext(), fromPartial.getKind()),
        b.getI64IntegerAttr(toShard.getDim()));
  } else if (fromShard && toShard && uneven) {
    // Uneven Shard(i) -> Shard(j): gather dim i, keep this rank's chunk of j.
    SmallVector<Attribute> mid(type.getPlacements());
    mid[axis] = ReplicateAttr::get(b.getContext());
    auto midType = DTensorType::get(b.getContext(), type.getShape(),
                                    type.getElementType(), type.getMesh(),
                                    mid);
    Value gathered = AllGatherOp::create(
        b, loc, getLocalType(midType, mesh), meshSym, axes, module, local,
        b.getI64IntegerAttr(fromShard.getDim()));
    result = ChunkOp::create(b, loc, outLocal, meshSym, axes, module, gathered,
                             b.getI64IntegerAttr(toShard.getDim()));
  } else if (fromShard && toShard) {
    result = AllToAllOp::create(b, loc, outLocal, meshSym, axes, module, local,
                                b.getI64IntegerAttr(toShard.getDim()),
                                b.getI64IntegerAttr(fromShard.getDim()));
  } else if (isa<ReplicateAttr>(from) && toShard) {
    result = ChunkOp::create(b, loc, outLocal, meshSym, axes, module, local,
                             b.getI64IntegerAttr(toShard.getDim()));
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

LogicalResult mlir::tp::lowerRedistributions(ModuleOp module) {
  SmallVector<RedistributeOp> ops;
  module.walk([&](RedistributeOp op) { ops.push_back(op); });
  for (RedistributeOp op : ops) {
    MeshOp mesh = lookupMesh(op, op.getInput().getType().getMesh());
    if (!mesh)
      return failure();
    ArrayRef<Attribute> from = op.getInput().getType().getPlacements();
    ArrayRef<Attribute> to = op.getResult().getType().getPlacements();
    OpBuilder b(op);
    Value current = op.getInput();
    StringAttr module = op.getModuleAttr();
    // A later axis that keeps Shard(d) while an earlier axis changes how d is
    // split must be undone and redone, or the chunks leave mesh order.
    SmallVector<bool> redo(mesh.getRank(), false);
    for (int64_t axis = 0; axis < mesh.getRank(); ++axis) {
      if (!isa<ShardAttr>(from[axis]) || from[axis] != to[axis])
        continue;
      for (int64_t earlier = 0; earlier < axis; ++earlier)
        if (from[earlier] != to[earlier] &&
            (from[earlier] == from[axis] || to[earlier] == from[axis]))
          redo[axis] = true;
    }
    // Drop shards and partials first, last axis first...
    for (int64_t axis = mesh.getRank() - 1; axis >= 0; --axis) {
      if ((from[axis] == to[axis] && !redo[axis]) ||
          isa<ReplicateAttr>(from[axis]))
        continue;
      // Shard -> Shard is one all_to_all, Partial -> Shard one
      // reduce_scatter; everything else goes through Replicate.
      Attribute target = ReplicateAttr::get(op.getContext());
      if (!redo[axis] && isa<ShardAttr>(to[axis]) &&
          isa<ShardAttr, PartialAttr>(from[axis]))
        target = to[axis];
      auto next = lowerStep(b, op.getLoc(), mesh, current, axis, target,
                            module);
      if (failed(next))
        return failure();
      current = *next;
    }
    // ...then add shards, first axis first.
    for (int64_t axis = 0; axis < mesh.getRank(); ++axis) {
      Attribute now = cast<DTensorType>(current.getType()).getPlacements()[axis];
      if (now == to[axis])
        continue;
      auto next = lowerStep(b, op.getLoc(), mesh, current, axis, to[axis],
                            module);
      if (failed(next))
        return failure();
      current = *next;
    }
    op.getResult().replaceAllUsesWith(current);
    op.erase();
  }
  return success();
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
