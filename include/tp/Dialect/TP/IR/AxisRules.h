//===- AxisRules.h - sharding rules that op families share ------*- C++ -*-===//
//
// Building blocks for ShardingRuleOpInterface::getAxisRule: the rules that
// whole families of ops share (element-wise, broadcasting, keepdim
// reductions, permutations, reshapes, row-independent ops), so that an op's
// own rule is usually one call. Every rule is for one mesh axis of
// `axisSize` ranks and takes each operand's placement there (a plain tensor
// is Replicate); it may always ask for Replicate, which is correct.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_AXISRULES_H
#define TP_DIALECT_TP_IR_AXISRULES_H

#include "tp/Dialect/TP/IR/TPOps.h"

#include <optional>

namespace mlir::tp {

/// An op's sharding described by factors, in the spirit of Shardy's
/// OpShardingRule (an einsum, in PyTorch's terms): each loop of the op is a
/// factor, and each dim of an operand or of the result is one factor or
/// none (-1: a size-1 dim a broadcast stretches, or a dim read otherwise).
/// A factor the result has is parallel: its shard passes through. A factor
/// only operands have is a reduction: sharding it makes the result a
/// Partial of that reduction. A factor marked replicated (a dim read
/// whole: the row of a softmax, an index) is never sharded. How a Partial
/// operand passes is the op's linearity.
struct FactorRule {
  enum class FactorKind { Parallel, Reduction, Replicated };
  struct Factor {
    FactorKind kind = FactorKind::Parallel;
    /// The reduction of a Reduction factor.
    ReductionKind reduction = ReductionKind::Sum;
  };
  enum class Linearity {
    /// A Partial operand is reduced first (relu, exp, max).
    None,
    /// Linear in each operand alone (mul, matmul, neg, a sum): one
    /// Partial(sum) operand with every other Replicate gives Partial(sum).
    EachOperand,
    /// Linear in the first operand alone (div: a / b): a Partial(sum)
    /// first operand with every other Replicate gives Partial(sum).
    FirstOperand,
    /// Linear in all operands together (add, sub): operands that are all
    /// the same Partial(sum) give it.
    AllOperands,
    /// The op only moves or copies elements (permute, reshape, copy): any
    /// Partial passes.
    MovesElements,
  };

  SmallVector<Factor> factors;
  /// Per operand, per dim: the factor or -1.
  SmallVector<SmallVector<int64_t>> operands;
  /// Per result dim: the factor or -1.
  SmallVector<int64_t> result;
  /// Per operand: its shape, for the cost of moving a shard (elements).
  SmallVector<SmallVector<int64_t>> shapes;
  Linearity linearity = Linearity::None;

  /// Element-wise with NumPy broadcasting over operand shapes `shapes` and
  /// result shape `out` (dims aligned at the end; an operand's size-1 dim
  /// where the result's is larger has no factor).
  static FactorRule elementwise(ArrayRef<SmallVector<int64_t>> shapes,
                                ArrayRef<int64_t> out, Linearity linearity);
  /// Operands and result of one rank whose dim `i` is factor `i` in each
  /// (no broadcasting), except `replicated`, which is never sharded:
  /// slicing and concatenation along it, whose operands and result differ
  /// in size there.
  static FactorRule alongDims(ArrayRef<SmallVector<int64_t>> shapes,
                              int64_t replicated, Linearity linearity);
  /// Einsum notation, one letter per factor ("bij,bjk->bik", "ij->ji");
  /// letters only in operands are sum reductions. `shapes` are the
  /// operands'; a size-1 operand dim where the factor is larger elsewhere
  /// has no factor (broadcasting).
  static FactorRule einsum(StringRef spec,
                           ArrayRef<SmallVector<int64_t>> shapes,
                           Linearity linearity);
};

class AxisRuleBuilder {
public:
  AxisRuleBuilder(MLIRContext *ctx, int64_t axisSize)
      : ctx(ctx), axisSize(axisSize) {}

  int64_t getAxisSize() const { return axisSize; }

