//===- TPToShard.cpp - a partitioned program in upstream ops ----*- C++ -*-===//
//
// convert-tp-to-shard: rewrites the tp ops of a partitioned SPMD program
// into MLIR's shard, tensor, arith, scf and linalg ops, so that upstream
// passes continue from tp's partitioning. Every rewrite keeps what tp's
// runtime computes: groups are the ranks of the listed mesh axes, indexed
// row-major in the listed order (shard's `grid_axes` order), and pieces are
// torch.chunk pieces (ceil(n/k) each, the last ones short or empty).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "tp/Conversion/Shard/Passes.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPCONVERTTPTOSHARDPASS
#include "tp/Conversion/Shard/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {

/// Rewrites one tp op at a time, before the meshes become grids: each op
/// reads the shape of the mesh its symbol resolves to from where it stands
/// (a module nested in the module may hold its own mesh of the same name).
class Exporter {
public:
  LogicalResult convert(Operation *op) {
    currentMesh = {};
    if (auto meshRef = op->getAttrOfType<FlatSymbolRefAttr>("mesh")) {
      auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, meshRef);
      if (!mesh)
        return op->emitError()
               << op->getName() << " names mesh " << meshRef
               << ", which no tp.mesh in its symbol table defines";
      currentMesh = mesh;
    }
    // Every op made for `op` runs in its training phase.
    struct Recorder : public OpBuilder::Listener {
      void notifyOperationInserted(Operation *op,
                                   OpBuilder::InsertPoint) override {
        created.push_back(op);
      }
      SmallVector<Operation *> created;
    } recorder;
    OpBuilder b(op, &recorder);
    FailureOr<Value> result =
        llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
            .Case([&](AllGatherOp o) { return allGather(b, o); })
            .Case([&](AllReduceOp o) { return allReduce(b, o); })
            .Case([&](ReduceScatterOp o) { return reduceScatter(b, o); })
            .Case([&](AllToAllOp o) { return allToAll(b, o); })
            .Case([&](BroadcastOp o) { return broadcast(b, o); })
            .Case([&](ChunkOp o) { return chunk(b, o); })
            .Case([&](PartialFromReplicateOp o) {
              return partialFromReplicate(b, o);
            })
            .Case([&](PackOp o) { return pack(b, o); })
            .Case([&](UnpackOp o) { return unpack(b, o); })
            .Case([&](ShardedEmbeddingOp o) { return embedding(b, o); })
            .Case([&](ShardedEmbeddingGradOp o) { return embeddingGrad(b, o); })
            .Case([&](ShardedTargetLogitOp o) { return targetLogit(b, o); })
            .Case([&](ShardedTargetLogitGradOp o) {
              return targetLogitGrad(b, o);
            })
            .Case<ShardedDropoutOp, ShardedDropoutGradOp>([&](Operation *o) {
              return o->emitError()
                     << o->getName()
                     << " has no upstream form: its mask is tp's runtime "
                        "generator keyed by the module name and the global "
                        "index, which no upstream op computes";
            })
            .Case<DistributeOp, RedistributeOp, FromLocalOp, ToLocalOp>(
                [&](Operation *o) {
                  return o->emitError()
                         << o->getName()
                         << " in a program that is not partitioned: "
                            "convert-tp-to-shard needs tp-partition's output "
                            "(run tp-pipeline first)";
                })
            .Default([&](Operation *o) {
              return o->emitError()
                     << o->getName() << " has no upstream form in "
                     << "convert-tp-to-shard";
            });
    if (failed(result))
      return failure();
    for (Operation *made : recorder.created)
      copyPhase(op, made);
    op->getResult(0).replaceAllUsesWith(*result);
    op->erase();
    return success();
  }

