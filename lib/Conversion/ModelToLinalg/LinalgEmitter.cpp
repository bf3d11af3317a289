//===- LinalgEmitter.cpp - building blocks of the model export ------------===//
//
// See LinalgEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "LinalgEmitter.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::tp::linalg_export;

ArrayRef<int64_t> mlir::tp::linalg_export::shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

Type mlir::tp::linalg_export::eltOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

AffineMap mlir::tp::linalg_export::identityMap(MLIRContext *ctx, unsigned n) {
  return AffineMap::getMultiDimIdentityMap(n, ctx);
}

AffineMap mlir::tp::linalg_export::dimsMap(MLIRContext *ctx, unsigned numDims,
                                           ArrayRef<unsigned> results) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : results)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

SmallVector<utils::IteratorType>
mlir::tp::linalg_export::iterators(unsigned n, ArrayRef<unsigned> reductions) {
  SmallVector<utils::IteratorType> its(n, utils::IteratorType::parallel);
  for (unsigned r : reductions)
    its[r] = utils::IteratorType::reduction;
  return its;
}

Value mlir::tp::linalg_export::maxKeepNaN(OpBuilder &b, Location loc, Value a,
                                          Value c) {
  // a > c || a != a ? a : c, as the runtime: a NaN on either side wins.
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, c);
  Value aIsNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a);
  Value takeA = arith::OrIOp::create(b, loc, greater, aIsNaN);
  return arith::SelectOp::create(b, loc, takeA, a, c);
}

Value Emitter::scalar(Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  if (type.isIndex())
    return index(static_cast<int64_t>(value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value Emitter::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value Emitter::empty(ArrayRef<int64_t> shape, Type elt) {
  return tensor::EmptyOp::create(b, loc, shape, elt);
}

Value Emitter::full(ArrayRef<int64_t> shape, Type elt, double value) {
  return fullOf(shape, scalar(elt, value));
}

Value Emitter::fullOf(ArrayRef<int64_t> shape, Value value) {
  Value init = empty(shape, value.getType());
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{init})
      .getResult(0);
}

SmallVector<Value> Emitter::generic(unsigned numDims, ValueRange inputs,
                                    ArrayRef<AffineMap> inputMaps,
                                    ValueRange inits,
                                    ArrayRef<AffineMap> outputMaps,
                                    ArrayRef<utils::IteratorType> its,
                                    BodyFn body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.append(outputMaps.begin(), outputMaps.end());
  assert(its.size() == numDims &&
         llvm::all_of(maps,
                      [&](AffineMap m) { return m.getNumDims() == numDims; }) &&
         "every map and the iterators span the generic's loops");
  (void)numDims;
  SmallVector<Type> resultTypes;
  for (Value init : inits)
    resultTypes.push_back(init.getType());
  auto op = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps, its,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> yielded = body(nb, nl, args);
        linalg::YieldOp::create(nb, nl, yielded);
      });
  return SmallVector<Value>(op.getResults());
}

AffineMap Emitter::broadcastMap(ArrayRef<int64_t> operandShape,
                                ArrayRef<int64_t> shape) {
  unsigned n = shape.size(), r = operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < r; ++i) {
    unsigned d = n - r + i;
    if (operandShape[i] == 1 && shape[d] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx()));
    else
      exprs.push_back(getAffineDimExpr(d, ctx()));
  }
  return AffineMap::get(n, 0, exprs, ctx());
}

Value Emitter::elementwise(ArrayRef<int64_t> shape, Type elt, ValueRange inputs,
                           BodyFn body) {
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(shapeOf(in), shape));
  unsigned n = shape.size();
  return generic(n, inputs, maps, {empty(shape, elt)}, {identityMap(ctx(), n)},
                 iterators(n), body)[0];
}

Value Emitter::reduceDim(
    Value input, int64_t dim, Type accType, double init,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  ArrayRef<int64_t> shape = shapeOf(input);
  unsigned n = shape.size();
  SmallVector<int64_t> outShape;
  SmallVector<unsigned> outDims;
  for (unsigned i = 0; i < n; ++i)
    if (i != dim) {
      outShape.push_back(shape[i]);
      outDims.push_back(i);
    }
  Value acc = full(outShape, accType, init);
  return generic(n, {input}, {identityMap(ctx(), n)}, {acc},
                 {dimsMap(ctx(), n, outDims)},
                 iterators(n, {static_cast<unsigned>(dim)}),
                 [&](OpBuilder &nb, Location nl, ValueRange args) {
                   return SmallVector<Value>{combine(nb, nl, args[1], args[0])};
                 })[0];
}

/// Offsets, sizes and strides of the slice of `shape` (the part's) at
/// elements `start + i * step` of `dim`.
static void stridedSlice(OpBuilder &b, ArrayRef<int64_t> shape, int64_t dim,
                         int64_t start, int64_t step,
                         SmallVector<OpFoldResult> &offsets,
                         SmallVector<OpFoldResult> &sizes,
                         SmallVector<OpFoldResult> &strides) {
  offsets.assign(shape.size(), b.getIndexAttr(0));
  strides.assign(shape.size(), b.getIndexAttr(1));
  for (int64_t n : shape)
    sizes.push_back(b.getIndexAttr(n));
  offsets[dim] = b.getIndexAttr(start);
  strides[dim] = b.getIndexAttr(step);
}

Value Emitter::extractAlong(Value value, int64_t dim, int64_t start,
                            int64_t step, RankedTensorType type) {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  stridedSlice(b, type.getShape(), dim, start, step, offsets, sizes, strides);
  return tensor::ExtractSliceOp::create(b, loc, type, value, offsets, sizes,
                                        strides);
}

Value Emitter::insertAlong(Value part, Value into, int64_t dim, int64_t start,
                           int64_t step) {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  stridedSlice(b, cast<RankedTensorType>(part.getType()).getShape(), dim, start,
               step, offsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, part, into, offsets, sizes,
                                       strides);
}

Value Emitter::reshape(Value value, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = shapeOf(value);
  if (from == shape)
    return value;
  Type elt = eltOf(value);
  int64_t numel = 1;
  for (int64_t s : from)
    numel *= s;
  // To one dim: collapse everything, or expand a rank-0 tensor to [1].
  Value flat = value;
  auto flatType = RankedTensorType::get({numel}, elt);
  if (from.empty())
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, value,
                                         ArrayRef<ReassociationIndices>{});
  else if (from.size() > 1) {
    ReassociationIndices all;
    for (unsigned i = 0; i < from.size(); ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                           ArrayRef<ReassociationIndices>{all});
  }
  auto toType = RankedTensorType::get(shape, elt);
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, toType, flat,
                                           ArrayRef<ReassociationIndices>{});
  if (shape.size() == 1)
    return flat;
  ReassociationIndices all;
  for (unsigned i = 0; i < shape.size(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, toType, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

Value Emitter::insertUnitDim(Value value, int64_t dim) {
  SmallVector<int64_t> shape(shapeOf(value));
  shape.insert(shape.begin() + dim, 1);
  return reshape(value, shape);
}

Value Emitter::extF64(Value v) {
  return arith::ExtFOp::create(b, loc, f64(), v);
}

Value Emitter::truncF32(Value v) {
  return arith::TruncFOp::create(b, loc, f32(), v);
}

LogicalResult
mlir::tp::linalg_export::replaceExported(Operation *op, Value value,
                                         ConversionPatternRewriter &rewriter) {
  if (value.getType() != op->getResult(0).getType())
    return op->emitOpError() << "was converted to a " << value.getType()
                             << " instead of " << op->getResult(0).getType();
  rewriter.replaceOp(op, value);
  return success();
}
