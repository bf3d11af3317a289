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

//===----------------------------------------------------------------------===//
// Factor rules
//===----------------------------------------------------------------------===//

FactorRule FactorRule::elementwise(ArrayRef<SmallVector<int64_t>> shapes,
                                   ArrayRef<int64_t> out, Linearity linearity) {
  FactorRule rule;
  rule.linearity = linearity;
  rule.factors.resize(out.size());
  for (size_t r = 0; r < out.size(); ++r)
    rule.result.push_back(static_cast<int64_t>(r));
  for (ArrayRef<int64_t> shape : shapes) {
    SmallVector<int64_t> dims;
    int64_t lead = static_cast<int64_t>(out.size() - shape.size());
    for (auto [k, size] : llvm::enumerate(shape)) {
      int64_t r = static_cast<int64_t>(k) + lead;
      dims.push_back(size == 1 && out[r] != 1 ? -1 : r);
    }
    rule.operands.push_back(std::move(dims));
    rule.shapes.emplace_back(shape.begin(), shape.end());
  }
  return rule;
}

FactorRule FactorRule::alongDims(ArrayRef<SmallVector<int64_t>> shapes,
                                 int64_t replicated, Linearity linearity) {
  FactorRule rule;
  rule.linearity = linearity;
  size_t rank = shapes.front().size();
  rule.factors.resize(rank);
  rule.factors[replicated].kind = FactorKind::Replicated;
  auto dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (const SmallVector<int64_t> &shape : shapes) {
    assert(shape.size() == rank && "operands of one rank");
    rule.operands.push_back(dims);
    rule.shapes.push_back(shape);
  }
  rule.result = dims;
  return rule;
}

FactorRule FactorRule::einsum(StringRef spec,
                              ArrayRef<SmallVector<int64_t>> shapes,
                              Linearity linearity) {
  FactorRule rule;
  rule.linearity = linearity;
  auto [lhs, rhs] = spec.split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  assert(terms.size() == shapes.size() && "one term per operand");
  std::string letters;
  auto factorOf = [&](char c) {
    size_t f = letters.find(c);
    if (f == std::string::npos) {
      letters.push_back(c);
      rule.factors.push_back(Factor{});
      f = letters.size() - 1;
    }
    return static_cast<int64_t>(f);
  };
  // A factor's size is its largest extent: a size-1 dim of it broadcasts.
  SmallVector<int64_t> sizes;
  for (auto [term, shape] : llvm::zip(terms, shapes)) {
    assert(term.size() == shape.size() && "one letter per dim");
    for (auto [c, size] : llvm::zip(term, shape)) {
      int64_t f = factorOf(c);
      sizes.resize(rule.factors.size(), 1);
      sizes[f] = std::max(sizes[f], size);
    }
  }
  for (auto [term, shape] : llvm::zip(terms, shapes)) {
    SmallVector<int64_t> dims;
    for (auto [c, size] : llvm::zip(term, shape)) {
      int64_t f = factorOf(c);
      dims.push_back(size == 1 && sizes[f] != 1 ? -1 : f);
    }
    rule.operands.push_back(std::move(dims));
    rule.shapes.emplace_back(shape.begin(), shape.end());
  }
  for (char c : rhs)
    rule.result.push_back(factorOf(c));
  for (auto [f, factor] : llvm::enumerate(rule.factors))
    if (!llvm::is_contained(rule.result, static_cast<int64_t>(f)))
      factor.kind = FactorKind::Reduction;
  return rule;
}

AxisRule AxisRuleBuilder::fromFactors(const FactorRule &rule,
                                      ArrayRef<Attribute> in) const {
  using Linearity = FactorRule::Linearity;
  size_t n = in.size();
  assert(rule.operands.size() == n && rule.shapes.size() == n &&
         "a factor list and a shape per operand");
  // Partial operands the op's linearity lets through.
  SmallVector<size_t> partials;
  for (size_t i = 0; i < n; ++i)
    if (isa<PartialAttr>(in[i]))
      partials.push_back(i);
  if (!partials.empty()) {
    Attribute p = in[partials.front()];
    bool othersReplicated =
        llvm::all_of(llvm::seq<size_t>(0, n), [&](size_t i) {
          return i == partials.front() || isa<ReplicateAttr>(in[i]);
        });
    switch (rule.linearity) {
    case Linearity::MovesElements:
      if (n == 1)
        return {{p}, p};
      break;
    case Linearity::EachOperand:
      if (partials.size() == 1 && isPartialSum(p) && othersReplicated)
        return {SmallVector<Attribute>(in), p};
      break;
    case Linearity::FirstOperand:
      if (partials.size() == 1 && partials.front() == 0 && isPartialSum(p) &&
          othersReplicated)
        return {SmallVector<Attribute>(in), p};
      break;
    case Linearity::AllOperands:
      if (partials.size() == n && isPartialSum(p) && llvm::all_equal(in))
        return {SmallVector<Attribute>(in), p};
      break;
    case Linearity::None:
      break;
    }
  }
  // Any other Partial is reduced first; shards then decide.
  SmallVector<Attribute> eff(in);
  for (Attribute &a : eff)
    if (isa<PartialAttr>(a))
      a = rep();
  auto dimOf = [&](size_t i, int64_t f) -> std::optional<int64_t> {
    for (auto [d, g] : llvm::enumerate(rule.operands[i]))
      if (g == f)
        return static_cast<int64_t>(d);
    return std::nullopt;
  };
  auto numel = [](ArrayRef<int64_t> shape) {
    int64_t e = 1;
    for (int64_t d : shape)
      e *= d;
    return e;
  };
  // Candidates: the factor of each sharded operand dim. The cost of one is
  // what moves: each operand sharded elsewhere (chunking a replicated
  // operand is local and free).
  std::optional<int64_t> best;
  int64_t bestCost = 0;
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> d = shardDim(eff[i]);
    if (!d || *d < 0 || *d >= static_cast<int64_t>(rule.operands[i].size()))
      continue;
    int64_t f = rule.operands[i][*d];
    if (f < 0 || rule.factors[f].kind == FactorRule::FactorKind::Replicated ||
        best == f)
      continue;
    int64_t cost = 0;
    for (size_t j = 0; j < n; ++j) {
      std::optional<int64_t> have = shardDim(eff[j]);
      if (have && have != dimOf(j, f))
        cost += numel(rule.shapes[j]);
    }
    if (!best || cost < bestCost) {
      best = f;
      bestCost = cost;
    }
  }
  if (!best)
    return replicateAll(n);
  AxisRule out;
  for (size_t j = 0; j < n; ++j) {
    std::optional<int64_t> d = dimOf(j, *best);
    out.operands.push_back(d ? shard(*d) : rep());
  }
  auto r = llvm::find(rule.result, *best);
  if (r != rule.result.end())
    out.result = shard(r - rule.result.begin());
  else
    out.result = partial(rule.factors[*best].reduction);
  return out;
}

//===----------------------------------------------------------------------===//
// Family rules
//===----------------------------------------------------------------------===//

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
  SmallVector<int64_t> sa(a), sb(b);
  return fromFactors(
      FactorRule::elementwise({sa, sb}, out,
                              isAdd ? FactorRule::Linearity::AllOperands
                                    : FactorRule::Linearity::EachOperand),
      in);
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
