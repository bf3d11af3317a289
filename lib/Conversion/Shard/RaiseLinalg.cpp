//===- RaiseLinalg.cpp - linalg computation as model ops --------*- C++ -*-===//
//
// The half of import-shard that makes an upstream computation something
// tp's sharding rules know: linalg contractions, element-wise ops,
// reductions and permutations, and tensor reshapes become the model ops
// that compute the same values. What has no model op is an error naming
// the op.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "tp/Conversion/Shard/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

namespace {

/// Whether `v` is a zero fill (`linalg.fill` of a 0.0 constant).
bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  auto c = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : nullptr;
  return f && f.getValue().isZero();
}

/// The init a linalg op accumulates into, as a value a model op can read:
/// a fill of a constant becomes `model.full`; `tensor.empty` is no value.
FailureOr<Value> initValue(OpBuilder &b, Operation *op, Value init) {
  if (init.getDefiningOp<tensor::EmptyOp>())
    return op->emitError() << op->getName()
                           << " reads its init, an uninitialized "
                              "tensor.empty: nothing to import";
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    auto c = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
    auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : nullptr;
    if (!f)
      return op->emitError() << op->getName()
                             << " accumulates into a fill of a non-constant "
                                "value: no model op expresses it";
    return m::FullOp::create(b, op->getLoc(), init.getType(),
                             b.getF64FloatAttr(f.getValueAsDouble()))
        .getResult();
  }
  return init;
}

/// A contraction `[..., m, k] x [k, n]` (or `[..., k, n]`) -> `[..., m, n]`
/// with a multiply-add body, as model.matmul (+ model.add of the init).
FailureOr<Value> raiseMatmul(OpBuilder &b, linalg::GenericOp op) {
  auto fail = [&](const Twine &why) {
    return op.emitError() << "linalg.generic is not a matmul model.matmul "
                             "expresses: "
                          << why;
  };
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return fail("it needs two inputs and one init");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap lhs = maps[0], rhs = maps[1], out = maps[2];
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.size() != 1)
    return fail("it has " + Twine(reductions.size()) +
                " reduction loops, not one");
  if (!out.isProjectedPermutation() || out.getNumResults() < 2)
    return fail("the result map is not a projected permutation of rank >= 2");
  AffineExpr k = getAffineDimExpr(reductions[0], op.getContext());
  SmallVector<AffineExpr> o(out.getResults());
  int64_t r = o.size();
  // lhs [o_0 .. o_{r-2}, k]; rhs [k, o_{r-1}] or [o_0 .. o_{r-3}, k, o_{r-1}].
  SmallVector<AffineExpr> wantLhs(o.begin(), o.end() - 1);
  wantLhs.push_back(k);
  SmallVector<AffineExpr> rhs2 = {k, o[r - 1]};
  SmallVector<AffineExpr> rhsN(o.begin(), o.end() - 2);
  rhsN.push_back(k);
  rhsN.push_back(o[r - 1]);
  if (lhs.getResults() != ArrayRef<AffineExpr>(wantLhs))
    return fail("the lhs map is not [..., m, k]");
  // A weight stored [n, k] (nn.Linear's layout, linalg.matmul with a
  // transposed rhs) is read through a model.transpose.
  SmallVector<AffineExpr> rhsT = {o[r - 1], k};
  bool transposed = rhs.getResults() == ArrayRef<AffineExpr>(rhsT);
  if (!transposed && rhs.getResults() != ArrayRef<AffineExpr>(rhs2) &&
      rhs.getResults() != ArrayRef<AffineExpr>(rhsN))
    return fail("the rhs map is neither [k, n], [n, k] nor [..., k, n]");
  // Body: out + a * b (either order of either op).
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || body.getOperations().size() != 3)
    return fail("its body is not out + a * b");
  Value acc = body.getArgument(2);
  Value prod = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if ((add.getLhs() != acc && add.getRhs() != acc) || !mul ||
      !((mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1)) ||
        (mul.getLhs() == body.getArgument(1) &&
         mul.getRhs() == body.getArgument(0))))
    return fail("its body is not out + a * b");
  Location loc = op.getLoc();
  Type type = op.getResult(0).getType();
  Value rhsValue = op.getDpsInputs()[1];
  if (transposed) {
    auto t = cast<RankedTensorType>(rhsValue.getType());
    rhsValue = m::TransposeOp::create(
        b, loc,
        RankedTensorType::get({t.getDimSize(1), t.getDimSize(0)},
                              t.getElementType()),
        rhsValue, b.getDenseI64ArrayAttr({1, 0}));
  }
  Value mm = m::MatmulOp::create(b, loc, type, op.getDpsInputs()[0], rhsValue);
  Value init = op.getDpsInits()[0];
  if (isZeroFill(init))
    return mm;
  FailureOr<Value> base = initValue(b, op, init);
  if (failed(base))
    return failure();
  return m::AddOp::create(b, loc, type, mm, *base).getResult();
}

