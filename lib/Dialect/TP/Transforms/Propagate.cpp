//===- Propagate.cpp - placement propagation --------------------*- C++ -*-===//
//
// tp-propagate: walks each function in program order and gives every value
// downstream of a distributed tensor a placement, one mesh axis at a time,
// from per-op sharding rules. Operands are redistributed to what the rule
// needs, so the distributed program always computes what the unparallelized
// one computes.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tp-propagate"

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
  StringAttr moduleAttr =
      module.empty() ? StringAttr() : builder.getStringAttr(module);
  if (auto d = dyn_cast<DTensorType>(value.getType())) {
    if (d.getPlacements() == ArrayRef<Attribute>(normalized))
      return value;
    auto type = DTensorType::get(value.getContext(), d.getShape(),
                                 d.getElementType(), d.getMesh(), normalized);
    return RedistributeOp::create(builder, loc, type, value, moduleAttr);
  }
  if (llvm::all_of(normalized, [](Attribute p) {
        return isa<ReplicateAttr>(p);
      }))
    return value;
  auto tensor = cast<RankedTensorType>(value.getType());
  auto type = DTensorType::get(value.getContext(), tensor.getShape(),
                               tensor.getElementType(), mesh, normalized);
  return DistributeOp::create(builder, loc, type, value, moduleAttr);
}

//===----------------------------------------------------------------------===//
// Sharding rules, one mesh axis at a time
//===----------------------------------------------------------------------===//

namespace {

/// What a rule decides for one mesh axis: the placement each operand must
/// have, and the placement of the result.
struct AxisDecision {
  SmallVector<Attribute> operands;
  Attribute result;
};

class Rules {
public:
  Rules(MLIRContext *ctx, int64_t axisSize) : ctx(ctx), n(axisSize) {}

  Attribute rep() { return ReplicateAttr::get(ctx); }
  Attribute shard(int64_t d) { return ShardAttr::get(ctx, d); }
  Attribute partialSum() { return PartialAttr::get(ctx, ReductionKind::Sum); }

  static std::optional<int64_t> shardDim(Attribute p) {
    if (auto s = dyn_cast<ShardAttr>(p))
      return s.getDim();
    return std::nullopt;
  }

  /// Everything replicated: always correct.
  AxisDecision replicateAll(size_t numOperands) {
    return {SmallVector<Attribute>(numOperands, rep()), rep()};
  }

  /// Element-wise unary op: shards pass through, partials are reduced.
  AxisDecision unary(ArrayRef<Attribute> in) {
    if (isa<PartialAttr>(in[0]))
      return replicateAll(in.size());
    return {{in[0]}, in[0]};
  }

  /// Broadcasting binary op (`linearInBoth` for add: Partial + Partial of the
  /// same kind stays Partial; mul is linear in one operand only).
  AxisDecision binary(ArrayRef<Attribute> in, ArrayRef<int64_t> a,
                      ArrayRef<int64_t> b, ArrayRef<int64_t> out, bool isAdd) {
    auto pa = dyn_cast<PartialAttr>(in[0]), pb = dyn_cast<PartialAttr>(in[1]);
    if (isAdd && pa && pb && pa == pb && pa.getKind() == ReductionKind::Sum)
      return {{in[0], in[1]}, in[0]};
    if (!isAdd && (pa != nullptr) != (pb != nullptr) &&
        (pa ? pa : pb).getKind() == ReductionKind::Sum &&
        isa<ReplicateAttr>(pa ? in[1] : in[0]))
      return {{in[0], in[1]}, pa ? in[0] : in[1]};
    // Any other partial is reduced first (to Replicate); shards then decide.
    SmallVector<Attribute> eff(in);
    for (Attribute &p : eff)
      if (isa<PartialAttr>(p))
        p = rep();
    int64_t rank = out.size();
    ArrayRef<int64_t> shapes[2] = {a, b};
    auto numel = [](ArrayRef<int64_t> s) {
      int64_t n = 1;
      for (int64_t d : s)
        n *= d;
      return n;
    };
    // Candidate result dims: each sharded operand's dim. Pick the one that
    // moves the fewest elements (re-sharding a replicated operand is a free
    // local chunk; moving a shard to another dim costs its size).
    std::optional<int64_t> best;
    int64_t bestCost = 0;
    for (int c = 0; c < 2; ++c) {
      auto d = shardDim(eff[c]);
      if (!d)
        continue;
      int64_t r = *d + (rank - (int64_t)shapes[c].size());
      int64_t cost = 0;
      for (int i = 0; i < 2; ++i) {
        int64_t local = r - (rank - (int64_t)shapes[i].size());
        bool wantShard = local >= 0 && shapes[i][local] != 1;
        auto have = shardDim(eff[i]);
        if (have && (!wantShard || *have != local))
          cost += numel(shapes[i]);
      }
      if (!best || cost < bestCost) {
        best = r;
        bestCost = cost;
      }
    }
    if (!best)
      return {{eff[0], eff[1]}, rep()};
    AxisDecision dec;
    for (int i = 0; i < 2; ++i) {
      int64_t local = *best - (rank - (int64_t)shapes[i].size());
      if (local >= 0 && shapes[i][local] != 1)
        dec.operands.push_back(shard(local));
      else
        dec.operands.push_back(rep());
    }
    dec.result = shard(*best);
    return dec;
  }

