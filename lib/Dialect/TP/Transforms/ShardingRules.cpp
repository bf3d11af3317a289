//===- ShardingRules.cpp - sharding rules of the model ops ------*- C++ -*-===//
//
// The ShardingRuleOpInterface of every model op, attached as external
// models: per mesh axis, which operand placements each op needs and which
// placement its result gets. tp-propagate only talks to the interface, so
// other dialects' ops join the same way.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

namespace {

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
  AxisRule replicateAll(size_t numOperands) {
    return {SmallVector<Attribute>(numOperands, rep()), rep()};
  }

  /// Element-wise unary op: shards pass through, partials are reduced.
  AxisRule unary(ArrayRef<Attribute> in) {
    if (isa<PartialAttr>(in[0]))
      return replicateAll(in.size());
    return {{in[0]}, in[0]};
  }

  /// Broadcasting binary op (`linearInBoth` for add: Partial + Partial of the
  /// same kind stays Partial; mul is linear in one operand only).
  AxisRule binary(ArrayRef<Attribute> in, ArrayRef<int64_t> a,
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
    AxisRule dec;
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
  AxisRule linear(ArrayRef<Attribute> in, int64_t xRank, bool hasBias) {
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
  AxisRule embedding(ArrayRef<Attribute> in, int64_t idsRank) {
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
  AxisRule norm(ArrayRef<Attribute> in, int64_t rank) {
    if (auto d = shardDim(in[0]); d && *d != rank - 1) {
      AxisRule dec{{in[0]}, in[0]};
      for (size_t i = 1; i < in.size(); ++i)
        dec.operands.push_back(rep());
      return dec;
    }
    return replicateAll(in.size());
  }

  AxisRule softmax(ArrayRef<Attribute> in, int64_t dim) {
    if (auto d = shardDim(in[0]); d && *d != dim)
      return {{in[0]}, in[0]};
    return replicateAll(1);
  }

  AxisRule matmul(ArrayRef<Attribute> in, int64_t ra, int64_t rb) {
    auto da = shardDim(in[0]), db = shardDim(in[1]);
    // Linear in each operand: a partial sum times a replicated operand is
    // a partial sum (a backward product of a Partial gradient).
    for (int i = 0; i < 2; ++i)
      if (isPartialSum(in[i]) && isa<ReplicateAttr>(in[1 - i]))
        return {{in[0], in[1]}, in[i]};
    if (da && *da < ra - 2 && (rb == 2 ? isa<ReplicateAttr>(in[1]) : true))
      return {{in[0], rb == 2 ? rep() : shard(*da)}, in[0]};
    if (da == ra - 1 && db == rb - 2)
      return {{in[0], in[1]}, partialSum()};
    if (isa<ReplicateAttr>(in[0]) && db == rb - 1)
      return {{rep(), in[1]}, shard(ra - 1)};
    return replicateAll(2);
  }

  AxisRule transpose(ArrayRef<Attribute> in, ArrayRef<int64_t> perm) {
    if (auto d = shardDim(in[0])) {
      for (auto [i, p] : llvm::enumerate(perm))
        if (p == *d)
          return {{in[0]}, shard(i)};
    }
    return {{in[0]}, in[0]};
  }

  /// A sharded dim survives a reshape when it stays a whole result dim
  /// (the dims before it and after it regroup among themselves, so every
  /// chunk, even an uneven torch.chunk one, reshapes in place), or when it
  /// becomes (or stays) the leading factor of a result dim and both sizes
  /// divide over the axis.
  AxisRule reshape(ArrayRef<Attribute> in, ArrayRef<int64_t> src,
                   ArrayRef<int64_t> dst) {
    if (isa<PartialAttr, ReplicateAttr>(in[0]))
      return {{in[0]}, in[0]};
    int64_t d = *shardDim(in[0]);
    int64_t prefix = 1;
    for (int64_t i = 0; i < d; ++i)
      prefix *= src[i];
    int64_t acc = 1;
    for (int64_t r = 0; r < (int64_t)dst.size(); ++r) {
      if (acc == prefix && dst[r] == src[d])
        return {{in[0]}, shard(r)};
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
  AxisRule reduce(ArrayRef<Attribute> in, int64_t dim, ReductionKind kind) {
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

  /// Mean of all elements: linear in a partial sum; on a shard each rank
  /// divides its sum by the global count (tp-partition sets `count`), a
  /// partial sum of the mean.
  AxisRule mean(ArrayRef<Attribute> in) {
    if (isPartialSum(in[0]) || shardDim(in[0]))
      return {{in[0]}, partialSum()};
    return replicateAll(1);
  }

  /// Cross entropy (logits [N, C], targets [N]): rows are independent, so
  /// rows split over the ranks (a data-parallel batch) give a partial sum
  /// of the mean over the global rows (`count`); a replicated operand is
  /// chunked alike, for free.
  AxisRule crossEntropy(ArrayRef<Attribute> in) {
    if (shardDim(in[0]) == 0 ||
        (isa<ReplicateAttr>(in[0]) && shardDim(in[1]) == 0))
      return {{shard(0), shard(0)}, partialSum()};
    return replicateAll(2);
  }

  /// logits[i, t_i]: on class shards, out-of-shard targets give zero, so the
  /// sum over shards is the value; row shards stay row shards.
  AxisRule targetLogit(ArrayRef<Attribute> in) {
    if (shardDim(in[0]) == 1)
      return {{in[0], rep()}, partialSum()};
    if (shardDim(in[0]) == 0)
      return {{in[0], shard(0)}, shard(0)};
    return replicateAll(2);
  }

  AxisRule rotary(ArrayRef<Attribute> in) {
    if (auto d = shardDim(in[0]); d && (*d == 0 || *d == 2))
      return {{in[0]}, in[0]};
    return replicateAll(1);
  }

  /// Attention per head: heads (dim 2) or batch (dim 0) may be sharded.
  AxisRule attention(ArrayRef<Attribute> in, ArrayRef<int64_t> q,
                     ArrayRef<int64_t> k) {
    auto d = shardDim(in[0]);
    if (d == 2 && q[2] % n == 0 && k[2] % n == 0)
      return {{in[0], in[0], in[0]}, in[0]};
    // Samples are independent: a batch shard works for any chunk sizes.
    if (d == 0)
      return {{in[0], in[0], in[0]}, in[0]};
    return replicateAll(3);
  }

  //===--------------------------------------------------------------------===//
  // Backward ops (ModelGradOps.td). Each is linear in the gradient (operand
  // 0), so a Partial(sum) gradient passes through where the other operands
  // are replicated; a consumer that needs the sum reduces it once.
  //===--------------------------------------------------------------------===//

  static bool isPartialSum(Attribute p) {
    auto partial = dyn_cast<PartialAttr>(p);
    return partial && partial.getKind() == ReductionKind::Sum;
  }

  /// Dropout, forward (eval: the identity; train: times the mask) and
  /// backward: each element times a factor >= 0 that depends only on its
  /// global index, so every placement passes. A shard is scaled by its
  /// slice of the mask; the scaling is linear (Partial sum and avg) and
  /// commutes with max and min (the factor is not negative).
  AxisRule dropout(ArrayRef<Attribute> in) { return {{in[0]}, in[0]}; }

  /// Element-wise ops linear in their one operand (neg): everything passes.
  AxisRule linearUnary(ArrayRef<Attribute> in) {
    if (isa<PartialAttr>(in[0]) && !isPartialSum(in[0]))
      return replicateAll(1);
    return {{in[0]}, in[0]};
  }

  /// grad [..., out] @ weight [out, in] -> [..., in].
  AxisRule linearGradInput(ArrayRef<Attribute> in, int64_t rank) {
    Attribute g = in[0], w = in[1];
    // Colwise weight: the output features of the gradient are sharded with
    // it, and each rank's product is a partial sum.
    if (shardDim(w) == 0)
      return {{shard(rank - 1), w}, partialSum()};
    // Rowwise weight: the input features come out sharded; the gradient
    // must be whole.
    if (shardDim(w) == 1)
      return {{rep(), w}, shard(rank - 1)};
    if (isa<ReplicateAttr>(w)) {
      if (auto d = shardDim(g); d && *d < rank - 1)
        return {{g, rep()}, g};
      if (isPartialSum(g))
        return {{g, rep()}, g};
      // Output features sharded: take the matching rows of the weight.
      if (shardDim(g) == rank - 1)
        return {{g, shard(0)}, partialSum()};
    }
    return replicateAll(2);
  }

  /// Sum over leading dims of grad [..., out]^T @ input [..., in].
  AxisRule linearGradWeight(ArrayRef<Attribute> in, int64_t rank) {
    Attribute g = in[0], x = in[1];
    auto dg = shardDim(g), dx = shardDim(x);
    // The same leading dim (batch, sequence) sharded in both: each rank
    // sums its rows, a partial sum of the whole.
    if (dg && dg == dx && *dg < rank - 1)
      return {{g, x}, partialSum()};
    // Output features sharded (colwise): rows of the weight gradient.
    if (dg == rank - 1)
      return {{g, rep()}, shard(0)};
    // Input features sharded (rowwise): columns.
    if (dx == rank - 1)
      return {{rep(), x}, shard(1)};
    if (isPartialSum(g) && isa<ReplicateAttr>(x))
      return {{g, x}, g};
    // One operand's leading dim sharded, the other whole: chunk it alike.
    if (dg && *dg < rank - 1 && isa<ReplicateAttr>(x))
      return {{g, g}, partialSum()};
    if (dx && *dx < rank - 1 && isa<ReplicateAttr>(g))
      return {{x, x}, partialSum()};
    return replicateAll(2);
  }

  /// The adjoint of broadcasting: shards of summed dims become partial
  /// sums, shards of kept dims stay.
  AxisRule sumTo(ArrayRef<Attribute> in, ArrayRef<int64_t> src,
                 ArrayRef<int64_t> dst) {
    if (isa<ReplicateAttr>(in[0]) || isPartialSum(in[0]))
      return {{in[0]}, in[0]};
    if (auto d = shardDim(in[0])) {
      int64_t kept = *d - static_cast<int64_t>(src.size() - dst.size());
      if (kept < 0 || (dst[kept] == 1 && src[*d] != 1))
        return {{in[0]}, partialSum()};
      return {{in[0]}, shard(kept)};
    }
    return replicateAll(1);
  }

  /// An activation's gradient (grad, input): element-wise, linear in grad,
  /// not in input.
  AxisRule activationGrad(ArrayRef<Attribute> in) {
    Attribute g = in[0], x = isa<PartialAttr>(in[1]) ? rep() : in[1];
    if (isPartialSum(g) && isa<ReplicateAttr>(x))
      return {{g, x}, g};
    if (isa<PartialAttr>(g))
      g = rep();
    // Follow the input's shard (the gradient is chunked or moved to it),
    // else the gradient's.
    if (shardDim(x))
      return {{x, x}, x};
    if (shardDim(g))
      return {{g, g}, g};
    return replicateAll(2);
  }

  /// An optimizer update (param, grad): element-wise on the parameter's
  /// shard; the gradient is brought to the parameter's placement.
  AxisRule update(ArrayRef<Attribute> in) {
    Attribute p = isa<PartialAttr>(in[0]) ? rep() : in[0];
    return {{p, p}, p};
  }

  /// Sum of squares of every operand (clipping's global norm): not linear,
  /// so partial operands are reduced; each rank sums its shards, a partial
  /// sum where any operand is sharded (tp-partition counts the replicated
  /// ones on one rank only).
  AxisRule sumSquares(ArrayRef<Attribute> in) {
    AxisRule dec;
    bool anyShard = false;
    for (Attribute p : in) {
      anyShard |= shardDim(p).has_value();
      dec.operands.push_back(isa<PartialAttr>(p) ? rep() : p);
    }
    dec.result = anyShard ? partialSum() : rep();
    return dec;
  }

  /// The gradient of a mean, spread over the input's shape: linear.
  AxisRule meanGrad(ArrayRef<Attribute> in) { return linearUnary(in); }

  /// Norm backward (grad, input, weight): rows are independent, so a
  /// leading-dim shard of the input (SequenceParallel: the sequence) keeps
  /// the gradient of the input sharded alike; the weight is whole.
  AxisRule normGradInput(ArrayRef<Attribute> in, int64_t rank) {
    auto dx = shardDim(in[1]), dg = shardDim(in[0]);
    if (dx && *dx < rank - 1)
      return {{in[1], in[1], rep()}, in[1]};
    if (isPartialSum(in[0]) && !isa<PartialAttr>(in[1]) && !dx)
      return {{in[0], rep(), rep()}, in[0]};
    if (dg && *dg < rank - 1)
      return {{in[0], in[0], rep()}, in[0]};
    return replicateAll(3);
  }

  /// Norm weight gradient (grad, input): a sum over rows, so rows split
  /// over the ranks give a partial sum (Megatron's sequence-parallel norm
  /// weights, reduced once).
  AxisRule normGradWeight(ArrayRef<Attribute> in, int64_t rank) {
    auto dx = shardDim(in[1]), dg = shardDim(in[0]);
    if (dx && *dx < rank - 1)
      return {{in[1], in[1]}, partialSum()};
    if (isPartialSum(in[0]) && !isa<PartialAttr>(in[1]) && !dx)
      return {{in[0], rep()}, in[0]};
    if (dg && *dg < rank - 1)
      return {{in[0], in[0]}, partialSum()};
    return replicateAll(2);
  }

  /// Embedding table gradient (grad [..., D], ids [...], weight [V, D]):
  /// laid out as the table. Vocabulary rows sharded: each rank scatters
  /// the whole gradient into its rows; columns sharded: the gradient's
  /// columns; a whole table: rows of the lookup split over ranks give a
  /// partial sum.
  AxisRule embeddingGrad(ArrayRef<Attribute> in, int64_t idsRank) {
    Attribute g = in[0], ids = in[1], w = in[2];
    if (shardDim(w) == 0)
      return {{rep(), rep(), w}, w};
    if (shardDim(w) == 1)
      return {{shard(idsRank), rep(), w}, w};
    if (shardDim(ids))
      return {{ids, ids, rep()}, partialSum()};
    if (auto d = shardDim(g); d && *d < idsRank)
      return {{g, g, rep()}, partialSum()};
    if (isPartialSum(g))
      return {{g, rep(), rep()}, g};
    return replicateAll(3);
  }

  /// Softmax backward (grad, output): rows along `dim` are independent.
  AxisRule softmaxGrad(ArrayRef<Attribute> in, int64_t dim) {
    if (auto d = shardDim(in[1]); d && *d != dim)
      return {{in[1], in[1]}, in[1]};
    if (isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]))
      return {{in[0], in[1]}, in[0]};
    if (auto d = shardDim(in[0]); d && *d != dim)
      return {{in[0], in[0]}, in[0]};
    return replicateAll(2);
  }

  /// Rotary backward: as the forward (batch or heads), and linear.
  AxisRule rotaryGrad(ArrayRef<Attribute> in) {
    if (isPartialSum(in[0]))
      return {{in[0]}, in[0]};
    return rotary(in);
  }

  /// Attention backward (grad, q, k, v): heads (dim 2) or batch (dim 0)
  /// sharded in all four, as the forward; linear in the gradient.
  AxisRule attentionGrad(ArrayRef<Attribute> in, ArrayRef<int64_t> q,
                         ArrayRef<int64_t> k) {
    for (Attribute p : {in[1], in[0]}) {
      auto d = shardDim(p);
      if ((d == 2 && q[2] % n == 0 && k[2] % n == 0) || d == 0)
        return {{p, p, p, p}, p};
    }
    if (isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]) &&
        isa<ReplicateAttr>(in[2]) && isa<ReplicateAttr>(in[3]))
      return {{in[0], rep(), rep(), rep()}, in[0]};
    return replicateAll(4);
  }

  /// Keepdim reduction backward (grad, input): laid out as the input. A
  /// shard of the summed dim repeats the whole gradient over the local
  /// extent; a max needs the whole slice to find its maxima.
  AxisRule reduceGrad(ArrayRef<Attribute> in, int64_t dim, bool isMax) {
    if (auto d = shardDim(in[1])) {
      if (*d != dim)
        return {{in[1], in[1]}, in[1]};
      if (!isMax)
        return {{rep(), in[1]}, in[1]};
      return replicateAll(2);
    }
    if (isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]))
      return {{in[0], in[1]}, in[0]};
    if (auto d = shardDim(in[0]); d && *d != dim)
      return {{in[0], in[0]}, in[0]};
    return replicateAll(2);
  }