  Attribute rep() const;
  Attribute shard(int64_t dim) const;
  Attribute partialSum() const;
  Attribute partial(ReductionKind kind) const;

  /// The tensor dim of a Shard placement, none for others.
  static std::optional<int64_t> shardDim(Attribute placement);
  static bool isPartialSum(Attribute placement);

  /// Everything replicated: always correct.
  AxisRule replicateAll(size_t numOperands) const;

  /// The rule a factor description gives (FactorRule): Partial operands
  /// pass as its linearity allows (others are reduced first); then each
  /// sharded operand dim proposes its factor, and the factor whose choice
  /// moves the fewest elements wins (ties: the earliest operand's): every
  /// operand that has it is sharded on it (a replicated operand's chunk is
  /// free), the others are replicated, and the result is sharded on it or,
  /// for a reduction factor, Partial.
  AxisRule fromFactors(const FactorRule &rule, ArrayRef<Attribute> in) const;

  /// Element-wise, not linear (relu, exp): shards pass through, a partial
  /// is reduced first.
  AxisRule unary(ArrayRef<Attribute> in) const;
  /// Element-wise and linear in its operand (neg, a mean's gradient): a
  /// partial sum passes through too.
  AxisRule linearUnary(ArrayRef<Attribute> in) const;
  /// Each element times a factor >= 0 that depends only on its global index
  /// (dropout): every placement passes (linear, and commutes with max/min).
  AxisRule scaleByIndex(ArrayRef<Attribute> in) const;

  /// Broadcasting binary op over operand shapes `a`, `b` and result shape
  /// `out` (dims aligned at the end). `isAdd`: linear in both operands
  /// (Partial + Partial stays Partial); otherwise linear in each alone
  /// (Partial * Replicate stays Partial). Otherwise the result follows the
  /// operand shard that moves the fewest elements.
  AxisRule broadcastBinary(ArrayRef<Attribute> in, ArrayRef<int64_t> a,
                           ArrayRef<int64_t> b, ArrayRef<int64_t> out,
                           bool isAdd) const;

  /// Ops whose rows along `dim` are independent (softmax, a norm over the
  /// last dim): any other dim may stay sharded; extra operands (the norm's
  /// weight) are replicated.
  AxisRule independentRows(ArrayRef<Attribute> in, int64_t dim) const;

  /// Keepdim reduction of `dim` of kind `kind`: a shard of the reduced dim
  /// becomes a Partial of the same reduction, other shards stay.
  AxisRule keepdimReduce(ArrayRef<Attribute> in, int64_t dim,
                         ReductionKind kind) const;

  /// A permutation (`perm[i]` is the source dim of dim i): shards follow.
  AxisRule permute(ArrayRef<Attribute> in, ArrayRef<int64_t> perm) const;

  /// A reshape from `src` to `dst`: a sharded dim survives when it stays a
  /// whole result dim, or when it becomes (or stays) the leading factor of
  /// a result dim and both sizes divide over the axis. On a mesh of more
  /// axes, tp-propagate passes the shapes the earlier axes leave (a dim
  /// split by dp and then by tp: tp splits dp's part of it).
  AxisRule reshape(ArrayRef<Attribute> in, ArrayRef<int64_t> src,
                   ArrayRef<int64_t> dst) const;

  /// The adjoint of broadcasting `dst` to `src`: shards of summed dims
  /// become partial sums, shards of kept dims stay.
  AxisRule sumTo(ArrayRef<Attribute> in, ArrayRef<int64_t> src,
                 ArrayRef<int64_t> dst) const;

  /// A gradient op (grad, input) that is element-wise, linear in grad and
  /// not in input (an activation's gradient).
  AxisRule elementwiseGrad(ArrayRef<Attribute> in) const;

  /// A gradient op (grad, other) whose rows along `dim` are independent
  /// (softmax's and a keepdim sum's gradient), linear in grad.
  AxisRule independentRowsGrad(ArrayRef<Attribute> in, int64_t dim) const;

private:
  MLIRContext *ctx;
  int64_t axisSize;
};

} // namespace mlir::tp

#endif // TP_DIALECT_TP_IR_AXISRULES_H
