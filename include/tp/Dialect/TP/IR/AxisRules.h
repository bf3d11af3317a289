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
  /// a result dim and both sizes divide over the axis.
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