  /// nn.Linear: x [..., in], w [out, in], optional b [out].
  AxisDecision linear(ArrayRef<Attribute> in, int64_t xRank, bool hasBias) {
    Attribute x = in[0], w = in[1];
    auto withBias = [&](SmallVector<Attribute> ops, Attribute b) {
      if (hasBias)
        ops.push_back(b);
      return ops;
    };
    // Colwise: weight rows sharded -> output features sharded.
    if (shardDim(w) == 0)
      return {withBias({rep(), shard(0)}, shard(0)), shard(xRank - 1)};
    // Rowwise: weight columns sharded, input features sharded -> partial.
    if (shardDim(w) == 1 && !hasBias)
      return {{shard(xRank - 1), shard(1)}, partialSum()};
    if (isa<ReplicateAttr>(w)) {
      if (auto d = shardDim(x); d && *d < xRank - 1)
        return {withBias({x, rep()}, rep()), x};
      if (isa<PartialAttr>(x) && !hasBias &&
          cast<PartialAttr>(x).getKind() == ReductionKind::Sum)
        return {{x, rep()}, x};
    }
    return replicateAll(hasBias ? 3 : 2);
  }

  /// nn.Embedding: ids [...], w [V, D].
  AxisDecision embedding(ArrayRef<Attribute> in, int64_t idsRank) {
    if (shardDim(in[1]) == 1)
      return {{rep(), shard(1)}, shard(idsRank)};
    // Vocabulary rows sharded: out-of-range ids look up zeros, so the sum
    // over ranks is the lookup.
    if (shardDim(in[1]) == 0)
      return {{rep(), shard(0)}, partialSum()};
    if (isa<ReplicateAttr>(in[1]))
      if (auto d = shardDim(in[0]))
        return {{in[0], rep()}, in[0]};
    return replicateAll(2);
  }

  /// Norms over the last dim: any other dim may stay sharded.
  AxisDecision norm(ArrayRef<Attribute> in, int64_t rank) {
    if (auto d = shardDim(in[0]); d && *d != rank - 1) {
      AxisDecision dec{{in[0]}, in[0]};
      for (size_t i = 1; i < in.size(); ++i)
        dec.operands.push_back(rep());
      return dec;
    }
    return replicateAll(in.size());
  }

  AxisDecision softmax(ArrayRef<Attribute> in, int64_t dim) {
    if (auto d = shardDim(in[0]); d && *d != dim)
      return {{in[0]}, in[0]};
    return replicateAll(1);
  }

  AxisDecision matmul(ArrayRef<Attribute> in, int64_t ra, int64_t rb) {
    auto da = shardDim(in[0]), db = shardDim(in[1]);
    if (da && *da < ra - 2 && (rb == 2 ? isa<ReplicateAttr>(in[1]) : true))
      return {{in[0], rb == 2 ? rep() : shard(*da)}, in[0]};
    if (da == ra - 1 && db == rb - 2)
      return {{in[0], in[1]}, partialSum()};
    if (isa<ReplicateAttr>(in[0]) && db == rb - 1)
      return {{rep(), in[1]}, shard(ra - 1)};
    return replicateAll(2);
  }

