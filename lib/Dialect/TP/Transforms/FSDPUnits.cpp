//===- FSDPUnits.cpp - one gather and one reduce_scatter per unit -*- C++
//-*-===//
//
// tp-fsdp-units: FSDP gathers the parameters of a unit (a transformer block,
// by default) with one all_gather, from one flat buffer of the unit's
// shards, and reduce-scatters their gradients with one reduce_scatter, as
// FSDP2 does with its flat parameter per unit. On the partitioned program,
// the per-parameter collectives over the plan's fsdp_axis that
// tp-lower-redistribute emitted (and tp-regather cloned) are grouped by the
// unit of the parameter and by phase. A parameter whose shard size differs
// between ranks keeps its own collectives: the flat buffer must have one
// size on every rank.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <tuple>

namespace mlir::tp {
#define GEN_PASS_DEF_TPFSDPUNITSPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

Operation *mlir::tp::getShardedParameter(Value v,
                                         SmallVectorImpl<Operation *> *chain) {
  SmallVector<Operation *> cuts;
  // tp-mixed-precision reads a parameter through a cast of its shard.
  if (auto c = v.getDefiningOp<m::CastOp>()) {
    cuts.push_back(c);
    v = c.getInput();
  }
  while (auto chunk = v.getDefiningOp<ChunkOp>()) {
    cuts.push_back(chunk);
    v = chunk.getInput();
  }
  auto param = v.getDefiningOp<m::ParamOp>();
  if (param && chain) {
    chain->push_back(param);
    chain->append(cuts.rbegin(), cuts.rend());
  }
  return param;
}

/// The parameter \p v is a piece of, with the ops that cut it (see
/// getShardedParameter).
static m::ParamOp parameterOf(Value v, SmallVectorImpl<Operation *> &chain) {
  return cast_or_null<m::ParamOp>(getShardedParameter(v, &chain));
}

namespace {

/// What one grouped collective gathers or scatters: the unit, the phase,
/// the element type (one flat buffer holds one type) and, for
/// reduce-scatters, the reduction.
using GroupKey = std::tuple<std::string, int, const void *, int64_t>;

static GroupKey groupKey(StringRef unit, Phase phase, Type element,
                         int64_t reduction = 0) {
  return {unit.str(), static_cast<int>(phase), element.getAsOpaquePointer(),
          reduction};
}

class UnitGrouper {
public:
  UnitGrouper(func::FuncOp func, MeshOp mesh, int64_t axis,
              FSDPUnitMatcher matcher)
      : func(func), mesh(mesh), axis(axis), ranks(mesh.getShape()[axis]),
        matcher(std::move(matcher)) {}

  void run() {
    Block &block = func.getBody().front();
    std::map<GroupKey, SmallVector<AllGatherOp>> gathers;
    std::map<GroupKey, SmallVector<ReduceScatterOp>> scatters;
    for (Operation &op : block) {
      if (auto g = dyn_cast<AllGatherOp>(op)) {
        SmallVector<Operation *> chain;
        m::ParamOp param = parameterOf(g.getInput(), chain);
        if (param && onAxis(g.getMeshAxes()) && g.getGatherAxis() == 0 &&
            g.getInput().getType().hasStaticShape() &&
            g.getType().hasStaticShape())
          gathers[groupKey(matcher.unitOf(getParameterOwner(param.getName())),
                           getPhase(g), g.getType().getElementType())]
              .push_back(g);
      } else if (auto r = dyn_cast<ReduceScatterOp>(op)) {
        // A gradient's: FSDP's reduce-scatters carry the module of the
        // parameter (tp-optimizer-step).
        auto in = r.getInput().getType();
        if (onAxis(r.getMeshAxes()) && r.getScatterAxis() == 0 &&
            in.hasStaticShape() && r.getType().hasStaticShape() &&
            in.getDimSize(0) == r.getType().getDimSize(0) * ranks &&
            r.getModule())
          scatters[groupKey(matcher.unitOf(*r.getModule()), getPhase(r),
                            in.getElementType(),
                            static_cast<int64_t>(r.getReduction()))]
              .push_back(r);
      }
    }
    for (auto &[key, group] : gathers)
      if (group.size() > 1)
        gatherTogether(std::get<0>(key), group);
    for (auto &[key, group] : scatters)
      if (group.size() > 1)
        scatterTogether(std::get<0>(key), group);
  }

private:
  bool onAxis(ArrayRef<int64_t> axes) const {
    return axes.size() == 1 && axes[0] == axis;
  }