private:
  /// The phase of a training step as a plain string (upstream tools cannot
  /// parse `#tp.phase`).
  static void copyPhase(Operation *from, Operation *to) {
    if (auto phase =
            TPDialect::PhaseAttrHelper(from->getContext()).getAttr(from))
      to->setAttr("tp_phase",
                  StringAttr::get(from->getContext(),
                                  stringifyPhase(phase.getValue())));
  }

  /// The shape of `mesh`, the mesh of the op being converted.
  ArrayRef<int64_t> meshShape(StringRef mesh) {
    assert(currentMesh && currentMesh.getSymName() == mesh &&
           "the mesh of the op being converted");
    return currentMesh.getShape();
  }

  DenseI16ArrayAttr gridAxes(OpBuilder &b, ArrayRef<int64_t> axes) {
    SmallVector<int16_t> v(axes.begin(), axes.end());
    return b.getDenseI16ArrayAttr(v);
  }

  int64_t groupSize(StringRef mesh, ArrayRef<int64_t> axes) {
    int64_t n = 1;
    for (int64_t a : axes)
      n *= meshShape(mesh)[a];
    return n;
  }

  Value index(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// This rank's index in the group of `axes` (row-major over them).
  Value groupIndex(OpBuilder &b, Location loc, StringRef mesh,
                   ArrayRef<int64_t> axes) {
    if (axes.empty())
      return index(b, loc, 0);
    SmallVector<shard::GridAxis> ga(axes.begin(), axes.end());
    auto mi = shard::ProcessMultiIndexOp::create(b, loc, mesh, ga);
    Value idx = mi.getResult()[0];
    for (size_t i = 1; i < axes.size(); ++i) {
      Value scaled = arith::MulIOp::create(
          b, loc, idx, index(b, loc, meshShape(mesh)[axes[i]]));
      idx = arith::AddIOp::create(b, loc, scaled, mi.getResult()[i]);
    }
    return idx;
  }

  /// Size of dim `d` of `v` as an index value.
  Value dimSize(OpBuilder &b, Location loc, Value v, int64_t d) {
    auto t = cast<RankedTensorType>(v.getType());
    if (!t.isDynamicDim(d))
      return index(b, loc, t.getDimSize(d));
    return tensor::DimOp::create(b, loc, v, d);
  }

  /// The first element of this rank's torch.chunk piece of `n` elements
  /// split over `k`: min(n, i * ceil(n / k)).
  Value chunkOffset(OpBuilder &b, Location loc, Value n, int64_t k, Value i) {
    Value piece = arith::CeilDivUIOp::create(b, loc, n, index(b, loc, k));
    Value start = arith::MulIOp::create(b, loc, i, piece);
    return arith::MinUIOp::create(b, loc, start, n);
  }

  /// An all-zero tensor of `like`'s type (and dynamic sizes).
  Value zerosLike(OpBuilder &b, Location loc, Value like) {
    auto t = cast<RankedTensorType>(like.getType());
    Attribute zero = b.getZeroAttr(t.getElementType());
    if (t.hasStaticShape())
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(t, zero));
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.isDynamicDim(d))
        dyn.push_back(tensor::DimOp::create(b, loc, like, d));
    Value empty = tensor::EmptyOp::create(b, loc, t, dyn);
    Value z = arith::ConstantOp::create(b, loc, cast<TypedAttr>(zero));
    return linalg::FillOp::create(b, loc, z, empty).getResult(0);
  }

  Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
    if (v.getType() == type)
      return v;
    return tensor::CastOp::create(b, loc, type, v);
  }

  /// Upstream collectives move equal static pieces; tp's uneven ones have
  /// no counterpart.
  LogicalResult requireStatic(Operation *op) {
    for (Type t :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (!cast<RankedTensorType>(t).hasStaticShape())
        return op->emitError()
               << op->getName()
               << " of uneven (dynamic) pieces has no shard form: upstream "
                  "collectives move equal pieces of static shape";
    return success();
  }

  /// `v` padded with zeros at the end of dim `axis` to `size` elements
  /// (static), the other dims unchanged (static).
  Value padTo(OpBuilder &b, Location loc, Value v, int64_t axis, int64_t size) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<OpFoldResult> low(t.getRank(), b.getIndexAttr(0)),
        high(t.getRank(), b.getIndexAttr(0));
    if (t.isDynamicDim(axis))
      high[axis] = arith::SubIOp::create(b, loc, index(b, loc, size),
                                         dimSize(b, loc, v, axis))
                       .getResult();
    else
      high[axis] = b.getIndexAttr(size - t.getDimSize(axis));
    Value zero = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(t.getElementType())));
    Value padded =
        tensor::PadOp::create(b, loc, Type(), v, low, high, zero).getResult();
    SmallVector<int64_t> shape(t.getShape());
    shape[axis] = size;
    return castTo(b, loc, padded,
                  RankedTensorType::get(shape, t.getElementType()));
  }

  /// Whether every dim of `t` but `axis` is static.
  static bool staticBut(Type t, int64_t axis) {
    auto r = cast<RankedTensorType>(t);
    for (int64_t d = 0; d < r.getRank(); ++d)
      if (d != axis && r.isDynamicDim(d))
        return false;
    return true;
  }

  FailureOr<Value> allGather(OpBuilder &b, AllGatherOp op) {
    Location loc = op.getLoc();
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getGatherAxis();
    int64_t k = groupSize(op.getMesh(), op.getMeshAxes());
    auto gather = [&](Value v, Type type) {
      return shard::AllGatherOp::create(b, loc, type, op.getMeshAttr(),
                                        gridAxes(b, op.getMeshAxes()), v,
                                        b.getIndexAttr(axis))
          .getResult();
    };
    if (in.hasStaticShape() && out.hasStaticShape() &&
        in.getDimSize(axis) * k == out.getDimSize(axis))
      return gather(op.getInput(), out);
    // Uneven torch.chunk pieces of a dim split on these axes only: every
    // piece padded to ceil(n/k) and gathered; the first n rows are then the
    // tensor (the full pieces come first, the short one ends at n).
    if (op.getGlobalSize() || !out.hasStaticShape() || !staticBut(in, axis))
      return op.emitError()
             << "tp.all_gather of uneven pieces of a dim also split on other "
                "mesh axes has no shard form: shard.all_gather concatenates "
                "equal pieces";
    int64_t n = out.getDimSize(axis), piece = (n + k - 1) / k;
    Value padded = padTo(b, loc, op.getInput(), axis, piece);
    SmallVector<int64_t> shape(out.getShape());
    shape[axis] = piece * k;
    Value gathered =
        gather(padded, RankedTensorType::get(shape, out.getElementType()));
    SmallVector<OpFoldResult> offsets(out.getRank(), b.getIndexAttr(0)), sizes,
        strides(out.getRank(), b.getIndexAttr(1));
    for (int64_t d : out.getShape())
      sizes.push_back(b.getIndexAttr(d));
    return tensor::ExtractSliceOp::create(b, loc, out, gathered, offsets, sizes,
                                          strides)
        .getResult();
  }

  static shard::ReductionKind kind(ReductionKind k) {
    switch (k) {
    case ReductionKind::Sum:
      return shard::ReductionKind::Sum;
    case ReductionKind::Avg:
      return shard::ReductionKind::Average;
    case ReductionKind::Max:
      return shard::ReductionKind::Max;
    case ReductionKind::Min:
      return shard::ReductionKind::Min;
    }
    llvm_unreachable("unknown reduction kind");
  }

  FailureOr<Value> allReduce(OpBuilder &b, AllReduceOp op) {
    SmallVector<shard::GridAxis> axes(op.getMeshAxes().begin(),
                                      op.getMeshAxes().end());
    return shard::AllReduceOp::create(b, op.getLoc(), op.getInput(),
                                      op.getMesh(), axes,
                                      kind(op.getReduction()))
        .getResult();
  }

  FailureOr<Value> reduceScatter(OpBuilder &b, ReduceScatterOp op) {
    Location loc = op.getLoc();
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getScatterAxis();
    int64_t k = groupSize(op.getMesh(), op.getMeshAxes());
    if (!in.hasStaticShape() || !staticBut(out, axis))
      return op.emitError()
             << "tp.reduce_scatter of a dynamic input has no shard form: "
                "shard.reduce_scatter scatters equal pieces of a static shape";
    int64_t n = in.getDimSize(axis), piece = (n + k - 1) / k;
    auto scatter = [&](Value v, Type type) {
      return shard::ReduceScatterOp::create(
                 b, loc, type, op.getMeshAttr(), gridAxes(b, op.getMeshAxes()),
                 v,
                 shard::ReductionKindAttr::get(b.getContext(),
                                               kind(op.getReduction())),
                 b.getIndexAttr(axis))
          .getResult();
    };
    if (n % k == 0 && out.hasStaticShape())
      return scatter(op.getInput(), out);
    // Uneven: the input padded with zeros to k equal pieces of ceil(n/k)
    // (the padding only fills rows no rank keeps), scattered, and each
    // rank's torch.chunk piece cut from the front of its padded piece.
    Value padded = padTo(b, loc, op.getInput(), axis, piece * k);
    SmallVector<int64_t> shape(in.getShape());
    shape[axis] = piece;
    Value mine =
        scatter(padded, RankedTensorType::get(shape, in.getElementType()));
    Value idx = groupIndex(b, loc, op.getMesh(), op.getMeshAxes());
    Value total = index(b, loc, n);
    Value start = chunkOffset(b, loc, total, k, idx);
    Value left = arith::SubIOp::create(b, loc, total, start);
    Value size = arith::MinUIOp::create(b, loc, index(b, loc, piece), left);
    SmallVector<OpFoldResult> offsets(in.getRank(), b.getIndexAttr(0)), sizes,
        strides(in.getRank(), b.getIndexAttr(1));
    for (int64_t d = 0; d < in.getRank(); ++d)
      sizes.push_back(d == axis ? OpFoldResult(size)
                                : OpFoldResult(b.getIndexAttr(shape[d])));
    Value slice =
        tensor::ExtractSliceOp::create(b, loc, mine, offsets, sizes, strides);
    return castTo(b, loc, slice, out);
  }

  FailureOr<Value> allToAll(OpBuilder &b, AllToAllOp op) {
    if (failed(requireStatic(op)))
      return failure();
    return shard::AllToAllOp::create(
               b, op.getLoc(), op.getType(), op.getMeshAttr(),
               gridAxes(b, op.getMeshAxes()), op.getInput(),
               b.getIndexAttr(op.getSplitAxis()),
               b.getIndexAttr(op.getConcatAxis()))
        .getResult();
  }

  FailureOr<Value> broadcast(OpBuilder &b, BroadcastOp op) {
    // tp's root is the rank's index in the group; shard's its multi-index
    // over `grid_axes`.
    ArrayRef<int64_t> axes = op.getMeshAxes();
    int64_t root = op.getRoot();
    if (root < 0 || root >= groupSize(op.getMesh(), axes))
      return op.emitError()
             << "tp.broadcast root " << root << " is not a rank of its group";
    SmallVector<int64_t> multi(axes.size());
    for (int64_t i = axes.size() - 1; i >= 0; --i) {
      int64_t size = meshShape(op.getMesh())[axes[i]];
      multi[i] = root % size;
      root /= size;
    }
    return shard::BroadcastOp::create(
               b, op.getLoc(), op.getType(), op.getMeshAttr(),
               gridAxes(b, axes), op.getInput(), b.getDenseI64ArrayAttr(multi),
               ValueRange())
        .getResult();
  }

  FailureOr<Value> chunk(OpBuilder &b, ChunkOp op) {
    Location loc = op.getLoc();
    Value in = op.getInput();
    auto type = cast<RankedTensorType>(in.getType());
    int64_t axis = op.getAxis();
    int64_t k = groupSize(op.getMesh(), op.getMeshAxes());
    Value idx = groupIndex(b, loc, op.getMesh(), op.getMeshAxes());
    SmallVector<OpFoldResult> offsets, sizes,
        strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (d != axis) {
        offsets.push_back(b.getIndexAttr(0));
        sizes.push_back(
            type.isDynamicDim(d)
                ? OpFoldResult(tensor::DimOp::create(b, loc, in, d).getResult())
                : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
        continue;
      }
      if (!type.isDynamicDim(d) && type.getDimSize(d) % k == 0) {
        // Even pieces: a static size at a computed offset.
        int64_t piece = type.getDimSize(d) / k;
        offsets.push_back(
            arith::MulIOp::create(b, loc, idx, index(b, loc, piece))
                .getResult());
        sizes.push_back(b.getIndexAttr(piece));
        continue;
      }
      Value n = dimSize(b, loc, in, d);
      Value start = chunkOffset(b, loc, n, k, idx);
      Value piece = arith::CeilDivUIOp::create(b, loc, n, index(b, loc, k));
      Value left = arith::SubIOp::create(b, loc, n, start);
      offsets.push_back(start);
      sizes.push_back(arith::MinUIOp::create(b, loc, piece, left).getResult());
    }
    Value slice =
        tensor::ExtractSliceOp::create(b, loc, in, offsets, sizes, strides);
    return castTo(b, loc, slice, op.getType());
  }

  FailureOr<Value> partialFromReplicate(OpBuilder &b,
                                        PartialFromReplicateOp op) {
    // avg, max and min of equal values are the value.
    if (op.getReduction() != ReductionKind::Sum)
      return op.getInput();
    Location loc = op.getLoc();
    SmallVector<shard::GridAxis> axes(op.getMeshAxes().begin(),
                                      op.getMeshAxes().end());
    auto mi = shard::ProcessMultiIndexOp::create(b, loc, op.getMesh(), axes);
    Value zero = index(b, loc, 0);
    Value keep;
    for (Value c : mi.getResult()) {
      Value eq =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c, zero);
      keep = keep ? arith::AndIOp::create(b, loc, keep, eq).getResult() : eq;
    }
    if (!keep)
      return op.getInput();
    return arith::SelectOp::create(b, loc, keep, op.getInput(),
                                   zerosLike(b, loc, op.getInput()))
        .getResult();
  }

  FailureOr<Value> pack(OpBuilder &b, PackOp op) {
    Location loc = op.getLoc();
    SmallVector<Value> flat;
    for (Value in : op.getInputs()) {
      auto t = cast<RankedTensorType>(in.getType());
      if (t.getRank() == 0)
        flat.push_back(tensor::ExpandShapeOp::create(
            b, loc, RankedTensorType::get({1}, t.getElementType()), in,
            ArrayRef<ReassociationIndices>{}));
      else if (t.getRank() == 1)
        flat.push_back(in);
      else
        flat.push_back(tensor::CollapseShapeOp::create(
            b, loc, in,
            ArrayRef<ReassociationIndices>{
                llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()))}));
    }
    Value packed = flat.size() == 1
                       ? flat[0]
                       : tensor::ConcatOp::create(b, loc, 0, flat).getResult();
    return castTo(b, loc, packed, op.getType());
  }

  FailureOr<Value> unpack(OpBuilder &b, UnpackOp op) {
    Location loc = op.getLoc();
    auto t = cast<RankedTensorType>(op.getType());
    if (!t.hasStaticShape())
      return op.emitError() << "tp.unpack to a dynamic shape";
    int64_t n = t.getNumElements();
    auto flatType = RankedTensorType::get({n}, t.getElementType());
    Value flat = tensor::ExtractSliceOp::create(
        b, loc, flatType, op.getInput(),
        ArrayRef<OpFoldResult>{b.getIndexAttr(op.getOffset())},
        ArrayRef<OpFoldResult>{b.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    if (t.getRank() == 1)
      return flat;
    if (t.getRank() == 0)
      return tensor::CollapseShapeOp::create(b, loc, t, flat,
                                             ArrayRef<ReassociationIndices>{})
          .getResult();
    return tensor::ExpandShapeOp::create(
               b, loc, t, flat,
               ArrayRef<ReassociationIndices>{
                   llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()))})
        .getResult();
  }

  /// An id (integer or float element) as an index.
  static Value toIndex(OpBuilder &b, Location loc, Value id) {
    if (isa<FloatType>(id.getType()))
      id = arith::FPToSIOp::create(b, loc, b.getI64Type(), id);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
  }

  /// Whether `local` (an id minus this rank's offset) is one of its `count`
  /// rows: 0 <= local < count.
  static Value inRange(OpBuilder &b, Location loc, Value local, Value count) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value ge =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, local, zero);
    Value lt =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, local, count);
    return arith::AndIOp::create(b, loc, ge, lt);
  }

  /// `table[row, col]` when `ok`, zero otherwise, without reading the table
  /// where `row` is out of range (a rank may hold no rows at all).
  static Value guardedExtract(OpBuilder &b, Location loc, Value ok, Value table,
                              Value row, Value col, Type elementType) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{elementType}, ok,
                                  /*withElseRegion=*/true);
    OpBuilder thenB = ifOp.getThenBodyBuilder();
    Value v =
        tensor::ExtractOp::create(thenB, loc, table, ValueRange{row, col});
    scf::YieldOp::create(thenB, loc, v);
    OpBuilder elseB = ifOp.getElseBodyBuilder();
    Value z = arith::ConstantOp::create(
        elseB, loc, cast<TypedAttr>(elseB.getZeroAttr(elementType)));
    scf::YieldOp::create(elseB, loc, z);
    return ifOp.getResult(0);
  }

  /// An empty tensor of `type` whose dynamic sizes are `dims` (index values,
  /// one per dim; only the dynamic ones are read).
  static Value emptyOf(OpBuilder &b, Location loc, RankedTensorType type,
                       ArrayRef<Value> dims) {
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dyn.push_back(dims[d]);
    return tensor::EmptyOp::create(b, loc, type, dyn);
  }

  FailureOr<Value> embedding(OpBuilder &b, ShardedEmbeddingOp op) {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Value ids = op.getIds(), weight = op.getWeight();
    int64_t idRank = cast<RankedTensorType>(ids.getType()).getRank();
    Value idx = groupIndex(b, loc, op.getMesh(), op.getMeshAxes());
    Value offset = chunkOffset(b, loc, index(b, loc, op.getVocabSize()),
                               groupSize(op.getMesh(), op.getMeshAxes()), idx);
    Value rows = dimSize(b, loc, weight, 0);
    SmallVector<Value> dims;
    for (int64_t d = 0; d < idRank; ++d)
      dims.push_back(dimSize(b, loc, ids, d));
    dims.push_back(dimSize(b, loc, weight, 1));
    Value init = emptyOf(b, loc, resultType, dims);
    MLIRContext *ctx = b.getContext();
    int64_t loops = idRank + 1;
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(idRank),
        AffineMap::getMultiDimIdentityMap(loops, ctx)};
    SmallVector<utils::IteratorType> iters(loops,
                                           utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, resultType, ValueRange{ids}, ValueRange{init}, maps, iters,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value local =
              arith::SubIOp::create(nb, nl, toIndex(nb, nl, args[0]), offset);
          Value ok = inRange(nb, nl, local, rows);
          Value col = linalg::IndexOp::create(nb, nl, idRank);
          Value v = guardedExtract(nb, nl, ok, weight, local, col, elementType);
          linalg::YieldOp::create(nb, nl, v);
        });
    return generic.getResult(0);
  }

  FailureOr<Value> targetLogit(OpBuilder &b, ShardedTargetLogitOp op) {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Value logits = op.getLogits(), targets = op.getTargets();
    Value idx = groupIndex(b, loc, op.getMesh(), op.getMeshAxes());
    Value offset = chunkOffset(b, loc, index(b, loc, op.getNumClasses()),
                               groupSize(op.getMesh(), op.getMeshAxes()), idx);
    Value classes = dimSize(b, loc, logits, 1);
    Value init = emptyOf(b, loc, resultType,
                         {dimSize(b, loc, targets, 0), index(b, loc, 1)});
    MLIRContext *ctx = b.getContext();
    AffineExpr i = getAffineDimExpr(0, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {i}, ctx),
                                   AffineMap::getMultiDimIdentityMap(2, ctx)};
    SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, resultType, ValueRange{targets}, ValueRange{init}, maps, iters,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value local =
              arith::SubIOp::create(nb, nl, toIndex(nb, nl, args[0]), offset);
          Value ok = inRange(nb, nl, local, classes);
          Value row = linalg::IndexOp::create(nb, nl, 0);
          Value v = guardedExtract(nb, nl, ok, logits, row, local, elementType);
          linalg::YieldOp::create(nb, nl, v);
        });
    return generic.getResult(0);
  }

  FailureOr<Value> embeddingGrad(OpBuilder &b, ShardedEmbeddingGradOp op) {
    // Row r of the result sums the gradient rows whose id is offset + r:
    // a reduction over the ids' dims.
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    if (!isa<FloatType>(elementType))
      return op.emitError() << "tp.sharded_embedding_grad of a non-float "
                               "element type";
    Value grad = op.getGrad(), ids = op.getIds(), weight = op.getWeight();
    int64_t idRank = cast<RankedTensorType>(ids.getType()).getRank();
    Value idx = groupIndex(b, loc, op.getMesh(), op.getMeshAxes());
    Value offset = chunkOffset(b, loc, index(b, loc, op.getVocabSize()),
                               groupSize(op.getMesh(), op.getMeshAxes()), idx);
    Value init =
        emptyOf(b, loc, resultType,
                {dimSize(b, loc, weight, 0), dimSize(b, loc, weight, 1)});
    Value zero = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(elementType)));
    Value zeros = linalg::FillOp::create(b, loc, zero, init).getResult(0);
    // Loops: (r, d, n_0 .. n_{idRank-1}).
    MLIRContext *ctx = b.getContext();
    int64_t loops = idRank + 2;
    SmallVector<AffineExpr> idExprs, gradExprs;
    for (int64_t k = 0; k < idRank; ++k)
      idExprs.push_back(getAffineDimExpr(2 + k, ctx));
    gradExprs = idExprs;
    gradExprs.push_back(getAffineDimExpr(1, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, idExprs, ctx),
        AffineMap::get(loops, 0, gradExprs, ctx),
        AffineMap::get(loops, 0,
                       {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)},
                       ctx)};
    SmallVector<utils::IteratorType> iters(loops,
                                           utils::IteratorType::reduction);
    iters[0] = iters[1] = utils::IteratorType::parallel;
    auto generic = linalg::GenericOp::create(
        b, loc, resultType, ValueRange{ids, grad}, ValueRange{zeros}, maps,
        iters, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value r = linalg::IndexOp::create(nb, nl, 0);
          Value row = arith::AddIOp::create(nb, nl, offset, r);
          Value match = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                              toIndex(nb, nl, args[0]), row);
          Value z = arith::ConstantOp::create(
              nb, nl, cast<TypedAttr>(nb.getZeroAttr(elementType)));
          Value g = arith::SelectOp::create(nb, nl, match, args[1], z);
          linalg::YieldOp::create(
              nb, nl, arith::AddFOp::create(nb, nl, args[2], g).getResult());
        });
    return generic.getResult(0);
  }

  FailureOr<Value> targetLogitGrad(OpBuilder &b, ShardedTargetLogitGradOp op) {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Value grad = op.getGrad(), logits = op.getLogits(),
          targets = op.getTargets();
    Value idx = groupIndex(b, loc, op.getMesh(), op.getMeshAxes());
    Value offset = chunkOffset(b, loc, index(b, loc, op.getNumClasses()),
                               groupSize(op.getMesh(), op.getMeshAxes()), idx);
    Value init =
        emptyOf(b, loc, resultType,
                {dimSize(b, loc, logits, 0), dimSize(b, loc, logits, 1)});
    MLIRContext *ctx = b.getContext();
    AffineExpr i = getAffineDimExpr(0, ctx);
    SmallVector<AffineMap> maps = {
        AffineMap::get(2, 0, {i, getAffineConstantExpr(0, ctx)}, ctx),
        AffineMap::get(2, 0, {i}, ctx),
        AffineMap::getMultiDimIdentityMap(2, ctx)};
    SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, resultType, ValueRange{grad, targets}, ValueRange{init}, maps,
        iters, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value c = linalg::IndexOp::create(nb, nl, 1);
          Value cls = arith::AddIOp::create(nb, nl, offset, c);
          Value match = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                              toIndex(nb, nl, args[1]), cls);
          Value z = arith::ConstantOp::create(
              nb, nl, cast<TypedAttr>(nb.getZeroAttr(elementType)));
          linalg::YieldOp::create(
              nb, nl,
              arith::SelectOp::create(nb, nl, match, args[0], z).getResult());
        });
    return generic.getResult(0);
  }

  /// The mesh of the op being converted (null for an op without one).
  MeshOp currentMesh;
};

