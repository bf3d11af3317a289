//===- Propagate.cpp - placement propagation --------------------*- C++ -*-===//
//
// tp-propagate: walks each function in program order and gives every value
// downstream of a distributed tensor a placement, one mesh axis at a time,
// from per-op sharding rules. Operands are redistributed to what the rule
// needs, so the distributed program always computes what the unparallelized
// one computes.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/AxisRules.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPPROPAGATEPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

SmallVector<Attribute> mlir::tp::getPlacements(Value value, int64_t meshRank) {
  if (auto d = dyn_cast<DTensorType>(value.getType()))
    return SmallVector<Attribute>(d.getPlacements());
  return SmallVector<Attribute>(meshRank,
                                ReplicateAttr::get(value.getContext()));
}

Value mlir::tp::ensurePlacements(OpBuilder &builder, Location loc, Value value,
                                 FlatSymbolRefAttr mesh,
                                 ArrayRef<Attribute> placements,
                                 StringRef module) {
  SmallVector<Attribute> normalized;
  int64_t rank = getTensorLikeShape(value.getType()).size();
  for (Attribute p : placements)
    normalized.push_back(normalizePlacement(p, rank));
  // Only for the op it creates: most calls find the value placed already.
  auto moduleAttr = [&] {
    return module.empty() ? StringAttr() : builder.getStringAttr(module);
  };
  if (auto d = dyn_cast<DTensorType>(value.getType())) {
    if (d.getPlacements() == ArrayRef<Attribute>(normalized))
      return value;
    auto type = DTensorType::get(value.getContext(), d.getShape(),
                                 d.getElementType(), d.getMesh(), normalized);
    return RedistributeOp::create(builder, loc, type, value, moduleAttr());
  }
  if (llvm::all_of(normalized,
                   [](Attribute p) { return isa<ReplicateAttr>(p); }))
    return value;
  auto tensor = cast<RankedTensorType>(value.getType());
  auto type = DTensorType::get(value.getContext(), tensor.getShape(),
                               tensor.getElementType(), mesh, normalized);
  return DistributeOp::create(builder, loc, type, value, moduleAttr());
}

/// The module a redistribution inserted for `op` serves: the op's own FQN
/// for a module op, else the innermost composite module around it ("" at
/// function scope).
static StringRef servingModule(Operation *op) {
  if (StringRef fqn = m::getModuleFQN(op); !fqn.empty())
    return fqn;
  if (auto sub = op->getParentOfType<m::SubmoduleOp>())
    return sub.getFqn();
  return "";
}

//===----------------------------------------------------------------------===//
// Sharding rules, one mesh axis at a time
//===----------------------------------------------------------------------===//

namespace {

/// Propagation state: the mesh and a reference to it.
class Propagator {
public:
  explicit Propagator(MeshOp mesh)
      : mesh(mesh), meshRef(FlatSymbolRefAttr::get(mesh.getSymNameAttr())) {}

  LogicalResult run(func::FuncOp func) {
    if (failed(runBlock(func.getBody().front())))
      return failure();
    updateSignature(func);
    return success();
  }