/// An element-wise linalg.generic (identity maps, parallel loops): its body
/// replayed on whole tensors with element-wise model ops.
FailureOr<Value> raiseElementwise(OpBuilder &b, linalg::GenericOp op) {
  Location loc = op.getLoc();
  auto outType = cast<RankedTensorType>(op.getResult(0).getType());
  Type elementType = outType.getElementType();
  auto scalarType = RankedTensorType::get({}, elementType);
  Block &body = op.getRegion().front();
  IRMapping map;
  for (auto [arg, in] : llvm::zip(body.getArguments(), op.getDpsInputs()))
    map.map(arg, in);
  BlockArgument outArg = body.getArgument(op.getNumDpsInputs());
  if (!outArg.use_empty()) {
    FailureOr<Value> init = initValue(b, op, op.getDpsInits()[0]);
    if (failed(init))
      return failure();
    map.map(outArg, *init);
  }
  // A value's tensor type: the output's, or rank 0 for constants only.
  auto typeOf = [&](Value x, Value y) -> Type {
    auto tx = cast<RankedTensorType>(x.getType());
    auto ty = cast<RankedTensorType>(y.getType());
    return tx.getRank() >= ty.getRank() ? tx : ty;
  };
  auto full = [&](double v) {
    return m::FullOp::create(b, loc, scalarType, b.getF64FloatAttr(v))
        .getResult();
  };
  for (Operation &inner : body.without_terminator()) {
    auto operand = [&](unsigned i) { return map.lookup(inner.getOperand(i)); };
    Value result =
        llvm::TypeSwitch<Operation *, Value>(&inner)
            .Case([&](arith::ConstantOp c) -> Value {
              auto f = dyn_cast<FloatAttr>(c.getValue());
              return f ? full(f.getValueAsDouble()) : Value();
            })
            .Case([&](arith::AddFOp) -> Value {
              return m::AddOp::create(b, loc, typeOf(operand(0), operand(1)),
                                      operand(0), operand(1));
            })
            .Case([&](arith::SubFOp) -> Value {
              return m::SubOp::create(b, loc, typeOf(operand(0), operand(1)),
                                      operand(0), operand(1));
            })
            .Case([&](arith::MulFOp) -> Value {
              return m::MulOp::create(b, loc, typeOf(operand(0), operand(1)),
                                      operand(0), operand(1));
            })
            .Case([&](arith::NegFOp) -> Value {
              return m::NegOp::create(b, loc, operand(0).getType(), operand(0));
            })
            .Case([&](math::ExpOp) -> Value {
              return m::ExpOp::create(b, loc, operand(0).getType(), operand(0));
            })
            .Case([&](math::LogOp) -> Value {
              return m::LogOp::create(b, loc, operand(0).getType(), operand(0));
            })
            .Case([&](arith::DivFOp) -> Value {
              return m::DivOp::create(b, loc, typeOf(operand(0), operand(1)),
                                      operand(0), operand(1));
            })
            .Case([&](math::TanhOp) -> Value {
              return m::TanhOp::create(b, loc, operand(0).getType(),
                                       operand(0));
            })
            .Case([&](math::ErfOp) -> Value {
              return m::ErfOp::create(b, loc, operand(0).getType(), operand(0));
            })
            .Case([&](math::SqrtOp) -> Value {
              return m::SqrtOp::create(b, loc, operand(0).getType(),
                                       operand(0));
            })
            .Case([&](math::RsqrtOp) -> Value {
              return m::RsqrtOp::create(b, loc, operand(0).getType(),
                                        operand(0));
            })
            .Case([&](math::PowFOp p) -> Value {
              // A constant exponent only: model.pow's is an attribute.
              auto c = p.getRhs().getDefiningOp<arith::ConstantOp>();
              auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : nullptr;
              if (!f)
                return Value();
              return m::PowOp::create(b, loc, operand(0).getType(), operand(0),
                                      b.getF64FloatAttr(f.getValueAsDouble()));
            })
            .Case([&](arith::MaximumFOp mx) -> Value {
              // max(x, 0) is ReLU; other maxima have no model op.
              for (int i = 0; i < 2; ++i) {
                auto c =
                    mx->getOperand(1 - i).getDefiningOp<arith::ConstantOp>();
                auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : nullptr;
                if (f && f.getValue().isZero())
                  return m::ReluOp::create(b, loc, operand(i).getType(),
                                           operand(i));
              }
              return Value();
            })
            .Default([](Operation *) { return Value(); });
    if (!result)
      return op.emitError()
             << "element-wise linalg.generic: its body op '" << inner.getName()
             << "' has no element-wise model op";
    map.map(inner.getResult(0), result);
  }
  Value yielded =
      map.lookup(cast<linalg::YieldOp>(body.getTerminator()).getValues()[0]);
  if (yielded.getType() != outType)
    return op.emitError() << "element-wise linalg.generic yields "
                          << yielded.getType() << ", not its result type "
                          << outType
                          << ": no model op broadcasts a value to a shape";
  return yielded;
}