  StringAttr unitAttr(StringRef unit) {
    return unit.empty() ? StringAttr()
                        : StringAttr::get(func.getContext(), unit);
  }

  /// One all_gather of the unit's packed shards, at its first gather; each
  /// parameter is then its columns of the [ranks, n] result.
  void gatherTogether(StringRef unit, SmallVector<AllGatherOp> &group) {
    AllGatherOp first = group.front();
    Phase phase = getPhase(first);
    // The shards must exist there: a later parameter is declared (and cut)
    // where it is first read, so its declaration moves up.
    // (Found first, then moved: a move invalidates the block's order, and
    // asking it again after each would renumber the block every time.)
    llvm::SetVector<Operation *> later;
    for (AllGatherOp g : group) {
      SmallVector<Operation *> chain;
      parameterOf(g.getInput(), chain);
      for (Operation *op : chain)
        if (first->isBeforeInBlock(op))
          later.insert(op);
    }
    for (Operation *op : later)
      op->moveBefore(first);
    OpBuilder b(first);
    Location loc = first.getLoc();
    Type element = first.getType().getElementType();
    SmallVector<Value> shards;
    SmallVector<int64_t> offsets;
    int64_t n = 0;
    for (AllGatherOp g : group) {
      shards.push_back(g.getInput());
      offsets.push_back(n);
      n += g.getInput().getType().getNumElements();
    }
    SmallVector<Operation *> created;
    auto packed =
        PackOp::create(b, loc, RankedTensorType::get({n}, element), shards);
    auto gathered = AllGatherOp::create(
        b, loc, RankedTensorType::get({ranks * n}, element),
        first.getMeshAttr(), first.getMeshAxesAttr(), unitAttr(unit), packed,
        b.getI64IntegerAttr(0), IntegerAttr(), DenseI64ArrayAttr());
    auto rows = m::ReshapeOp::create(
        b, loc, RankedTensorType::get({ranks, n}, element), gathered);
    created.append({packed, gathered, rows});
    for (size_t i = 0; i < group.size(); ++i) {
      AllGatherOp g = group[i];
      int64_t offset = offsets[i];
      int64_t size = g.getInput().getType().getNumElements();
      auto columns = m::SliceOp::create(
          b, loc, RankedTensorType::get({ranks, size}, element), rows,
          b.getI64IntegerAttr(1), b.getI64IntegerAttr(offset),
          b.getI64IntegerAttr(1));
      auto full = m::ReshapeOp::create(b, loc, g.getType(), columns);
      created.append({columns, full});
      g.getResult().replaceAllUsesWith(full.getResult());
    }
    for (Operation *op : created)
      setPhase(op, phase);
    for (AllGatherOp g : group)
      g->erase();
  }

