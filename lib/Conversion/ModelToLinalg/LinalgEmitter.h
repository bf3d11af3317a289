//===- LinalgEmitter.h - building blocks of the model export ----*- C++ -*-===//
//
// Small builders the op conversions share: element-wise generics with
// PyTorch broadcasting, reductions along one dim, fills and reshapes, all on
// static-shaped tensors. Internal to the ModelToLinalg library.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_CONVERSION_MODELTOLINALG_LINALGEMITTER_H
#define TP_LIB_CONVERSION_MODELTOLINALG_LINALGEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tp::linalg_export {

/// Body of a generic: the builder, the block arguments (inputs, then the
/// outputs' current values); returns the values to yield.
using BodyFn =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// Builds linalg/tensor/arith IR at one insertion point and location.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location location() { return loc; }
  MLIRContext *ctx() { return b.getContext(); }

  Type f32() { return b.getF32Type(); }
  Type f64() { return b.getF64Type(); }

  /// A scalar float or integer constant of `type`.
  Value scalar(Type type, double value);
  /// An `index` constant.
  Value index(int64_t value);

  /// `tensor.empty` of `shape` and `elt`.
  Value empty(ArrayRef<int64_t> shape, Type elt);
  /// A tensor of `shape` filled with `value` (linalg.fill).
  Value full(ArrayRef<int64_t> shape, Type elt, double value);
  /// A tensor of `shape` filled with the scalar `value`.
  Value fullOf(ArrayRef<int64_t> shape, Value value);

  /// A generic over `numDims` loops: `inputs` read through `inputMaps`,
  /// `inits` (the outputs' initial values) written through `outputMaps`.
  SmallVector<Value> generic(unsigned numDims, ValueRange inputs,
                             ArrayRef<AffineMap> inputMaps, ValueRange inits,
                             ArrayRef<AffineMap> outputMaps,
                             ArrayRef<utils::IteratorType> iterators,
                             BodyFn body);

  /// An element-wise generic producing a tensor of `shape` and `elt` from
  /// `inputs` broadcast to `shape` (NumPy rules, dims aligned at the end).
  Value elementwise(ArrayRef<int64_t> shape, Type elt, ValueRange inputs,
                    BodyFn body);

  /// The map from the loops of a `shape`-shaped iteration space to an
  /// operand of `operandShape` broadcast to it.
  AffineMap broadcastMap(ArrayRef<int64_t> operandShape,
                         ArrayRef<int64_t> shape);

  /// Reduces `input` along `dim` into a tensor without that dim, element
  /// type `accType`, starting from `init`; `combine(acc, x)` gets the
  /// accumulator and the input element (already as read, not converted).
  Value
  reduceDim(Value input, int64_t dim, Type accType, double init,
            llvm::function_ref<Value(OpBuilder &, Location, Value acc, Value x)>
                combine);

  /// `value` reshaped to `shape` (same number of elements, row-major), by
  /// collapsing to one dim and expanding again.
  Value reshape(Value value, ArrayRef<int64_t> shape);
  /// `value` with a size-1 dim inserted at `dim`.
  Value insertUnitDim(Value value, int64_t dim);
  /// The elements `start + i * step` of `dim` of `value` (the other dims
  /// whole): a strided tensor.extract_slice of result type `type`.
  Value extractAlong(Value value, int64_t dim, int64_t start, int64_t step,
                     RankedTensorType type);
  /// `part` written into `into` at elements `start + i * step` of `dim`:
  /// a strided tensor.insert_slice.
  Value insertAlong(Value part, Value into, int64_t dim, int64_t start,
                    int64_t step);

  // Scalar arithmetic inside bodies.
  Value extF64(Value v);
  Value truncF32(Value v);

private:
  OpBuilder &b;
  Location loc;
};

/// The static shape of a ranked tensor value.
ArrayRef<int64_t> shapeOf(Value v);
/// The element type of a ranked tensor value.
Type eltOf(Value v);
/// Identity map of `n` dims.
AffineMap identityMap(MLIRContext *ctx, unsigned n);
/// A map of `numDims` dims onto the dims `results`.
AffineMap dimsMap(MLIRContext *ctx, unsigned numDims,
                  ArrayRef<unsigned> results);
/// `n` parallel iterators, with the positions in `reductions` reductions.
SmallVector<utils::IteratorType> iterators(unsigned n,
                                           ArrayRef<unsigned> reductions = {});

/// `max(a, b)` that keeps a NaN from either side (tp's maxKeepNaN).
Value maxKeepNaN(OpBuilder &b, Location loc, Value a, Value b2);

/// The `dim` attribute of `op` counted from the front of a `rank`-dim
/// tensor (PyTorch's negative dims count from the back).
template <typename OpT> int64_t frontDim(OpT op, int64_t rank) {
  int64_t dim = op.getDimAttr().getInt();
  return dim < 0 ? dim + rank : dim;
}

} // namespace mlir::tp::linalg_export