/// Whether `map` reads the trailing dims of the loops in order
/// (`(d0, d1, d2) -> (d1, d2)`): NumPy broadcasting, which model's binary
/// ops do (dims aligned at the end).
bool isTrailingBroadcast(AffineMap map) {
  int64_t skip = map.getNumDims() - map.getNumResults();
  if (skip < 0 || map.getNumSymbols() != 0)
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || d.getPosition() != skip + i)
      return false;
  }
  return true;
}

/// A generic that only moves the input's dims (a permutation map, a body
/// yielding the input): `model.transpose`, or nothing when it is not one.
std::optional<Value> raiseTranspose(OpBuilder &b, linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Block &body = op.getRegion().front();
  if (op.getNumDpsInputs() != 1 || op.getNumReductionLoops() != 0 ||
      !maps[0].isPermutation() || !maps[1].isIdentity() ||
      body.getOperations().size() != 1 ||
      cast<linalg::YieldOp>(body.getTerminator()).getValues()[0] !=
          body.getArgument(0))
    return std::nullopt;
  // model's permutation[i] is the input dim that becomes dim i.
  SmallVector<int64_t> permutation(maps[0].getNumResults());
  for (auto [j, e] : llvm::enumerate(maps[0].getResults()))
    permutation[cast<AffineDimExpr>(e).getPosition()] = j;
  return m::TransposeOp::create(b, op.getLoc(), op.getResult(0).getType(),
                                op.getDpsInputs()[0],
                                b.getDenseI64ArrayAttr(permutation))
      .getResult();
}