  AxisDecision transpose(ArrayRef<Attribute> in, ArrayRef<int64_t> perm) {
    if (auto d = shardDim(in[0])) {
      for (auto [i, p] : llvm::enumerate(perm))
        if (p == *d)
          return {{in[0]}, shard(i)};
    }
    return {{in[0]}, in[0]};
  }

  /// A sharded dim survives a reshape when it becomes (or stays) the leading
  /// factor of a result dim and both sizes divide over the axis.
  AxisDecision reshape(ArrayRef<Attribute> in, ArrayRef<int64_t> src,
                       ArrayRef<int64_t> dst) {
    if (isa<PartialAttr, ReplicateAttr>(in[0]))
      return {{in[0]}, in[0]};
    int64_t d = *shardDim(in[0]);
    int64_t prefix = 1;
    for (int64_t i = 0; i < d; ++i)
      prefix *= src[i];
    int64_t acc = 1;
    for (int64_t r = 0; r < (int64_t)dst.size(); ++r) {
      if (acc == prefix && dst[r] % n == 0 && src[d] % n == 0) {
        if (dst[r] <= src[d] ? src[d] % dst[r] == 0 : dst[r] % src[d] == 0)
          return {{in[0]}, shard(r)};
      }
      acc *= dst[r];
      if (acc > prefix)
        break;
    }
    return replicateAll(1);
  }

  /// Rotary angles depend on the global position (dim 1) and pair up
  /// elements of head_dim (dim 3): only batch and heads may stay sharded.
  /// Keepdim reductions: a shard of the reduced dim becomes a partial of
  /// the same reduction; other shards stay.
  AxisDecision reduce(ArrayRef<Attribute> in, int64_t dim, ReductionKind kind) {
    if (auto p = dyn_cast<PartialAttr>(in[0])) {
      if (p.getKind() == kind && kind == ReductionKind::Sum)
        return {{in[0]}, in[0]};
      return replicateAll(1);
    }
    if (auto d = shardDim(in[0])) {
      if (*d == dim)
        return {{in[0]}, PartialAttr::get(ctx, kind)};
      return {{in[0]}, in[0]};
    }
    return {{in[0]}, in[0]};
  }

  /// Mean of all elements: linear in a partial sum; shards are gathered.
  AxisDecision mean(ArrayRef<Attribute> in) {
    if (auto p = dyn_cast<PartialAttr>(in[0]);
        p && p.getKind() == ReductionKind::Sum)
      return {{in[0]}, in[0]};
    return replicateAll(1);
  }

  /// logits[i, t_i]: on class shards, out-of-shard targets give zero, so the
  /// sum over shards is the value; row shards stay row shards.
  AxisDecision targetLogit(ArrayRef<Attribute> in) {
    if (shardDim(in[0]) == 1)
      return {{in[0], rep()}, partialSum()};
    if (shardDim(in[0]) == 0)
      return {{in[0], shard(0)}, shard(0)};
    return replicateAll(2);
  }

  AxisDecision rotary(ArrayRef<Attribute> in) {
    if (auto d = shardDim(in[0]); d && (*d == 0 || *d == 2))
      return {{in[0]}, in[0]};
    return replicateAll(1);
  }

  /// Attention per head: heads (dim 2) or batch (dim 0) may be sharded.
  AxisDecision attention(ArrayRef<Attribute> in, ArrayRef<int64_t> q,
                         ArrayRef<int64_t> k) {
    auto d = shardDim(in[0]);
    if (d == 2 && q[2] % n == 0 && k[2] % n == 0)
      return {{in[0], in[0], in[0]}, in[0]};
    if (d == 0 && q[0] % n == 0)
      return {{in[0], in[0], in[0]}, in[0]};
    return replicateAll(3);
  }

private:
  MLIRContext *ctx;
  int64_t n;
};

/// Propagation state for one module: the mesh and its op.
class Propagator {
public:
  Propagator(ModuleOp module, MeshOp mesh) : module(module), mesh(mesh) {}

