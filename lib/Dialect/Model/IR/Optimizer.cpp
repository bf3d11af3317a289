//===- Optimizer.cpp - optimizer updates and clipping: rules ----*- C++ -*-===//
//
// The sharding rules of the ops tp-optimizer-step emits: the updates are
// element-wise on the parameter's shard, clipping's global norm sums every
// rank's shards. They are not differentiated. Verifiers are in
// ModelGradOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;

/// (param, grad): element-wise on the parameter's shard; the gradient is
/// brought to the parameter's placement.
static AxisRule updateRule(const AxisRuleBuilder &r, ArrayRef<Attribute> in) {
  Attribute p = isa<PartialAttr>(in[0]) ? r.rep() : in[0];
  return {{p, p}, p};
}

AxisRule SGDUpdateOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return updateRule(AxisRuleBuilder(getContext(), n), in);
}
AxisRule AdamWUpdateOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return updateRule(AxisRuleBuilder(getContext(), n), in);
}

/// Not linear, so partial operands are reduced; each rank sums its shards,
/// a partial sum where any operand is sharded (tp-partition counts the
/// replicated ones on one rank only).
AxisRule SumSquaresOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  AxisRuleBuilder r(getContext(), n);
  AxisRule rule;
  bool anyShard = false;
  for (Attribute p : in) {
    anyShard |= r.shardDim(p).has_value();
    rule.operands.push_back(isa<PartialAttr>(p) ? r.rep() : p);
  }
  rule.result = anyShard ? r.partialSum() : r.rep();
  return rule;
}

/// A function of the whole (rank-0) squared norm: the sum is reduced first.
AxisRule ClipCoefficientOp::getAxisRule(ArrayRef<Attribute> in, int64_t n) {
  return AxisRuleBuilder(getContext(), n).replicateAll(in.size());
}