/// A sum or max over one loop of one input read whole: `model.reduce_sum`
/// / `model.reduce_max` (which keep the dim with size 1), reshaped when the
/// result drops the dim, combined with the init unless it is the
/// reduction's identity.
FailureOr<Value> raiseReduction(OpBuilder &b, linalg::GenericOp op) {
  auto fail = [&](const Twine &why) {
    return op.emitError() << "linalg.generic is not a reduction a model op "
                             "expresses: "
                          << why;
  };
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (op.getNumDpsInputs() != 1 || reductions.size() != 1)
    return fail("it needs one input and one reduction loop");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned dim = reductions[0];
  if (!maps[0].isIdentity())
    return fail("its input is not read whole");
  // The result: the loops without `dim`, or with `dim` as a constant 0.
  bool keep = maps[1].getNumResults() == maps[0].getNumResults();
  for (auto [i, e] : llvm::enumerate(maps[1].getResults())) {
    unsigned loop = keep || i < dim ? i : i + 1;
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (keep && loop == dim ? !(c && c.getValue() == 0)
                            : e != getAffineDimExpr(loop, op.getContext()))
      return fail("its result map is not the input's without the reduced "
                  "loop");
  }
  Block &body = op.getRegion().front();
  Value yielded = cast<linalg::YieldOp>(body.getTerminator()).getValues()[0];
  Operation *combine = yielded.getDefiningOp();
  if (!combine || body.getOperations().size() != 2 ||
      !llvm::is_contained(combine->getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(combine->getOperands(), body.getArgument(1)))
    return fail("its body is not one combination of the input and the "
                "accumulator");
  bool isSum = isa<arith::AddFOp>(combine);
  if (!isSum && !isa<arith::MaximumFOp>(combine))
    return fail("its body combines with '" + combine->getName().getStringRef() +
                "', not addf or maximumf");
  Location loc = op.getLoc();
  auto in = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  SmallVector<int64_t> keptShape(in.getShape());
  keptShape[dim] = 1;
  auto keptType = RankedTensorType::get(keptShape, in.getElementType());
  IntegerAttr dimAttr = b.getI64IntegerAttr(dim);
  Value r = isSum ? m::ReduceSumOp::create(b, loc, keptType,
                                           op.getDpsInputs()[0], dimAttr)
                        .getResult()
                  : m::ReduceMaxOp::create(b, loc, keptType,
                                           op.getDpsInputs()[0], dimAttr)
                        .getResult();
  Type type = op.getResult(0).getType();
  if (type != keptType)
    r = m::ReshapeOp::create(b, loc, type, r);
  // The init: nothing to do for the identity (0 for a sum, -inf for a max).
  Value init = op.getDpsInits()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  auto c =
      fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() : nullptr;
  auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : nullptr;
  if (f && (isSum ? f.getValue().isZero()
                  : f.getValue().isInfinity() && f.getValue().isNegative()))
    return r;
  if (!isSum)
    return fail("a max into an init other than -inf has no model op");
  FailureOr<Value> base = initValue(b, op, init);
  if (failed(base))
    return failure();
  return m::AddOp::create(b, loc, type, r, *base).getResult();
}

/// An element-wise generic: parallel loops, an identity result map, inputs
/// read whole or broadcast over leading dims.
bool isElementwise(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 ||
      !llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t == utils::IteratorType::parallel;
      }))
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps.back().isIdentity() &&
         llvm::all_of(ArrayRef<AffineMap>(maps).drop_back(),
                      isTrailingBroadcast);
}

/// Records the ops a builder creates, so that a failed attempt can erase
/// what it made.
struct CreatedOps : public OpBuilder::Listener {
  SmallVector<Operation *> ops;
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
};