  /// Visits the ops of `first`'s block from `first` on.
  LogicalResult runFrom(Operation *first) {
    Block *block = first->getBlock();
    for (Operation &op : llvm::make_early_inc_range(
             llvm::make_range(first->getIterator(), block->end())))
      if (failed(visit(&op)))
        return failure();
    if (auto func = dyn_cast<func::FuncOp>(block->getParentOp()))
      updateSignature(func);
    return success();
  }

private:
  static void updateSignature(func::FuncOp func) {
    // The signature follows what the function now returns.
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   ret.getOperandTypes()));
  }

  FlatSymbolRefAttr meshSym() { return meshRef; }

  LogicalResult runBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(visit(&op)))
        return failure();
    return success();
  }

  /// The placements a style's distribute/redistribute should produce: what
  /// it says on the TP axis it decided, and the input's placements on the
  /// other axes. Ops not made by a style produce exactly what they say.
  SmallVector<Attribute> styleTarget(Operation *op, Value input,
                                     ArrayRef<Attribute> declared) {
    SmallVector<Attribute> target(declared);
    IntegerAttr axis =
        TPDialect::TpAxisAttrHelper(op->getContext()).getAttr(op);
    if (!axis)
      return target;
    SmallVector<Attribute> actual = getPlacements(input, mesh.getRank());
    for (int64_t a = 0; a < mesh.getRank(); ++a)
      if (a != axis.getInt())
        target[a] = actual[a];
    return target;
  }

  static bool hasDTensorOperand(Operation *op) {
    return llvm::any_of(op->getOperandTypes(),
                        [](Type t) { return isa<DTensorType>(t); });
  }

  LogicalResult visit(Operation *op) {
    if (auto sub = dyn_cast<m::SubmoduleOp>(op)) {
      Block &body = sub.getBody().front();
      for (auto [arg, in] : llvm::zip(body.getArguments(), sub.getInputs()))
        arg.setType(in.getType());
      if (failed(runBlock(body)))
        return failure();
      auto yield = cast<m::YieldOp>(body.getTerminator());
      for (auto [res, v] : llvm::zip(sub.getOutputs(), yield.getValues()))
        res.setType(v.getType());
      return success();
    }
    if (auto dist = dyn_cast<DistributeOp>(op)) {
      // A declared layout on a value whose placement is now known. The
      // input's type was rewritten in place to a dtensor, which
      // getInput() (a plain tensor) would not cast to.
      Value input = op->getOperand(0);
      if (!isa<DTensorType>(input.getType()))
        return success();
      PhaseListener marker(op);
      OpBuilder b(op, &marker);
      Value v = ensurePlacements(
          b, op->getLoc(), input, meshSym(),
          styleTarget(op, input, dist.getResult().getType().getPlacements()),
          dist.getModule() ? *dist.getModule() : StringRef());
      if (v != input)
        v.getDefiningOp()->setAttrs(op->getDiscardableAttrDictionary());
      dist.getResult().replaceAllUsesWith(v);
      op->erase();
      return success();
    }
    if (auto redist = dyn_cast<RedistributeOp>(op)) {
      // A style decided only its TP axis: follow the input elsewhere.
      if (!op->hasAttr(TPDialect::TpAxisAttrHelper::getNameStr()))
        return success();
      auto in = redist.getInput().getType();
      SmallVector<Attribute> target = styleTarget(
          op, redist.getInput(), redist.getResult().getType().getPlacements());
      if (in.getPlacements() == ArrayRef<Attribute>(target)) {
        redist.getResult().replaceAllUsesWith(redist.getInput());
        op->erase();
        return success();
      }
      redist.getResult().setType(
          DTensorType::get(op->getContext(), in.getShape(), in.getElementType(),
                           in.getMesh(), target));
      return success();
    }
    if (isa<RedistributeOp, FromLocalOp, ToLocalOp, func::ReturnOp, m::YieldOp>(
            op) ||
        !hasDTensorOperand(op))
      return success();
    // Ops with a sharding rule (model ops, and any op given an external
    // model) follow it; other ops see their operands replicated.
    if (!isa<ShardingRuleOpInterface>(op) || op->getNumResults() != 1 ||
        !isTensorLike(op->getResult(0).getType()))
      return replicateUnknown(op);
    return applyRule(cast<ShardingRuleOpInterface>(op));
  }

  /// Ops without a rule see only replicated operands (their local value is
  /// then the global value).
  LogicalResult replicateUnknown(Operation *op) {
    // What is inserted for `op` communicates in `op`'s phase.
    PhaseListener marker(op);
    OpBuilder b(op, &marker);
    for (OpOperand &operand : op->getOpOperands()) {
      auto d = dyn_cast<DTensorType>(operand.get().getType());
      if (!d)
        continue;
      SmallVector<Attribute> reps(mesh.getRank(),
                                  ReplicateAttr::get(op->getContext()));
      Value r = ensurePlacements(b, op->getLoc(), operand.get(), meshSym(),
                                 reps, servingModule(op));
      operand.set(ToLocalOp::create(b, op->getLoc(), d.getGlobalType(), r));
    }
    return success();
  }

  /// Whether `v` (an attention operand) carries heads that were sharded
  /// on `axis`: its own placement (heads are dim 2 of [B, S, H, D]), or that
  /// of the projection [B, S, H*D] it was reshaped from (through rotary),
  /// before propagation gathered it.
  static bool headsWereSharded(Value v, int64_t axis) {
    auto shardedOn = [&](Value x) {
      auto d = dyn_cast<DTensorType>(x.getType());
      auto shard = d ? dyn_cast<ShardAttr>(d.getPlacements()[axis]) : nullptr;
      return shard && shard.getDim() == 2;
    };
    while (true) {
      if (shardedOn(v))
        return true;
      Operation *def = v.getDefiningOp();
      if (!def || def->getNumOperands() == 0 ||
          !isa<m::RotaryOp, m::ReshapeOp, RedistributeOp, ToLocalOp>(def))
        return false;
      v = def->getOperand(0);
    }
  }

  /// Says why attention heads that were sharded on `axis` are replicated
  /// instead: the heads do not divide over the axis. Whether the gather
  /// happens at the attention or already at the reshape into heads (an
  /// uneven projection shard does not split into whole heads), the message
  /// is the same.
  void warnHeadsNotDivisible(m::AttentionOp op, int64_t axis) {
    int64_t n = mesh.getShape()[axis];
    int64_t q = getTensorLikeShape(op.getQ().getType())[2];
    int64_t kv = getTensorLikeShape(op.getK().getType())[2];
    if (n == 1 || (q % n == 0 && kv % n == 0))
      return;
    if (!llvm::any_of(op->getOperands(),
                      [&](Value v) { return headsWereSharded(v, axis); }))
      return;
    op.emitWarning() << "attention in '" << servingModule(op) << "': " << q
                     << " query heads and " << kv
                     << " kv heads do not both divide over the " << n
                     << " ranks of mesh axis '" << mesh.getAxisName(axis)
                     << "'; q, k and v are replicated (all_gather)";
  }

  /// Says what a slice across a sharded dim costs (the rule gathers the
  /// dim first), once per sliced value; where the value is a linear's
  /// output features (a fused projection such as GPT-2's c_attn, split
  /// into q, k and v), says how to shard it so that no gather is needed.
  void warnSlicedShard(m::SliceOp op, Attribute in, int64_t axis) {
    auto shard = dyn_cast<ShardAttr>(in);
    int64_t n = mesh.getShape()[axis];
    auto shape = getTensorLikeShape(op.getInput().getType());
    int64_t dim = static_cast<int64_t>(op.getDim());
    if (dim < 0)
      dim += static_cast<int64_t>(shape.size());
    if (!shard || shard.getDim() != dim || n == 1 ||
        !warnedSlices.insert(op.getInput()).second)
      return;
    int64_t bytes = getTensorLikeElementType(op.getInput().getType())
                        .getIntOrFloatBitWidth() /
                    8;
    for (int64_t d : shape)
      bytes *= ShapedType::isDynamic(d) ? 1 : d;
    InFlightDiagnostic diag =
        op.emitWarning() << "'" << servingModule(op) << "' slices dim " << dim
                         << ", which is sharded over the " << n
                         << " ranks of mesh axis '" << mesh.getAxisName(axis)
                         << "': it is gathered first (all_gather of " << bytes
                         << " bytes)";
    auto linear = op.getInput().getDefiningOp<m::LinearOp>();
    if (linear && dim == static_cast<int64_t>(shape.size()) - 1)
      diag << "; the output features of '" << linear.getFqn()
           << "' are cut into pieces: \"shard_pieces\": true on its "
              "ColwiseParallel shards each piece's rows of the weight (each "
              "rank holding its part of every piece, e.g. its heads of q, k "
              "and v) and needs no gather";
  }

  /// The shape of \p v as the mesh axes before this one split it
  /// (\p earlier: their placements of it), or none when one of them splits
  /// a dim unevenly or as an inner shard.
  std::optional<SmallVector<int64_t>>
  splitByEarlierAxes(ArrayRef<int64_t> shape, ArrayRef<Attribute> earlier) {
    SmallVector<int64_t> local(shape);
    for (auto [axis, p] : llvm::enumerate(earlier)) {
      if (isa<InnerShardAttr>(p))
        return std::nullopt;
      auto shard = dyn_cast<ShardAttr>(p);
      if (!shard)
        continue;
      int64_t n = mesh.getShape()[axis];
      int64_t d = shard.getDim();
      if (d < 0)
        d += static_cast<int64_t>(local.size());
      if (d < 0 || d >= static_cast<int64_t>(local.size()) ||
          ShapedType::isDynamic(local[d]) || local[d] % n != 0)
        return std::nullopt;
      local[d] /= n;
    }
    return local;
  }

  /// The op's own rule on `axis`; a rule that does not give one placement
  /// per operand and a result is a bug in the op, reported as such. A
  /// reshape's rule sees the shapes the earlier mesh axes leave: where an
  /// earlier axis splits the same dim (a dp x tp mesh sharding the tokens
  /// of a flattened batch x sequence over both), this axis splits what is
  /// left of it, not the whole dim (the batch for dp, the sequence for tp,
  /// where both on the batch would not divide).
  FailureOr<AxisRule> decide(ShardingRuleOpInterface op, ArrayRef<Attribute> in,
                             int64_t axisSize, int64_t axis,
                             ArrayRef<Attribute> earlierIn,
                             ArrayRef<Attribute> earlierOut) {
    if (auto a = dyn_cast<m::AttentionOp>(op.getOperation()))
      warnHeadsNotDivisible(a, axis);
    if (auto s = dyn_cast<m::SliceOp>(op.getOperation()))
      warnSlicedShard(s, in[0], axis);
    if (auto r = dyn_cast<m::ReshapeOp>(op.getOperation()); r && axis > 0) {
      auto src = splitByEarlierAxes(getTensorLikeShape(r.getInput().getType()),
                                    earlierIn);
      auto dst = splitByEarlierAxes(getTensorLikeShape(r.getResult().getType()),
                                    earlierOut);
      if (src && dst)
        return AxisRuleBuilder(op->getContext(), axisSize)
            .reshape(in, *src, *dst);
    }
    AxisRule dec = op.getAxisRule(in, axisSize);
    if (dec.operands.size() == in.size() && dec.result &&
        llvm::all_of(dec.operands, [](Attribute p) { return p; }))
      return dec;
    return op->emitError() << "sharding rule of '" << op->getName()
                           << "' on mesh axis '" << mesh.getAxisName(axis)
                           << "' gave " << dec.operands.size()
                           << " operand placements"
                           << (dec.result ? "" : " and no result") << " for "
                           << in.size() << " operands";
  }

  /// The ops whose result element depends only on the operand elements at
  /// the same (broadcast) position, or on all of them alike: they compute on
  /// an inner shard as on any other index set of the dim.
  static bool readsInnerShards(Operation *op) {
    return isa<m::AddOp, m::SubOp, m::MulOp, m::DivOp, m::NegOp, m::CastOp,
               m::SGDUpdateOp, m::AdamWUpdateOp, m::SumSquaresOp>(op);
  }

  LogicalResult applyRule(ShardingRuleOpInterface op) {
    int64_t meshRank = mesh.getRank();
    size_t numOperands = op->getNumOperands();
    SmallVector<SmallVector<Attribute>> operandPlacements(numOperands);
    SmallVector<Attribute> resultPlacements;
    SmallVector<SmallVector<Attribute>> current;
    for (Value v : op->getOperands())
      current.push_back(getPlacements(v, meshRank));
    bool readsInner = readsInnerShards(op);
    for (int64_t axis = 0; axis < meshRank; ++axis) {
      // An inner shard is another index set of the dim than the rule's
      // Shard: an op that does not depend on positions computes on it as
      // on a Shard (and keeps it inner); any other sees it replicated
      // (gathered first).
      SmallVector<Attribute> in;
      SmallVector<int64_t> innerDims;
      for (auto &c : current) {
        auto inner = dyn_cast<InnerShardAttr>(c[axis]);
        if (!inner) {
          in.push_back(c[axis]);
          continue;
        }
        innerDims.push_back(inner.getDim());
        in.push_back(
            readsInner
                ? Attribute(ShardAttr::get(op->getContext(), inner.getDim()))
                : Attribute(ReplicateAttr::get(op->getContext())));
      }
      // A size-1 axis never needs communication: keep everything
      // replicated there.
      FailureOr<AxisRule> dec =
          mesh.getShape()[axis] == 1
              ? AxisRule{SmallVector<Attribute>(
                             numOperands, ReplicateAttr::get(op->getContext())),
                         ReplicateAttr::get(op->getContext())}
              : decide(op, in, mesh.getShape()[axis], axis,
                       numOperands ? ArrayRef<Attribute>(operandPlacements[0])
                                   : ArrayRef<Attribute>(),
                       resultPlacements);
      if (failed(dec))
        return failure();
      auto keepInner = [&](Attribute p) -> Attribute {
        std::optional<int64_t> dim = getSplitDim(p);
        if (readsInner && dim && llvm::is_contained(innerDims, *dim))
          return InnerShardAttr::get(op->getContext(), *dim);
        return p;
      };
      for (Attribute &p : dec->operands)
        p = keepInner(p);
      dec->result = keepInner(dec->result);
      for (size_t i = 0; i < numOperands; ++i)
        operandPlacements[i].push_back(dec->operands[i]);
      resultPlacements.push_back(dec->result);
    }
    // An inner shard whose split came out in mesh order is a Shard.
    for (SmallVector<Attribute> &placements : operandPlacements)
      placements = canonicalizePlacements(placements);
    resultPlacements = canonicalizePlacements(resultPlacements);
    PhaseListener marker(op);
    OpBuilder b(op, &marker);
    StringRef fqn = servingModule(op);
    for (auto [i, operand] : llvm::enumerate(op->getOpOperands()))
      operand.set(ensurePlacements(b, op->getLoc(), operand.get(), meshSym(),
                                   operandPlacements[i], fqn));
    Value result = op->getResult(0);
    ArrayRef<int64_t> shape = getTensorLikeShape(result.getType());
    Type elementType = getTensorLikeElementType(result.getType());
    if (!hasDTensorOperand(op) &&
        llvm::all_of(resultPlacements,
                     [](Attribute p) { return isa<ReplicateAttr>(p); })) {
      result.setType(RankedTensorType::get(shape, elementType));
      return success();
    }
    SmallVector<Attribute> normalized;
    for (Attribute p : resultPlacements)
      normalized.push_back(normalizePlacement(p, shape.size()));
    result.setType(DTensorType::get(op->getContext(), shape, elementType,
                                    meshSym(), normalized));
    return success();
  }

  MeshOp mesh;
  /// Values whose slicing across a sharded dim was warned about.
  DenseSet<Value> warnedSlices;
  FlatSymbolRefAttr meshRef;
};

} // namespace