  LogicalResult run(func::FuncOp func) {
    if (failed(runBlock(func.getBody().front())))
      return failure();
    // The signature follows what the function now returns.
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    func.setType(FunctionType::get(func.getContext(),
                                   func.getArgumentTypes(),
                                   ret.getOperandTypes()));
    return success();
  }

private:
  FlatSymbolRefAttr meshSym() {
    return FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  }

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
    auto axis = op->getAttrOfType<IntegerAttr>(kTPAxisAttr);
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
      // A declared layout on a value whose placement is now known.
      if (!isa<DTensorType>(dist.getInput().getType()))
        return success();
      OpBuilder b(op);
      Value v = ensurePlacements(
          b, op->getLoc(), dist.getInput(), meshSym(),
          styleTarget(op, dist.getInput(),
                      dist.getResult().getType().getPlacements()),
          dist.getModule() ? *dist.getModule() : StringRef());
      if (v != dist.getInput())
        v.getDefiningOp()->setAttrs(op->getDiscardableAttrDictionary());
      dist.getResult().replaceAllUsesWith(v);
      op->erase();
      return success();
    }
    if (auto redist = dyn_cast<RedistributeOp>(op)) {
      // A style decided only its TP axis: follow the input elsewhere.
      if (!op->hasAttr(kTPAxisAttr))
        return success();
      auto in = redist.getInput().getType();
      SmallVector<Attribute> target = styleTarget(
          op, redist.getInput(), redist.getResult().getType().getPlacements());
      if (in.getPlacements() == ArrayRef<Attribute>(target)) {
        redist.getResult().replaceAllUsesWith(redist.getInput());
        op->erase();
        return success();
      }
      redist.getResult().setType(DTensorType::get(
          op->getContext(), in.getShape(), in.getElementType(), in.getMesh(),
          target));
      return success();
    }
    if (isa<RedistributeOp, FromLocalOp, ToLocalOp, func::ReturnOp,
            m::YieldOp>(op) ||
        !hasDTensorOperand(op))
      return success();
    if (op->getDialect() != op->getContext()->getLoadedDialect("model") ||
        op->getNumResults() != 1)
      return replicateUnknown(op);
    return applyRule(op);
  }

  /// Ops without a rule see only replicated operands (their local value is
  /// then the global value).
  LogicalResult replicateUnknown(Operation *op) {
    OpBuilder b(op);
    for (OpOperand &operand : op->getOpOperands()) {
      auto d = dyn_cast<DTensorType>(operand.get().getType());
      if (!d)
        continue;
      SmallVector<Attribute> reps(mesh.getRank(),
                                  ReplicateAttr::get(op->getContext()));
      Value r = ensurePlacements(b, op->getLoc(), operand.get(), meshSym(),
                                 reps);
      operand.set(ToLocalOp::create(b, op->getLoc(), d.getGlobalType(), r));
    }
    return success();
  }

  /// Says why attention heads sharded on `axis` fall back to replication.
  void warnHeadsNotDivisible(m::AttentionOp op, ArrayRef<Attribute> in,
                             int64_t axis) {
    int64_t n = mesh.getShape()[axis];
    bool headsSharded = llvm::any_of(in, [](Attribute p) {
      auto s = dyn_cast<ShardAttr>(p);
      return s && s.getDim() == 2;
    });
    int64_t q = getTensorLikeShape(op.getQ().getType())[2];
    int64_t kv = getTensorLikeShape(op.getK().getType())[2];
    if (!headsSharded || (q % n == 0 && kv % n == 0))
      return;
    StringRef fqn;
    if (auto sub = op->getParentOfType<m::SubmoduleOp>())
      fqn = sub.getFqn();
    op.emitWarning() << "attention in '" << fqn << "': " << q
                     << " query heads and " << kv
                     << " kv heads do not both divide over the " << n
                     << " ranks of mesh axis '" << mesh.getAxisName(axis)
                     << "'; q, k and v are replicated (all_gather)";
  }

  AxisDecision decide(Operation *op, ArrayRef<Attribute> in, int64_t axisSize,
                      int64_t axis) {
    Rules rules(op->getContext(), axisSize);
    auto shape = [&](unsigned i) {
      return getTensorLikeShape(op->getOperand(i).getType());
    };
    ArrayRef<int64_t> out = getTensorLikeShape(op->getResult(0).getType());
    return llvm::TypeSwitch<Operation *, AxisDecision>(op)
        .Case<m::ReluOp, m::GeluOp, m::SiluOp, m::DropoutOp, m::ExpOp,
              m::LogOp>(
            [&](Operation *) { return rules.unary(in); })
        .Case([&](m::AddOp) {
          return rules.binary(in, shape(0), shape(1), out, true);
        })
        .Case([&](m::SubOp) {
          return rules.binary(in, shape(0), shape(1), out, true);
        })
        .Case([&](m::ReduceMaxOp r) {
          int64_t rank = shape(0).size();
          int64_t dim = (int64_t)r.getDim() < 0 ? (int64_t)r.getDim() + rank
                                                : (int64_t)r.getDim();
          return rules.reduce(in, dim, ReductionKind::Max);
        })
        .Case([&](m::ReduceSumOp r) {
          int64_t rank = shape(0).size();
          int64_t dim = (int64_t)r.getDim() < 0 ? (int64_t)r.getDim() + rank
                                                : (int64_t)r.getDim();
          return rules.reduce(in, dim, ReductionKind::Sum);
        })
        .Case([&](m::MeanOp) { return rules.mean(in); })
        .Case([&](m::TargetLogitOp) { return rules.targetLogit(in); })
        .Case([&](m::MulOp) {
          return rules.binary(in, shape(0), shape(1), out, false);
        })
        .Case([&](m::LinearOp l) {
          return rules.linear(in, shape(0).size(), l.getBias() != nullptr);
        })
        .Case([&](m::EmbeddingOp) {
          return rules.embedding(in, shape(0).size());
        })
        .Case<m::LayerNormOp, m::RMSNormOp>(
            [&](Operation *) { return rules.norm(in, shape(0).size()); })
        .Case([&](m::SoftmaxOp s) {
          // I64Attr getters return uint64_t: normalize as signed.
          int64_t dim = static_cast<int64_t>(s.getDim());
          if (dim < 0)
            dim += shape(0).size();
          return rules.softmax(in, dim);
        })
        .Case([&](m::MatmulOp) {
          return rules.matmul(in, shape(0).size(), shape(1).size());
        })
        .Case([&](m::TransposeOp t) {
          return rules.transpose(in, t.getPermutation());
        })
        .Case([&](m::ReshapeOp) { return rules.reshape(in, shape(0), out); })
        .Case([&](m::RotaryOp) { return rules.rotary(in); })
        .Case([&](m::AttentionOp a) {
          warnHeadsNotDivisible(a, in, axis);
          return rules.attention(in, shape(0), shape(1));
        })
        .Default([&](Operation *) {
          return rules.replicateAll(op->getNumOperands());
        });
  }

  LogicalResult applyRule(Operation *op) {
    int64_t meshRank = mesh.getRank();
    size_t numOperands = op->getNumOperands();
    SmallVector<SmallVector<Attribute>> operandPlacements(numOperands);
    SmallVector<Attribute> resultPlacements;
    SmallVector<SmallVector<Attribute>> current;
    for (Value v : op->getOperands())
      current.push_back(getPlacements(v, meshRank));
    for (int64_t axis = 0; axis < meshRank; ++axis) {
      SmallVector<Attribute> in;
      for (auto &c : current)
        in.push_back(c[axis]);
      AxisDecision dec = mesh.getShape()[axis] == 1
                             ? AxisDecision{in, in.empty() ? nullptr : in[0]}
                             : decide(op, in, mesh.getShape()[axis], axis);
      if (mesh.getShape()[axis] == 1) {
        // A size-1 axis never needs communication: keep everything replicated.
        dec = Rules(op->getContext(), 1).replicateAll(numOperands);
      }
      for (size_t i = 0; i < numOperands; ++i)
        operandPlacements[i].push_back(dec.operands[i]);
      resultPlacements.push_back(dec.result);
    }
    OpBuilder b(op);
    StringRef fqn = m::getModuleFQN(op);
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

  ModuleOp module;
  MeshOp mesh;
};

} // namespace

LogicalResult mlir::tp::propagatePlacements(ModuleOp module) {
  MeshOp mesh;
  module.walk([&](MeshOp m) {
    if (!mesh)
      mesh = m;
  });
  if (!mesh)
    return success(); // Nothing is distributed without a mesh.
  Propagator propagator(module, mesh);
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && failed(propagator.run(func)))
      return failure();
  // The style markers are spent once every placement is known.
  module.walk([](Operation *op) { op->removeAttr(kTPAxisAttr); });
  return success();
}

namespace {
struct PropagatePass : public tp::impl::TPPropagatePassBase<PropagatePass> {
  void runOnOperation() override {
    if (failed(propagatePlacements(getOperation())))
      signalPassFailure();
  }
};
} // namespace