/// Why model.generic cannot hold `op` (an operand dim read at a compound
/// index, the result at a reduction loop or twice), or "" when it can.
std::string notGenericReason(linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::string reason;
  llvm::raw_string_ostream os(reason);
  for (auto [i, map, operand] : llvm::enumerate(maps, op->getOperands())) {
    ArrayRef<int64_t> shape = cast<ShapedType>(operand.getType()).getShape();
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto c = dyn_cast<AffineConstantExpr>(expr);
      if (isa<AffineDimExpr>(expr) || (c && c.getValue() == 0 && shape[d] == 1))
        continue;
      os << "it reads operand " << i << " dim " << d << " at ";
      expr.print(os);
      os << " (a model op reads each dim at one loop)";
      return reason;
    }
  }
  llvm::SmallDenseSet<unsigned> seen;
  for (AffineExpr expr : maps.back().getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || iterators[dim.getPosition()] != utils::IteratorType::parallel ||
        !seen.insert(dim.getPosition()).second) {
      os << "its result map ";
      maps.back().print(os);
      os << " does not name parallel loops, each once";
      return reason;
    }
  }
  // The body computes from the elements alone (the loop indices of a
  // linalg.index would be a rank's, not the global ones).
  for (Operation &inner : op.getRegion().front().without_terminator()) {
    StringRef dialect = inner.getName().getDialectNamespace();
    if (dialect != "arith" && dialect != "math") {
      os << "its body uses " << inner.getName()
         << " (model.generic bodies compute with arith and math ops)";
      return reason;
    }
  }
  return reason;
}

/// A generic no model op expresses, kept as model.generic (its rule comes
/// from its maps): the same inputs, maps, iterators and body; the init a
/// value a model op can read (a zero `model.full` when the body does not
/// read it).
FailureOr<Value> keepGeneric(OpBuilder &b, linalg::GenericOp op) {
  Value init = op.getDpsInits()[0];
  Block &block = op.getRegion().front();
  if (block.getArguments().back().use_empty()) {
    init = m::FullOp::create(b, op.getLoc(), init.getType(),
                             b.getF64FloatAttr(0.0))
               .getResult();
  } else {
    FailureOr<Value> value = initValue(b, op, init);
    if (failed(value))
      return failure();
    init = *value;
  }
  SmallVector<Value> operands(op.getDpsInputs());
  operands.push_back(init);
  auto generic = m::GenericOp::create(
      b, op.getLoc(), op.getResult(0).getType(), operands, op.getIndexingMaps(),
      b.getStrArrayAttr(llvm::to_vector(llvm::map_range(
          op.getIteratorTypesArray(), [](utils::IteratorType t) -> StringRef {
            return t == utils::IteratorType::reduction ? "reduction"
                                                       : "parallel";
          }))));
  IRMapping mapping;
  op.getRegion().cloneInto(&generic.getBody(), mapping);
  Block &body = generic.getBody().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  OpBuilder yb(yield);
  m::GenericYieldOp::create(yb, yield.getLoc(), yield.getOperand(0));
  yield.erase();
  return generic.getResult();
}

/// The model ops of a generic: the raised form when one of the recognizers
/// reads it, else model.generic when that can hold it, else an error
/// saying why neither does.
FailureOr<Value> importGeneric(OpBuilder &b, linalg::GenericOp g) {
  CreatedOps created;
  OpBuilder quiet(g, &created);
  FailureOr<Value> raised = failure();
  {
    ScopedDiagnosticHandler silence(g.getContext(),
                                    [](Diagnostic &) { return success(); });
    if (isElementwise(g))
      raised = raiseElementwise(quiet, g);
    else if (std::optional<Value> t = raiseTranspose(quiet, g))
      raised = *t;
    else if (g.getNumDpsInputs() == 1)
      raised = raiseReduction(quiet, g);
    else
      raised = raiseMatmul(quiet, g);
  }
  if (succeeded(raised))
    return raised;
  for (Operation *op : llvm::reverse(created.ops))
    op->erase();
  std::string reason = notGenericReason(g);
  if (!reason.empty())
    return g.emitError() << "linalg.generic has no model op: " << reason;
  return keepGeneric(b, g);
}

/// `x` sliced to `shape` from `offsets` by `strides` (static), one
/// model.slice per dim it cuts.
Value sliceDims(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> offsets,
                ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (offsets[d] == 0 && strides[d] == 1 && sizes[d] == shape[d])
      continue;
    shape[d] = sizes[d];
    x = m::SliceOp::create(b, loc, type.clone(shape), x, b.getI64IntegerAttr(d),
                           b.getI64IntegerAttr(sizes[d] ? offsets[d] : 0),
                           b.getI64IntegerAttr(strides[d]))
            .getResult();
  }
  return x;
}