  /// Cross entropy backward (grad, logits, targets): rows as the forward's
  /// (split rows divide by the global count); linear in the gradient.
  AxisRule crossEntropyGrad(ArrayRef<Attribute> in) {
    if (isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]) &&
        isa<ReplicateAttr>(in[2]))
      return {{in[0], in[1], in[2]}, in[0]};
    if (shardDim(in[1]) == 0 || shardDim(in[2]) == 0)
      return {{rep(), shard(0), shard(0)}, shard(0)};
    return replicateAll(3);
  }

  /// Target logit backward (grad [N, 1], logits [N, C], targets [N]): laid
  /// out as the logits. On class shards each rank writes the targets it
  /// holds (loss_parallel: no communication); rows follow the rows.
  AxisRule targetLogitGrad(ArrayRef<Attribute> in) {
    if (shardDim(in[1]) == 1)
      return {{rep(), in[1], rep()}, in[1]};
    if (shardDim(in[1]) == 0 ||
        (shardDim(in[0]) == 0 && isa<ReplicateAttr>(in[1])))
      return {{shard(0), shard(0), shard(0)}, shard(0)};
    if (isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]))
      return {{in[0], rep(), rep()}, in[0]};
    return replicateAll(3);
  }

private:
  MLIRContext *ctx;
  int64_t n;
};