/// Removes tp's discardable attributes from `op` (a training phase stays
/// as the string `tp_phase`).
void stripAttributes(Operation *op) {
  MLIRContext *ctx = op->getContext();
  StringAttr phaseName = TPDialect::PhaseAttrHelper(ctx).getName();
  SmallVector<StringAttr> drop;
  for (NamedAttribute a : op->getDiscardableAttrs()) {
    if (!a.getName().strref().starts_with("tp."))
      continue;
    if (a.getName() == phaseName)
      if (auto phase = dyn_cast<PhaseAttr>(a.getValue()))
        op->setAttr("tp_phase",
                    StringAttr::get(ctx, stringifyPhase(phase.getValue())));
    drop.push_back(a.getName());
  }
  for (StringAttr name : drop)
    op->removeDiscardableAttr(name);
  if (auto func = dyn_cast<func::FuncOp>(op)) {
    auto stripAll = [&](auto getAttrs, auto removeAttr, unsigned n) {
      for (unsigned i = 0; i < n; ++i) {
        SmallVector<StringAttr> names;
        for (NamedAttribute a : getAttrs(i))
          // Which parameter a training step's result is the gradient or
          // the update of (tp.grad_of, tp.updated) is a plain string that
          // upstream tools parse: it stays.
          if (a.getName().strref().starts_with("tp.") &&
              !isa<StringAttr>(a.getValue()))
            names.push_back(a.getName());
        for (StringAttr name : names)
          removeAttr(i, name);
      }
    };
    auto attrs = [](DictionaryAttr d) {
      return d ? d.getValue() : ArrayRef<NamedAttribute>();
    };
    stripAll([&](unsigned i) { return attrs(func.getArgAttrDict(i)); },
             [&](unsigned i, StringAttr n) { func.removeArgAttr(i, n); },
             func.getNumArguments());
    stripAll([&](unsigned i) { return attrs(func.getResultAttrDict(i)); },
             [&](unsigned i, StringAttr n) { func.removeResultAttr(i, n); },
             func.getNumResults());
  }
}

} // namespace