/// tensor.extract_slice with static offsets, sizes and strides: model.slice
/// per cut dim, and a reshape dropping the dims a rank-reducing slice
/// drops.
FailureOr<Value> raiseExtractSlice(OpBuilder &b, tensor::ExtractSliceOp op) {
  if (ShapedType::isDynamicShape(op.getStaticOffsets()) ||
      ShapedType::isDynamicShape(op.getStaticSizes()) ||
      ShapedType::isDynamicShape(op.getStaticStrides()) ||
      llvm::any_of(op.getStaticStrides(), [](int64_t s) { return s <= 0; }))
    return op.emitError() << "tensor.extract_slice with dynamic or "
                             "non-positive offsets, sizes or strides: "
                             "model.slice takes static ones";
  Value v = sliceDims(b, op.getLoc(), op.getSource(), op.getStaticOffsets(),
                      op.getStaticSizes(), op.getStaticStrides());
  if (v.getType() != op.getType())
    v = m::ReshapeOp::create(b, op.getLoc(), op.getType(), v).getResult();
  return v;
}

/// A constant block of `shape` and `type`'s element type.
Value fullBlock(OpBuilder &b, Location loc, RankedTensorType type,
                ArrayRef<int64_t> shape, double value) {
  return m::FullOp::create(b, loc, type.clone(shape), b.getF64FloatAttr(value))
      .getResult();
}

/// tensor.pad by a constant with static low/high pads >= 0: per padded
/// dim, the value between two constant blocks (model.concat).
FailureOr<Value> raisePad(OpBuilder &b, tensor::PadOp op) {
  Value padding = op.getConstantPaddingValue();
  auto c = padding ? padding.getDefiningOp<arith::ConstantOp>() : nullptr;
  auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : nullptr;
  if (!f)
    return op.emitError() << "tensor.pad by a value that is not a float "
                             "constant: no model op expresses it";
  if (ShapedType::isDynamicShape(op.getStaticLow()) ||
      ShapedType::isDynamicShape(op.getStaticHigh()) ||
      llvm::any_of(op.getStaticLow(), [](int64_t p) { return p < 0; }) ||
      llvm::any_of(op.getStaticHigh(), [](int64_t p) { return p < 0; }))
    return op.emitError() << "tensor.pad with dynamic or negative pads: "
                             "model.concat takes static blocks";
  Value v = op.getSource();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t low = op.getStaticLow()[d], high = op.getStaticHigh()[d];
    if (!low && !high)
      continue;
    SmallVector<Value> parts;
    for (int64_t count : {low, int64_t(-1), high}) {
      if (count < 0) {
        parts.push_back(v);
      } else if (count) {
        SmallVector<int64_t> block(shape);
        block[d] = count;
        parts.push_back(
            fullBlock(b, op.getLoc(), type, block, f.getValueAsDouble()));
      }
    }
    shape[d] += low + high;
    v = m::ConcatOp::create(b, op.getLoc(), type.clone(shape), parts,
                            b.getI64IntegerAttr(d))
            .getResult();
  }
  return v;
}