  /// One reduce_scatter of the unit's gradients, once the last is
  /// computed: each gradient's rows as [ranks, its share], side by side, so
  /// that rank r receives row r: the pieces of its shards, one after
  /// another.
  void scatterTogether(StringRef unit, SmallVector<ReduceScatterOp> &group) {
    ReduceScatterOp last = group.back();
    Phase phase = getPhase(last);
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    Location loc = last.getLoc();
    Type element = last.getType().getElementType();
    SmallVector<Value> pieces;
    SmallVector<int64_t> offsets;
    SmallVector<Operation *> created;
    int64_t n = 0;
    for (ReduceScatterOp r : group) {
      int64_t share = r.getType().getNumElements();
      auto rows = m::ReshapeOp::create(
          b, loc, RankedTensorType::get({ranks, share}, element), r.getInput());
      created.push_back(rows);
      pieces.push_back(rows);
      offsets.push_back(n);
      n += share;
    }
    auto side =
        m::ConcatOp::create(b, loc, RankedTensorType::get({ranks, n}, element),
                            pieces, b.getI64IntegerAttr(1));
    auto flat = m::ReshapeOp::create(
        b, loc, RankedTensorType::get({ranks * n}, element), side);
    auto scattered = ReduceScatterOp::create(
        b, loc, RankedTensorType::get({n}, element), last.getMeshAttr(),
        last.getMeshAxesAttr(), unitAttr(unit), flat, last.getReductionAttr(),
        b.getI64IntegerAttr(0));
    created.append({side, flat, scattered});
    Operation *end = scattered;
    for (size_t i = 0; i < group.size(); ++i) {
      ReduceScatterOp r = group[i];
      int64_t offset = offsets[i];
      auto shard = UnpackOp::create(b, loc, r.getType(), scattered,
                                    b.getI64IntegerAttr(offset));
      created.push_back(shard);
      end = shard;
      r.getResult().replaceAllUsesWith(shard.getResult());
    }
    for (Operation *op : created)
      setPhase(op, phase);
    // What read the earlier gradients' shards before the last gradient was
    // computed (an HSDP all_reduce) now reads the grouped one's: it moves
    // after it, with what depends on it.
    llvm::SetVector<Operation *> moved;
    llvm::SmallPtrSet<Operation *, 16> old;
    for (ReduceScatterOp r : group)
      old.insert(r);
    for (Operation *op = group.front()->getNextNode(); op && op != last;
         op = op->getNextNode()) {
      if (old.contains(op))
        continue;
      bool dependent = llvm::any_of(op->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && (moved.contains(def) || llvm::is_contained(created, def));
      });
      if (dependent)
        moved.insert(op);
    }
    for (Operation *op : moved) {
      op->moveAfter(end);
      end = op;
    }
    for (ReduceScatterOp r : group)
      r->erase();
  }

  func::FuncOp func;
  MeshOp mesh;
  int64_t axis;
  int64_t ranks;
  FSDPUnitMatcher matcher;
};

} // namespace

FailureOr<std::optional<FSDPSetting>>
mlir::tp::getFSDPSetting(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  PlanAttr plan =
      module ? TPDialect::PlanAttrHelper(func.getContext()).getAttr(module)
             : PlanAttr();
  if (!plan || !plan.getFsdpAxis() || func.isExternal())
    return std::optional<FSDPSetting>();
  MeshOp mesh = lookupMesh(module, plan.getMesh());
  if (!mesh)
    return failure();
  return std::optional<FSDPSetting>(FSDPSetting{
      plan, mesh, mesh.getAxisIndex(plan.getFsdpAxis().getValue())});
}

LogicalResult mlir::tp::groupFSDPUnits(func::FuncOp func) {
  if (failed(checkPassPrecondition(func, TPPass::FSDPUnits)))
    return failure();
  FailureOr<std::optional<FSDPSetting>> fsdp = getFSDPSetting(func);
  if (failed(fsdp))
    return failure();
  if (!*fsdp)
    return success();
  auto [plan, mesh, axis] = **fsdp;
  if (mesh.getShape()[axis] == 1)
    return success();
  FailureOr<FSDPUnitMatcher> matcher =
      getFSDPUnitMatcher(plan, [&] { return func.emitError(); });
  if (failed(matcher))
    return failure();
  UnitGrouper(func, mesh, axis, std::move(*matcher)).run();
  return success();
}

namespace {
struct FSDPUnitsPass : public tp::impl::TPFSDPUnitsPassBase<FSDPUnitsPass> {
  void runOnOperation() override {
    if (failed(groupFSDPUnits(getOperation())))
      signalPassFailure();
  }
};
} // namespace