namespace mlir::tp::linalg_export {

/// How one model op is exported: its replacement, built at `e`'s insertion
/// point from its converted `operands`; `type` is its result's type.
template <typename OpT>
using BuildFn = Value (*)(OpT op, ValueRange operands, Emitter &e,
                          RankedTensorType type);

/// Replaces `op` by `value`, which must have the type of its one result (a
/// conversion that builds another is a bug, reported on `op`).
LogicalResult replaceExported(Operation *op, Value value,
                              ConversionPatternRewriter &rewriter);

/// The conversion pattern of one model op whose export is a BuildFn.
template <typename OpT> class ExportPattern : public OpConversionPattern<OpT> {
public:
  ExportPattern(MLIRContext *ctx, BuildFn<OpT> build)
      : OpConversionPattern<OpT>(ctx), build(build) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Emitter e(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return replaceExported(op, build(op, adaptor.getOperands(), e, type),
                           rewriter);
  }

private:
  BuildFn<OpT> build;
};

/// Adds the pattern exporting `OpT` with `build`.
template <typename OpT>
void addExport(RewritePatternSet &patterns, BuildFn<OpT> build) {
  patterns.add<ExportPattern<OpT>>(patterns.getContext(), build);
}

/// The patterns of the forward ops (model.linear, model.softmax, ...; a
/// dropout is the driver's: it needs the training step's seed).
void populateForwardExportPatterns(RewritePatternSet &patterns);

/// The patterns of the backward ops and of gradient clipping (the updates
/// are the driver's: they read and write optimizer state).
void populateGradExportPatterns(RewritePatternSet &patterns);
/// The ops that compute or follow integer indices (IndexOps.cpp): topk,
/// gather, gather_grad, one_hot.
void populateIndexExportPatterns(RewritePatternSet &patterns);
/// The mask ops (MaskOps.cpp): compare, logical_not/and/or, where.
void populateMaskExportPatterns(RewritePatternSet &patterns);

/// True for the optimizer updates (sgd_update, adamw_update).
bool isOptimizerUpdate(Operation *op);
/// The state an optimizer update reads and writes besides the parameter
/// (`exp_avg`, `exp_avg_sq`; `momentum_buffer`), each shaped as the
/// parameter; none for SGD without momentum.
SmallVector<StringRef> optimizerStateNames(Operation *op);
/// The updated parameter, then the updated state (in optimizerStateNames'
/// order), of the optimizer update `op` on `operands` (param, grad), given
/// its current `state` and `step`, the rank-0 i64 number (from 1) of the
/// step being taken.
SmallVector<Value> convertOptimizerUpdate(Operation *op, ValueRange operands,
                                          ValueRange state, Value step,
                                          Emitter &e);

/// True for a dropout in training (model.dropout with `train` and p > 0)
/// and model.dropout_grad.
bool isTrainingDropout(Operation *op);
/// `x` times the mask tp's runtime draws for the training dropout `op` (its
/// FQN and p) under the rank-0 i64 `seed` and `step`, over `1 / (1 - p)`.
Value convertTrainingDropout(Operation *op, Value x, Value seed, Value step,
                             Emitter &e);

/// The sum of every element of `input` in `accType` (a scalar Value).
Value sumAll(Emitter &e, Value input, Type accType,
             llvm::function_ref<Value(OpBuilder &, Location, Value)> term);

/// A target id as i64.
Value idAsI64(OpBuilder &b, Location l, Value id);
/// The number of integer `targets` that are not -100 (ignore_index), an
/// f64 scalar Value: a cross entropy's rows.
Value countNotIgnored(Emitter &e, Value targets);

/// Shared by forward and backward: row statistics over the last dim of `x`,
/// as the runtime computes them in f64. `sum` (and `sumSq` for layer norm,
/// the squares around the mean) are [rows...] f64 tensors.
Value rowSumF64(Emitter &e, Value x);
Value rowCenteredSquaresF64(Emitter &e, Value x, Value rowSum);
Value rowSquaresF64(Emitter &e, Value x);

/// The attention probabilities `[b, kv_heads, group, s, t]` (f32, masked
/// entries 0) of `q` `[b, s, heads, d]` and `k` `[b, t, kv_heads, d]`, as
/// the runtime's attention computes them.
Value attentionProbs(Emitter &e, Value q, Value k, bool causal);

/// Rotates the interleaved pairs of `x` `[b, s, h, d]` at position `p` by
/// `p * theta^(-2i/d)` (`inverse`: back), with the runtime's float angles.
Value rotate(Emitter &e, Value x, double theta, bool inverse);

/// `q` `[b, s, heads, d]` as `[b, s, kv_heads, group, d]`.
Value splitHeads(Emitter &e, Value q, int64_t kvHeads);

} // namespace mlir::tp::linalg_export
#endif // TP_LIB_CONVERSION_MODELTOLINALG_LINALGEMITTER_H