/// tensor.insert_slice of a unit-stride block that covers the destination
/// on every dim but one: the destination before it, the source, and the
/// destination after it, concatenated along that dim.
FailureOr<Value> raiseInsertSlice(OpBuilder &b, tensor::InsertSliceOp op) {
  auto dest = cast<RankedTensorType>(op.getDest().getType());
  ArrayRef<int64_t> offsets = op.getStaticOffsets(),
                    sizes = op.getStaticSizes(),
                    strides = op.getStaticStrides();
  if (ShapedType::isDynamicShape(offsets) ||
      ShapedType::isDynamicShape(sizes) ||
      llvm::any_of(strides, [](int64_t s) { return s != 1; }) ||
      op.getSourceType().getRank() != dest.getRank())
    return op.emitError() << "tensor.insert_slice with dynamic offsets or "
                             "sizes, strides other than 1 or a rank-reducing "
                             "source: no model op expresses it";
  SmallVector<int64_t> cut;
  for (int64_t d = 0; d < dest.getRank(); ++d)
    if (offsets[d] != 0 || sizes[d] != dest.getDimSize(d))
      cut.push_back(d);
  if (cut.empty())
    return op.getSource();
  if (cut.size() > 1)
    return op.emitError() << "tensor.insert_slice into " << cut.size()
                          << " dims of its destination: model.concat "
                             "joins along one";
  int64_t d = cut.front();
  SmallVector<Value> parts;
  SmallVector<int64_t> zero(dest.getRank(), 0), one(dest.getRank(), 1);
  SmallVector<int64_t> before(dest.getShape()), after(dest.getShape());
  before[d] = offsets[d];
  after[d] = dest.getDimSize(d) - offsets[d] - sizes[d];
  if (before[d])
    parts.push_back(sliceDims(b, op.getLoc(), op.getDest(), zero, before, one));
  parts.push_back(op.getSource());
  if (after[d]) {
    SmallVector<int64_t> start(zero);
    start[d] = offsets[d] + sizes[d];
    parts.push_back(sliceDims(b, op.getLoc(), op.getDest(), start, after, one));
  }
  if (parts.size() == 1)
    return parts.front();
  return m::ConcatOp::create(b, op.getLoc(), dest, parts,
                             b.getI64IntegerAttr(d))
      .getResult();
}

} // namespace

LogicalResult mlir::tp::raiseLinalgToModel(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  // Named ops (linalg.matmul, linalg.tanh, ...) as generics first: one
  // recognizer for each form.
  SmallVector<linalg::LinalgOp> named;
  func.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp, linalg::FillOp>(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op->emitError()
             << op->getName() << " has no generic form to import";
  }
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<linalg::GenericOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
            tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp,
            tensor::PadOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    FailureOr<Value> v =
        llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
            .Case<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
                [&](Operation *o) -> FailureOr<Value> {
                  return m::ReshapeOp::create(b, o->getLoc(),
                                              o->getResult(0).getType(),
                                              o->getOperand(0))
                      .getResult();
                })
            .Case([&](tensor::ExtractSliceOp o) {
              return raiseExtractSlice(b, o);
            })
            .Case(
                [&](tensor::InsertSliceOp o) { return raiseInsertSlice(b, o); })
            .Case([&](tensor::PadOp o) { return raisePad(b, o); })
            .Case([&](tensor::ConcatOp o) -> FailureOr<Value> {
              return m::ConcatOp::create(b, o.getLoc(), o.getType(),
                                         o.getInputs(),
                                         b.getI64IntegerAttr(o.getDim()))
                  .getResult();
            })
            .Case([&](linalg::GenericOp g) -> FailureOr<Value> {
              if (g.getNumResults() != 1)
                return g.emitError()
                       << "linalg.generic with " << g.getNumResults()
                       << " results: model ops have one";
              return importGeneric(b, g);
            });
    if (failed(v))
      return failure();
    op->getResult(0).replaceAllUsesWith(*v);
    op->erase();
  }
  // Inits and scalars nothing reads any more.
  bool erased = true;
  while (erased) {
    erased = false;
    func.walk([&](Operation *op) {
      if (isa<linalg::FillOp, tensor::EmptyOp, arith::ConstantOp, m::FullOp>(
              op) &&
          op->use_empty()) {
        op->erase();
        erased = true;
      }
    });
  }
  WalkResult left = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<linalg::LinalgDialect, tensor::TensorDialect>(op->getDialect())) {
      op->emitError() << op->getName()
                      << " is still read after import-shard raised the "
                         "linalg computation: no model op expresses it";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}