/// The rule of one model op on an axis of `n` ranks.
AxisRule modelRule(Operation *op, ArrayRef<Attribute> in, int64_t n) {
  Rules rules(op->getContext(), n);
  auto shape = [&](unsigned i) {
    return getTensorLikeShape(op->getOperand(i).getType());
  };
  ArrayRef<int64_t> out = getTensorLikeShape(op->getResult(0).getType());
  // I64Attr getters return uint64_t: normalize dims as signed.
  auto normDim = [&](uint64_t raw) {
    int64_t dim = static_cast<int64_t>(raw);
    return dim < 0 ? dim + (int64_t)shape(0).size() : dim;
  };
  return llvm::TypeSwitch<Operation *, AxisRule>(op)
      .Case<m::ReluOp, m::GeluOp, m::SiluOp, m::ExpOp, m::LogOp, m::DetachOp>(
          [&](Operation *) { return rules.unary(in); })
      .Case<m::DropoutOp, m::DropoutGradOp>(
          [&](Operation *) { return rules.dropout(in); })
      .Case<m::AddOp, m::SubOp>([&](Operation *) {
        return rules.binary(in, shape(0), shape(1), out, true);
      })
      .Case([&](m::MulOp) {
        return rules.binary(in, shape(0), shape(1), out, false);
      })
      .Case([&](m::ReduceMaxOp r) {
        return rules.reduce(in, normDim(r.getDim()), ReductionKind::Max);
      })
      .Case([&](m::ReduceSumOp r) {
        return rules.reduce(in, normDim(r.getDim()), ReductionKind::Sum);
      })
      .Case([&](m::MeanOp) { return rules.mean(in); })
      .Case([&](m::CrossEntropyOp) { return rules.crossEntropy(in); })
      .Case([&](m::TargetLogitOp) { return rules.targetLogit(in); })
      .Case([&](m::LinearOp l) {
        return rules.linear(in, shape(0).size(), l.getBias() != nullptr);
      })
      .Case(
          [&](m::EmbeddingOp) { return rules.embedding(in, shape(0).size()); })
      .Case<m::LayerNormOp, m::RMSNormOp>(
          [&](Operation *) { return rules.norm(in, shape(0).size()); })
      .Case([&](m::SoftmaxOp s) {
        return rules.softmax(in, normDim(s.getDim()));
      })
      .Case([&](m::MatmulOp) {
        return rules.matmul(in, shape(0).size(), shape(1).size());
      })
      .Case([&](m::TransposeOp t) {
        return rules.transpose(in, t.getPermutation());
      })
      .Case([&](m::ReshapeOp) { return rules.reshape(in, shape(0), out); })
      .Case([&](m::RotaryOp) { return rules.rotary(in); })
      .Case([&](m::AttentionOp) {
        return rules.attention(in, shape(0), shape(1));
      })
      .Case([&](m::LinearGradInputOp) {
        return rules.linearGradInput(in, shape(0).size());
      })
      .Case([&](m::LinearGradWeightOp) {
        return rules.linearGradWeight(in, shape(0).size());
      })
      .Case([&](m::SumToOp) { return rules.sumTo(in, shape(0), out); })
      .Case<m::ReluGradOp, m::GeluGradOp, m::SiluGradOp, m::LogGradOp>(
          [&](Operation *) { return rules.activationGrad(in); })
      .Case([&](m::MeanGradOp) { return rules.meanGrad(in); })
      .Case([&](m::SumSquaresOp) { return rules.sumSquares(in); })
      .Case([&](m::NegOp) { return rules.linearUnary(in); })
      .Case<m::LayerNormGradInputOp, m::RMSNormGradInputOp>(
          [&](Operation *) { return rules.normGradInput(in, shape(0).size()); })
      .Case<m::LayerNormGradWeightOp, m::RMSNormGradWeightOp>([&](Operation *) {
        return rules.normGradWeight(in, shape(0).size());
      })
      .Case([&](m::EmbeddingGradOp) {
        return rules.embeddingGrad(in, shape(1).size());
      })
      .Case([&](m::SoftmaxGradOp s) {
        return rules.softmaxGrad(in, normDim(s.getDim()));
      })
      .Case([&](m::RotaryGradOp) { return rules.rotaryGrad(in); })
      .Case<m::AttentionGradQOp, m::AttentionGradKOp, m::AttentionGradVOp>(
          [&](Operation *) {
            return rules.attentionGrad(in, shape(1), shape(2));
          })
      .Case([&](m::ReduceSumGradOp r) {
        return rules.reduceGrad(in, normDim(r.getDim()), /*isMax=*/false);
      })
      .Case([&](m::ReduceMaxGradOp r) {
        return rules.reduceGrad(in, normDim(r.getDim()), /*isMax=*/true);
      })
      .Case([&](m::CrossEntropyGradOp) { return rules.crossEntropyGrad(in); })
      .Case([&](m::TargetLogitGradOp) { return rules.targetLogitGrad(in); })
      .Case<m::SGDUpdateOp, m::AdamWUpdateOp>(
          [&](Operation *) { return rules.update(in); })
      .Default([&](Operation *) {
        return rules.replicateAll(op->getNumOperands());
      });
}

