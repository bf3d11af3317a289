//===- AxisRules.cpp - sharding rules that op families share ----*- C++ -*-===//
//
// The family rules of AxisRules.h. Each is a pure function of the operand
// placements and shapes on one mesh axis.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/AxisRules.h"

using namespace mlir;
using namespace mlir::tp;

Attribute AxisRuleBuilder::rep() const { return ReplicateAttr::get(ctx); }
Attribute AxisRuleBuilder::shard(int64_t dim) const {
  return ShardAttr::get(ctx, dim);
}
Attribute AxisRuleBuilder::partialSum() const {
  return partial(ReductionKind::Sum);
}
Attribute AxisRuleBuilder::partial(ReductionKind kind) const {
  return PartialAttr::get(ctx, kind);
}

std::optional<int64_t> AxisRuleBuilder::shardDim(Attribute placement) {
  if (auto s = dyn_cast<ShardAttr>(placement))
    return s.getDim();
  return std::nullopt;
}

bool AxisRuleBuilder::isPartialSum(Attribute placement) {
  auto partial = dyn_cast<PartialAttr>(placement);
  return partial && partial.getKind() == ReductionKind::Sum;
}

AxisRule AxisRuleBuilder::replicateAll(size_t numOperands) const {
  return {SmallVector<Attribute>(numOperands, rep()), rep()};
}

AxisRule AxisRuleBuilder::unary(ArrayRef<Attribute> in) const {
  if (isa<PartialAttr>(in[0]))
    return replicateAll(in.size());
  return {{in[0]}, in[0]};
}

AxisRule AxisRuleBuilder::linearUnary(ArrayRef<Attribute> in) const {
  if (isa<PartialAttr>(in[0]) && !isPartialSum(in[0]))
    return replicateAll(1);
  return {{in[0]}, in[0]};
}

AxisRule AxisRuleBuilder::scaleByIndex(ArrayRef<Attribute> in) const {
  return {{in[0]}, in[0]};
}

AxisRule AxisRuleBuilder::broadcastBinary(ArrayRef<Attribute> in,
                                          ArrayRef<int64_t> a,
                                          ArrayRef<int64_t> b,
                                          ArrayRef<int64_t> out,
                                          bool isAdd) const {
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
  AxisRule rule;
  for (int i = 0; i < 2; ++i) {
    int64_t local = *best - (rank - (int64_t)shapes[i].size());
    if (local >= 0 && shapes[i][local] != 1)
      rule.operands.push_back(shard(local));
    else
      rule.operands.push_back(rep());
  }
  rule.result = shard(*best);
  return rule;
}

AxisRule AxisRuleBuilder::independentRows(ArrayRef<Attribute> in,
                                          int64_t dim) const {
  if (auto d = shardDim(in[0]); d && *d != dim) {
    AxisRule rule{{in[0]}, in[0]};
    for (size_t i = 1; i < in.size(); ++i)
      rule.operands.push_back(rep());
    return rule;
  }
  return replicateAll(in.size());
}

AxisRule AxisRuleBuilder::keepdimReduce(ArrayRef<Attribute> in, int64_t dim,
                                        ReductionKind kind) const {
  if (auto p = dyn_cast<PartialAttr>(in[0])) {
    if (p.getKind() == kind && kind == ReductionKind::Sum)
      return {{in[0]}, in[0]};
    return replicateAll(1);
  }
  if (shardDim(in[0]) == dim)
    return {{in[0]}, partial(kind)};
  return {{in[0]}, in[0]};
}

AxisRule AxisRuleBuilder::permute(ArrayRef<Attribute> in,
                                  ArrayRef<int64_t> perm) const {
  if (auto d = shardDim(in[0])) {
    for (auto [i, p] : llvm::enumerate(perm))
      if (p == *d)
        return {{in[0]}, shard(i)};
  }
  return {{in[0]}, in[0]};
}

AxisRule AxisRuleBuilder::reshape(ArrayRef<Attribute> in, ArrayRef<int64_t> src,
                                  ArrayRef<int64_t> dst) const {
  if (isa<PartialAttr, ReplicateAttr>(in[0]))
    return {{in[0]}, in[0]};
  // A whole result dim: the dims before it and after it regroup among
  // themselves, so every chunk, even an uneven torch.chunk one, reshapes in
  // place.
  int64_t d = *shardDim(in[0]);
  int64_t prefix = 1;
  for (int64_t i = 0; i < d; ++i)
    prefix *= src[i];
  int64_t acc = 1;
  int64_t n = axisSize;
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

AxisRule AxisRuleBuilder::sumTo(ArrayRef<Attribute> in, ArrayRef<int64_t> src,
                                ArrayRef<int64_t> dst) const {
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

AxisRule AxisRuleBuilder::elementwiseGrad(ArrayRef<Attribute> in) const {
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

AxisRule AxisRuleBuilder::independentRowsGrad(ArrayRef<Attribute> in,
                                              int64_t dim) const {
  if (auto d = shardDim(in[1]); d && *d != dim)
    return {{in[1], in[1]}, in[1]};
  if (isPartialSum(in[0]) && isa<ReplicateAttr>(in[1]))
    return {{in[0], in[1]}, in[0]};
  if (auto d = shardDim(in[0]); d && *d != dim)
    return {{in[0], in[0]}, in[0]};
  return replicateAll(2);
}