LogicalResult mlir::tp::convertTPToShard(ModuleOp module) {
  // A plan not yet lowered would lose its meaning with the tp attributes.
  if (failed(checkPassPrecondition(module, TPPass::ConvertTPToShard)))
    return failure();
  Exporter exporter;
  // Ops first (they read the meshes' shapes), in program order; the meshes
  // of nested modules too.
  SmallVector<Operation *> ops;
  SmallVector<MeshOp> meshes;
  module.walk([&](Operation *op) {
    if (auto mesh = dyn_cast<MeshOp>(op))
      meshes.push_back(mesh);
    else if (isa<TPDialect>(op->getDialect()))
      ops.push_back(op);
  });
  for (Operation *op : ops)
    if (failed(exporter.convert(op)))
      return failure();
  for (MeshOp mesh : meshes) {
    OpBuilder b(mesh);
    shard::GridOp::create(b, mesh.getLoc(), mesh.getSymNameAttr(),
                          mesh.getShapeAttr());
    mesh.erase();
  }
  module.walk([](Operation *op) { stripAttributes(op); });
  return success();
}

namespace {
struct ConvertTPToShardPass
    : public tp::impl::TPConvertTPToShardPassBase<ConvertTPToShardPass> {
  void runOnOperation() override {
    if (failed(convertTPToShard(getOperation())))
      signalPassFailure();
  }
};
} // namespace