/// The external model every model op with a rule gets.
template <typename OpT>
struct ModelShardingRule
    : public ShardingRuleOpInterface::ExternalModel<ModelShardingRule<OpT>,
                                                    OpT> {
  AxisRule getAxisRule(Operation *op, ArrayRef<Attribute> placements,
                       int64_t axisSize) const {
    return modelRule(op, placements, axisSize);
  }
};

template <typename... OpTs> void attachRules(MLIRContext *ctx) {
  (OpTs::template attachInterface<ModelShardingRule<OpTs>>(*ctx), ...);
}

} // namespace

void mlir::tp::registerModelShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, m::ModelDialect *) {
    attachRules<m::ReluOp, m::GeluOp, m::SiluOp, m::DropoutOp, m::ExpOp,
                m::LogOp, m::AddOp, m::SubOp, m::MulOp, m::ReduceMaxOp,
                m::ReduceSumOp, m::MeanOp, m::CrossEntropyOp, m::TargetLogitOp,
                m::LinearOp, m::EmbeddingOp, m::LayerNormOp, m::RMSNormOp,
                m::SoftmaxOp, m::MatmulOp, m::TransposeOp, m::ReshapeOp,
                m::RotaryOp, m::AttentionOp, m::LinearGradInputOp,
                m::LinearGradWeightOp, m::SumToOp, m::ReluGradOp, m::GeluGradOp,
                m::SiluGradOp, m::MeanGradOp, m::NegOp, m::DetachOp,
                m::LogGradOp, m::LayerNormGradInputOp, m::LayerNormGradWeightOp,
                m::RMSNormGradInputOp, m::RMSNormGradWeightOp,
                m::EmbeddingGradOp, m::SoftmaxGradOp, m::RotaryGradOp,
                m::AttentionGradQOp, m::AttentionGradKOp, m::AttentionGradVOp,
                m::ReduceSumGradOp, m::ReduceMaxGradOp, m::CrossEntropyGradOp,
                m::TargetLogitGradOp, m::DropoutGradOp, m::SGDUpdateOp,
                m::AdamWUpdateOp, m::SumSquaresOp, m::ClipCoefficientOp>(ctx);
  });
}