/// The mesh placements refer to: the first `tp.mesh` of the module around
/// `op` (or `op` itself), looked up, never changed, so a function pass may
/// call it.
static MeshOp findMesh(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (!module)
    return nullptr;
  for (MeshOp mesh : module.getOps<MeshOp>())
    return mesh;
  return nullptr;
}

/// Takes the style markers off the ops under `root` once every placement
/// is known.
static void removeAxisMarkers(Operation *root) {
  // (The name is uniqued once, not once per op.)
  StringAttr axisAttr =
      TPDialect::TpAxisAttrHelper(root->getContext()).getName();
  root->walk([&](Operation *op) {
    if (op->getDiscardableAttr(axisAttr))
      op->removeDiscardableAttr(axisAttr);
  });
}

LogicalResult mlir::tp::propagatePlacements(ModuleOp module,
                                            bool checkPrecondition) {
  if (checkPrecondition &&
      failed(checkPassPrecondition(module, TPPass::Propagate)))
    return failure();
  for (auto func : module.getOps<func::FuncOp>())
    if (failed(propagatePlacements(func, /*checkPrecondition=*/false)))
      return failure();
  return success();
}

LogicalResult mlir::tp::propagatePlacements(func::FuncOp func,
                                            bool checkPrecondition) {
  if (func.isExternal())
    return success();
  if (checkPrecondition &&
      failed(checkPassPrecondition(func, TPPass::Propagate)))
    return failure();
  // Meshes are symbols of the module around the function.
  MeshOp mesh = findMesh(func);
  if (!mesh)
    return success(); // Nothing is distributed without a mesh.
  if (failed(Propagator(mesh).run(func)))
    return failure();
  // The style markers are spent once every placement is known.
  removeAxisMarkers(func);
  return success();
}

LogicalResult mlir::tp::propagatePlacementsFrom(Operation *first) {
  if (MeshOp mesh = findMesh(first))
    return Propagator(mesh).runFrom(first);
  return success(); // Nothing is distributed without a mesh.
}

namespace {
struct PropagatePass : public tp::impl::TPPropagatePassBase<PropagatePass> {
  void runOnOperation() override {
    if (failed(propagatePlacements(getOperation())))
      signalPassFailure();
  }
};
} // namespace
