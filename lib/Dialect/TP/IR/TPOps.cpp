//===- TPOps.cpp - tp dialect operations ------------------------*- C++ -*-===//
//
// Verifiers: local facts in verify(), facts that need the mesh symbol in
// verifySymbolUses (as upstream's shard dialect splits them); the
// collectives' one-rank folders.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tp;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

// The mesh shape uses MLIR's own `custom<DimensionList>` (parse/print of
// `2x4`, declared in mlir/IR/OpImplementation.h).

/// SymbolTable::getNearestSymbolTable(from), answered without its generic
/// trait query where it can be: that query is a virtual call and a scan of
/// the op's traits, about 200 instructions per ancestor, and the verifier
/// asks for the mesh of every tp op after every pass (verifySymbolUses).
/// Kept because it is measurably cheaper (bench/findings.md, step 3): the
/// 1000-layer MLP of bench/gen_mlp.py through --tp-pipeline takes 524.0 M
/// instructions (callgrind) with it and 531.2 M with upstream's walk.
static Operation *getNearestSymbolTable(Operation *from) {
  for (Operation *op = from; op; op = op->getParentOp()) {
    // The usual scope of a mesh.
    if (isa<ModuleOp>(op))
      return op;
    // A symbol table has one region; tp ops have none.
    if (op->getNumRegions() == 0)
      continue;
    // An unregistered op with one region may be a symbol table whose
    // symbols nothing can see: no scope, as upstream decides.
    if (op->getNumRegions() == 1 && !op->getDialect())
      return nullptr;
    if (op->hasTrait<OpTrait::SymbolTable>())
      return op;
  }
  return nullptr;
}

MeshOp mlir::tp::lookupMesh(Operation *from, FlatSymbolRefAttr sym,
                            SymbolTableCollection *symbolTable) {
  Operation *found = nullptr;
  if (Operation *table = getNearestSymbolTable(from))
    found = symbolTable ? symbolTable->lookupSymbolIn(table, sym.getAttr())
                        : SymbolTable::lookupSymbolIn(table, sym.getAttr());
  auto mesh = dyn_cast_or_null<MeshOp>(found);
  if (!mesh)
    from->emitOpError() << "references mesh " << sym
                        << ", which is not a tp.mesh in scope";
  return mesh;
}

int64_t mlir::tp::chunkSize(int64_t size, int64_t parts, int64_t index) {
  int64_t chunk = (size + parts - 1) / parts;
  int64_t begin = std::min(size, index * chunk);
  int64_t end = std::min(size, begin + chunk);
  return end - begin;
}

RankedTensorType mlir::tp::getLocalType(DTensorType type, MeshOp mesh) {
  SmallVector<int64_t> shape(type.getShape());
  // A dim sharded over several axes is split by each in turn (the order
  // does not change whether the split is even, nor its static size).
  for (auto [axis, p] : llvm::enumerate(type.getPlacements())) {
    std::optional<int64_t> dim = getSplitDim(p);
    if (!dim)
      continue;
    int64_t &d = shape[*dim];
    if (ShapedType::isDynamic(d))
      continue;
    int64_t parts = mesh.getShape()[axis];
    d = d % parts == 0 ? d / parts : ShapedType::kDynamic;
  }
  return RankedTensorType::get(shape, type.getElementType());
}

SmallVector<int64_t> mlir::tp::getMaxLocalShape(DTensorType type, MeshOp mesh) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [axis, p] : llvm::enumerate(type.getPlacements()))
    if (std::optional<int64_t> dim = getSplitDim(p);
        dim && !ShapedType::isDynamic(shape[*dim]))
      shape[*dim] = chunkSize(shape[*dim], mesh.getShape()[axis], 0);
  return shape;
}

/// Checks that `mesh` exists and that `axes` are valid, distinct axes of it.
static FailureOr<MeshOp> verifyMeshAndAxes(Operation *op,
                                           FlatSymbolRefAttr meshSym,
                                           ArrayRef<int64_t> axes,
                                           SymbolTableCollection &tables) {
  MeshOp mesh = lookupMesh(op, meshSym, &tables);
  if (!mesh)
    return failure();
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t a : axes) {
    if (a < 0 || a >= mesh.getRank())
      return op->emitOpError()
             << "mesh axis " << a << " is out of range for mesh "
             << mesh.getSymName() << " of rank " << mesh.getRank();
    if (!seen.insert(a).second)
      return op->emitOpError() << "mesh axis " << a << " is listed twice";
  }
  return mesh;
}

static int64_t groupSize(MeshOp mesh, ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= mesh.getShape()[a];
  return n;
}

/// Checks a dtensor type against the mesh it names; returns that mesh.
static FailureOr<MeshOp> verifyDTensorOnMesh(Operation *op, DTensorType type,
                                             SymbolTableCollection &tables) {
  auto mesh = verifyMeshAndAxes(op, type.getMesh(), {}, tables);
  if (failed(mesh))
    return failure();
  if ((int64_t)type.getPlacements().size() != mesh->getRank())
    return op->emitOpError() << "dtensor has " << type.getPlacements().size()
                             << " placements but mesh " << mesh->getSymName()
                             << " has " << mesh->getRank() << " axes";
  return mesh;
}

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

LogicalResult MeshOp::verify() {
  if (getShape().empty())
    return emitOpError("mesh must have at least one axis");
  int64_t ranks = 1;
  for (int64_t d : getShape()) {
    if (d <= 0)
      return emitOpError() << "mesh axis sizes must be positive, got " << d;
    if (llvm::MulOverflow(ranks, d, ranks))
      return emitOpError("mesh has more ranks than fit in 64 bits");
  }
  if (auto names = getAxisNames()) {
    if ((int64_t)names->size() != getRank())
      return emitOpError() << "mesh has " << getRank() << " axes but "
                           << names->size() << " axis names";
    llvm::StringSet<> seen;
    for (Attribute n : *names) {
      StringRef name = cast<StringAttr>(n).getValue();
      if (name.empty())
        return emitOpError("mesh axis names must not be empty");
      if (!seen.insert(name).second)
        return emitOpError() << "mesh axis name '" << name << "' is used twice";
    }
  }
  return success();
}

/// Checks the dtensors named `mesh` that no tp op checks: values that only
/// other dialects' ops define and use (tp ops verify their own operands and
/// results, with their own messages).
LogicalResult MeshOp::verifySymbolUses(SymbolTableCollection &) {
  Operation *scope = getNearestSymbolTable(*this);
  if (!scope)
    return success();
  StringRef name = getSymName();
  int64_t rank = getRank();
  auto isTP = [](Operation *op) { return isa<TPDialect>(op->getDialect()); };
  auto check = [&](Value v, Operation *owner,
                   const Twine &what) -> LogicalResult {
    auto type = dyn_cast<DTensorType>(v.getType());
    if (!type || type.getMesh().getValue() != name ||
        (int64_t)type.getPlacements().size() == rank)
      return success();
    if (isTP(owner) || llvm::any_of(v.getUsers(), isTP))
      return success();
    InFlightDiagnostic diag = owner->emitOpError()
                              << what << " has type " << type << " with "
                              << type.getPlacements().size()
                              << " placements, but mesh @" << name << " has "
                              << rank << (rank == 1 ? " axis" : " axes");
    diag.attachNote(getLoc()) << "mesh @" << name << " declared here";
    return diag;
  };
  WalkResult result = scope->walk<WalkOrder::PreOrder>([&](Operation *op) {
    // A nested symbol table has its own meshes (an op without regions is
    // none: asked first, it spares most ops the trait lookup).
    if (op != scope && op->getNumRegions() != 0 &&
        op->hasTrait<OpTrait::SymbolTable>())
      return WalkResult::skip();
    for (OpResult r : op->getResults())
      if (failed(check(r, op, "result #" + Twine(r.getResultNumber()))))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(arg, op, "argument #" + Twine(arg.getArgNumber()))))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

int64_t MeshOp::getNumRanks() {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

int64_t MeshOp::getAxisIndex(StringRef name) {
  if (auto names = getAxisNames())
    for (auto [i, n] : llvm::enumerate(*names))
      if (cast<StringAttr>(n).getValue() == name)
        return i;
  return -1;
}

std::string MeshOp::getAxisName(int64_t axis) {
  if (auto names = getAxisNames())
    return cast<StringAttr>((*names)[axis]).getValue().str();
  return "axis" + std::to_string(axis);
}

//===----------------------------------------------------------------------===//
// DTensor ops
//===----------------------------------------------------------------------===//

LogicalResult DistributeOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "input " << in
                         << " does not match the global type of " << out;
  return success();
}

LogicalResult
DistributeOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyDTensorOnMesh(*this, getResult().getType(), symbolTable);
}

LogicalResult RedistributeOp::verify() {
  DTensorType in = getInput().getType();
  DTensorType out = getResult().getType();
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError("redistribute must keep the global shape and element "
                       "type");
  if (in.getMesh() != out.getMesh())
    return emitOpError() << "redistribute cannot change the mesh ("
                         << in.getMesh() << " to " << out.getMesh() << ")";
  // Every change of placements keeps the global value, so every pair is a
  // valid op; tp-lower-redistribute rejects the ones it cannot lower
  // (Shard -> Partial), with the mesh axis by name.
  if (in.getPlacements().size() != out.getPlacements().size())
    return emitOpError("redistribute must keep the number of placements");
  return success();
}

LogicalResult
RedistributeOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyDTensorOnMesh(*this, getInput().getType(), symbolTable);
}

OpFoldResult RedistributeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

/// Local shape of `type` must match `local` (dynamic dims match anything).
static LogicalResult verifyLocalType(Operation *op, DTensorType type,
                                     RankedTensorType local,
                                     SymbolTableCollection &tables) {
  FailureOr<MeshOp> mesh = verifyDTensorOnMesh(op, type, tables);
  if (failed(mesh))
    return failure();
  RankedTensorType expected = getLocalType(type, *mesh);
  if (expected.getRank() != local.getRank() ||
      expected.getElementType() != local.getElementType())
    return op->emitOpError() << "local type " << local
                             << " does not match the shard type " << expected;
  for (auto [e, l] : llvm::zip(expected.getShape(), local.getShape()))
    if (!ShapedType::isDynamic(e) && !ShapedType::isDynamic(l) && e != l)
      return op->emitOpError() << "local type " << local
                               << " does not match the shard type " << expected;
  return success();
}

LogicalResult FromLocalOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyLocalType(*this, getResult().getType(), getInput().getType(),
                         tables);
}

LogicalResult ToLocalOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyLocalType(*this, getInput().getType(), getResult().getType(),
                         tables);
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

static LogicalResult checkAxis(Operation *op, StringRef name, int64_t axis,
                               int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << name << " " << axis << " is out of range for a tensor of rank "
           << rank;
  return success();
}

/// Checks `result` is `input` with dim `grow` multiplied and dim `shrink`
/// divided by `n` (either may be -1); dynamic sizes are not checked.
static LogicalResult checkShapes(Operation *op, RankedTensorType input,
                                 RankedTensorType result, int64_t n,
                                 int64_t grow, int64_t shrink) {
  if (input.getRank() != result.getRank() ||
      input.getElementType() != result.getElementType())
    return op->emitOpError() << "result type " << result
                             << " is incompatible with input type " << input;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t in = input.getDimSize(d), out = result.getDimSize(d);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out))
      continue;
    int64_t expected = in;
    if (d == grow)
      expected *= n;
    if (d == shrink) {
      if (in % n != 0)
        return op->emitOpError() << "dim " << d << " of size " << in
                                 << " does not divide evenly over " << n
                                 << " ranks; the result dim must be dynamic";
      expected = in / n;
    }
    if (out != expected)
      return op->emitOpError() << "expected result dim " << d << " to be "
                               << expected << ", got " << out;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Hand-written formats
//===----------------------------------------------------------------------===//

void mlir::tp::printAttrDict(OpAsmPrinter &p, Operation *op,
                             ArrayRef<StringRef> elided) {
  // The dictionary's content: the inherent attributes that are set, then the
  // discardable ones, in the dictionary's order (by name).
  SmallVector<NamedAttribute, 4> attrs;
  for (StringAttr name : op->getName().getAttributeNames()) {
    if (llvm::is_contained(elided, name.getValue()))
      continue;
    if (std::optional<Attribute> value = op->getInherentAttr(name.getValue());
        value && *value)
      attrs.emplace_back(name, *value);
  }
  llvm::append_range(attrs, op->getDiscardableAttrs());
  llvm::sort(attrs, [](NamedAttribute a, NamedAttribute b) {
    return a.getName().strref() < b.getName().strref();
  });
  p.printOptionalAttrDict(attrs, elided);
}

ParseResult mlir::tp::parseAttrDict(OpAsmParser &parser,
                                    OperationState &result) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return result.name.verifyInherentAttrs(result.attributes, [&]() {
    return parser.emitError(loc)
           << "'" << result.name.getStringRef() << "' op ";
  });
}

/// `$input on $mesh mesh_axes = $mesh_axes`, the start of a collective's
/// format, into `Props` (an op's Properties).
template <typename Props>
static ParseResult parseCollectiveHead(OpAsmParser &parser,
                                       OperationState &result,
                                       OpAsmParser::UnresolvedOperand &input) {
  FlatSymbolRefAttr mesh;
  DenseI64ArrayAttr meshAxes;
  if (parser.parseOperand(input) || parser.parseKeyword("on") ||
      parser.parseCustomAttributeWithFallback(
          mesh, parser.getBuilder().getType<NoneType>()) ||
      parser.parseKeyword("mesh_axes") || parser.parseEqual() ||
      parser.parseCustomAttributeWithFallback(meshAxes, Type{}))
    return failure();
  Props &props = result.getOrAddProperties<Props>();
  props.mesh = mesh;
  props.mesh_axes = meshAxes;
  return success();
}

static void printCollectiveHead(OpAsmPrinter &p, Value input,
                                FlatSymbolRefAttr mesh,
                                DenseI64ArrayAttr meshAxes) {
  p << ' ' << input << " on ";
  p.printAttributeWithoutType(mesh);
  p << " mesh_axes = ";
  p.printStrippedAttrOrType(meshAxes);
}

static ParseResult parseRankedTensorType(OpAsmParser &parser, Type &type) {
  RankedTensorType ranked;
  if (parser.parseCustomTypeWithFallback(ranked))
    return failure();
  type = ranked;
  return success();
}

ParseResult ChunkOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand input;
  IntegerAttr axis;
  Type inputType, resultType;
  if (parseCollectiveHead<Properties>(parser, result, input) ||
      parser.parseKeyword("axis") || parser.parseEqual() ||
      parser.parseCustomAttributeWithFallback(
          axis, parser.getBuilder().getIntegerType(64)))
    return failure();
  result.getOrAddProperties<Properties>().axis = axis;
  if (parseAttrDict(parser, result) || parser.parseColon() ||
      parseRankedTensorType(parser, inputType) || parser.parseArrow() ||
      parseRankedTensorType(parser, resultType) ||
      parser.resolveOperand(input, inputType, result.operands))
    return failure();
  result.addTypes(resultType);
  return success();
}

void ChunkOp::print(OpAsmPrinter &p) {
  printCollectiveHead(p, getInput(), getMeshAttr(), getMeshAxesAttr());
  p << " axis = ";
  p.printAttributeWithoutType(getAxisAttr());
  printAttrDict(p, *this, {"mesh", "mesh_axes", "axis"});
  p << " : " << getInput().getType() << " -> " << getType();
}

ParseResult AllReduceOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand input;
  ReductionKindAttr reduction;
  Type type;
  if (parseCollectiveHead<Properties>(parser, result, input) ||
      parser.parseKeyword("reduction") || parser.parseEqual() ||
      parser.parseCustomAttributeWithFallback(reduction, Type{}))
    return failure();
  result.getOrAddProperties<Properties>().reduction = reduction;
  if (parseAttrDict(parser, result) || parser.parseColon() ||
      parseRankedTensorType(parser, type) ||
      parser.resolveOperand(input, type, result.operands))
    return failure();
  result.addTypes(type);
  return success();
}

void AllReduceOp::print(OpAsmPrinter &p) {
  printCollectiveHead(p, getInput(), getMeshAttr(), getMeshAxesAttr());
  p << " reduction =";
  p.printStrippedAttrOrType(getReductionAttr());
  printAttrDict(p, *this, {"mesh", "mesh_axes", "reduction"});
  p << " : " << getType();
}

LogicalResult AllGatherOp::verify() {
  IntegerAttr global = getGlobalSizeAttr();
  std::optional<ArrayRef<int64_t>> outer = getOuterAxes();
  if (static_cast<bool>(global) != outer.has_value())
    return emitOpError("global_size and outer_axes go together");
  if (!global)
    return success();
  int64_t dim = getGatherAxis();
  if (dim < 0 || dim >= getType().getRank() || !getType().isDynamicDim(dim))
    return emitOpError("global_size is only for a dynamic gathered dim");
  if (global.getInt() <= 0)
    return emitOpError() << "global_size " << global.getInt()
                         << " is not positive";
  for (int64_t axis : *outer)
    if (llvm::is_contained(getMeshAxes(), axis))
      return emitOpError() << "outer axis " << axis
                           << " is also a gathered mesh axis";
  return success();
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto mesh = verifyMeshAndAxes(*this, getMeshAttr(), getMeshAxes(), tables);
  if (failed(mesh))
    return failure();
  if (std::optional<ArrayRef<int64_t>> outer = getOuterAxes())
    for (int64_t axis : *outer)
      if (axis < 0 || axis >= mesh->getRank())
        return emitOpError()
               << "outer axis " << axis << " is out of range for mesh "
               << mesh->getSymName() << " of rank " << mesh->getRank();
  auto in = getInput().getType();
  if (failed(checkAxis(*this, "gather_axis", getGatherAxis(), in.getRank())))
    return failure();
  return checkShapes(*this, in, getResult().getType(),
                     groupSize(*mesh, getMeshAxes()), getGatherAxis(), -1);
}

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyMeshAndAxes(*this, getMeshAttr(), getMeshAxes(), tables);
}

LogicalResult ReduceScatterOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto mesh = verifyMeshAndAxes(*this, getMeshAttr(), getMeshAxes(), tables);
  if (failed(mesh))
    return failure();
  auto in = getInput().getType();
  if (failed(checkAxis(*this, "scatter_axis", getScatterAxis(), in.getRank())))
    return failure();
  return checkShapes(*this, in, getResult().getType(),
                     groupSize(*mesh, getMeshAxes()), -1, getScatterAxis());
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto mesh = verifyMeshAndAxes(*this, getMeshAttr(), getMeshAxes(), tables);
  if (failed(mesh))
    return failure();
  auto in = getInput().getType();
  if (failed(checkAxis(*this, "split_axis", getSplitAxis(), in.getRank())) ||
      failed(checkAxis(*this, "concat_axis", getConcatAxis(), in.getRank())))
    return failure();
  if (getSplitAxis() == getConcatAxis())
    return emitOpError("split_axis and concat_axis must differ");
  return checkShapes(*this, in, getResult().getType(),
                     groupSize(*mesh, getMeshAxes()), getConcatAxis(),
                     getSplitAxis());
}

LogicalResult BroadcastOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto mesh = verifyMeshAndAxes(*this, getMeshAttr(), getMeshAxes(), tables);
  if (failed(mesh))
    return failure();
  int64_t n = groupSize(*mesh, getMeshAxes());
  // I64Attr getters return uint64_t: compare as signed so -1 is caught.
  int64_t root = static_cast<int64_t>(getRoot());
  if (root < 0 || root >= n)
    return emitOpError() << "root " << root
                         << " is out of range for a group of " << n << " ranks";
  return success();
}

LogicalResult ChunkOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto mesh = verifyMeshAndAxes(*this, getMeshAttr(), getMeshAxes(), tables);
  if (failed(mesh))
    return failure();
  auto in = getInput().getType();
  if (failed(checkAxis(*this, "axis", getAxis(), in.getRank())))
    return failure();
  return checkShapes(*this, in, getResult().getType(),
                     groupSize(*mesh, getMeshAxes()), -1, getAxis());
}

LogicalResult PartialFromReplicateOp::verify() {
  // A Partial is over some mesh axis: with none the op would say nothing.
  if (getMeshAxes().empty())
    return emitOpError("needs at least one mesh axis to be Partial over");
  return success();
}

LogicalResult
PartialFromReplicateOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyMeshAndAxes(*this, getMeshAttr(), getMeshAxes(), tables);
}

//===----------------------------------------------------------------------===//
// Sharded lookups
//===----------------------------------------------------------------------===//

/// "[2, 4, ?]" for messages.
static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return text;
}

/// Whether `actual` is `expected` where both are static.
static bool compatibleShapes(ArrayRef<int64_t> actual,
                             ArrayRef<int64_t> expected) {
  if (actual.size() != expected.size())
    return false;
  for (auto [a, e] : llvm::zip(actual, expected))
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(e) && a != e)
      return false;
  return true;
}

/// The checks both lookups share: a positive full size `fullName` of the
/// split dim, of which this rank's `localSize` (static or not) is a part,
/// integer `ids`, and the result's shape.
static LogicalResult verifyLookup(Operation *op, StringRef fullName,
                                  int64_t full, int64_t localSize,
                                  StringRef idsName, Value ids,
                                  ArrayRef<int64_t> resultShape) {
  if (full <= 0)
    return op->emitOpError() << fullName << " " << full << " is not positive";
  if (!ShapedType::isDynamic(localSize) && localSize > full)
    return op->emitOpError() << "holds " << localSize << " of " << full << " "
                             << fullName << " entries";
  if (!isa<IntegerType>(cast<RankedTensorType>(ids.getType()).getElementType()))
    return op->emitOpError() << idsName << " must be integers";
  ArrayRef<int64_t> actual =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (!compatibleShapes(actual, resultShape))
    return op->emitOpError()
           << "expected a result of shape " << shapeText(resultShape)
           << ", got " << shapeText(actual);
  return success();
}

/// The mesh side: valid axes, at least one (a lookup split over no ranks
/// is a plain one), and a static local size that is this rank's even share
/// of `full` (an uneven share is dynamic; see getLocalType).
static LogicalResult verifyLookupSymbols(Operation *op, FlatSymbolRefAttr mesh,
                                         ArrayRef<int64_t> axes,
                                         StringRef fullName, int64_t full,
                                         int64_t localSize,
                                         SymbolTableCollection &tables) {
  auto found = verifyMeshAndAxes(op, mesh, axes, tables);
  if (failed(found))
    return failure();
  if (axes.empty())
    return op->emitOpError("needs at least one mesh axis the table is split "
                           "over");
  int64_t n = groupSize(*found, axes);
  if (!ShapedType::isDynamic(localSize) && localSize * n != full)
    return op->emitOpError() << "holds " << localSize << " entries on each of "
                             << n << " ranks, but " << fullName << " is "
                             << full << "; an uneven split has a dynamic size";
  return success();
}

LogicalResult PackOp::verify() {
  auto result = cast<RankedTensorType>(getResult().getType());
  if (result.getRank() != 1 || result.isDynamicDim(0))
    return emitOpError() << "result must be a static 1-D tensor, not "
                         << result;
  if (getInputs().empty())
    return emitOpError("packs at least one tensor");
  int64_t total = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (!t.hasStaticShape())
      return emitOpError() << "input " << i << " has a dynamic shape (" << t
                           << ")";
    if (t.getElementType() != result.getElementType())
      return emitOpError() << "input " << i << " has element type "
                           << t.getElementType() << ", the result "
                           << result.getElementType();
    int64_t count = 1;
    bool overflow = false;
    for (int64_t d : t.getShape())
      overflow |= llvm::MulOverflow(count, d, count);
    if (overflow || llvm::AddOverflow(total, count, total))
      return emitOpError() << "the inputs hold more elements than int64 "
                              "counts (input "
                           << i << ": " << t << ")";
  }
  if (total != result.getDimSize(0))
    return emitOpError() << "the inputs hold " << total
                         << " elements but the result " << result.getDimSize(0);
  return success();
}

LogicalResult UnpackOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (input.getRank() != 1 || input.isDynamicDim(0))
    return emitOpError() << "input must be a static 1-D tensor, not " << input;
  if (!result.hasStaticShape())
    return emitOpError() << "result must have a static shape, not " << result;
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "input and result element types differ ("
                         << input.getElementType() << ", "
                         << result.getElementType() << ")";
  int64_t offset = static_cast<int64_t>(getOffset());
  int64_t size = input.getDimSize(0), count = result.getNumElements();
  // Compared without forming offset + count, which may overflow.
  if (offset < 0 || count > size || offset > size - count)
    return emitOpError() << "offset " << offset << " and " << count
                         << " elements fall outside the input's " << size;
  return success();
}

LogicalResult ShardedEmbeddingOp::verify() {
  auto weight = getWeight().getType();
  if (weight.getRank() != 2)
    return emitOpError("weight must be [rows, embedding_dim]");
  SmallVector<int64_t> shape(getIds().getType().getShape());
  shape.push_back(weight.getDimSize(1));
  return verifyLookup(*this, "vocab_size", getVocabSize(), weight.getDimSize(0),
                      "ids", getIds(), shape);
}

LogicalResult
ShardedEmbeddingOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyLookupSymbols(*this, getMeshAttr(), getMeshAxes(), "vocab_size",
                             getVocabSize(),
                             getWeight().getType().getDimSize(0), tables);
}

LogicalResult ShardedTargetLogitOp::verify() {
  auto logits = getLogits().getType(), targets = getTargets().getType();
  if (logits.getRank() != 2 || targets.getRank() != 1 ||
      !compatibleShapes(targets.getShape(), {logits.getDimSize(0)}))
    return emitOpError("takes logits [N, classes] and targets [N]");
  return verifyLookup(*this, "num_classes", getNumClasses(),
                      logits.getDimSize(1), "targets", getTargets(),
                      {logits.getDimSize(0), 1});
}

LogicalResult
ShardedTargetLogitOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyLookupSymbols(*this, getMeshAttr(), getMeshAxes(), "num_classes",
                             getNumClasses(),
                             getLogits().getType().getDimSize(1), tables);
}

LogicalResult ShardedEmbeddingGradOp::verify() {
  auto weight = getWeight().getType(), grad = getGrad().getType();
  if (weight.getRank() != 2)
    return emitOpError("weight must be [rows, embedding_dim]");
  SmallVector<int64_t> gradShape(getIds().getType().getShape());
  gradShape.push_back(weight.getDimSize(1));
  if (!compatibleShapes(grad.getShape(), gradShape))
    return emitOpError() << "expected a gradient of shape "
                         << shapeText(gradShape) << " (ids and the row), got "
                         << shapeText(grad.getShape());
  return verifyLookup(*this, "vocab_size", getVocabSize(), weight.getDimSize(0),
                      "ids", getIds(), weight.getShape());
}

LogicalResult
ShardedEmbeddingGradOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyLookupSymbols(*this, getMeshAttr(), getMeshAxes(), "vocab_size",
                             getVocabSize(),
                             getWeight().getType().getDimSize(0), tables);
}

LogicalResult ShardedTargetLogitGradOp::verify() {
  auto logits = getLogits().getType(), targets = getTargets().getType();
  if (logits.getRank() != 2 || targets.getRank() != 1 ||
      !compatibleShapes(targets.getShape(), {logits.getDimSize(0)}))
    return emitOpError("takes logits [N, classes] and targets [N]");
  if (!compatibleShapes(getGrad().getType().getShape(),
                        {logits.getDimSize(0), 1}))
    return emitOpError() << "expected a gradient of shape [N, 1], got "
                         << shapeText(getGrad().getType().getShape());
  return verifyLookup(*this, "num_classes", getNumClasses(),
                      logits.getDimSize(1), "targets", getTargets(),
                      logits.getShape());
}

LogicalResult
ShardedTargetLogitGradOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyLookupSymbols(*this, getMeshAttr(), getMeshAxes(), "num_classes",
                             getNumClasses(),
                             getLogits().getType().getDimSize(1), tables);
}

/// A sharded dropout: shard dims in range for its rank, a global shape of
/// its rank and a probability in [0, 1).
static LogicalResult verifyShardedDropout(Operation *op,
                                          ArrayRef<int64_t> shardDims,
                                          ArrayRef<int64_t> globalShape,
                                          double p) {
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  if (p < 0 || p >= 1)
    return op->emitOpError("dropout probability must be in [0, 1)");
  if (static_cast<int64_t>(globalShape.size()) != type.getRank())
    return op->emitOpError()
           << "global shape " << shapeText(globalShape)
           << " and the local type " << type << " differ in rank";
  if (llvm::any_of(globalShape, [](int64_t d) { return d < 0; }))
    return op->emitOpError()
           << "global shape " << shapeText(globalShape) << " must be static";
  for (int64_t d : shardDims)
    if (d < -1 || d >= type.getRank())
      return op->emitOpError() << "shard dim " << d << " is out of range for "
                               << type << " (-1: the axis shards nothing)";
  return success();
}

/// The mesh side: one shard dim per mesh axis, and a local type that is
/// the shard tp-partition cuts from the global shape (getLocalType).
static LogicalResult verifyShardedDropoutSymbols(
    Operation *op, FlatSymbolRefAttr meshSym, ArrayRef<int64_t> shardDims,
    ArrayRef<int64_t> globalShape, SymbolTableCollection &tables) {
  MeshOp mesh = lookupMesh(op, meshSym, &tables);
  if (!mesh)
    return failure();
  if (static_cast<int64_t>(shardDims.size()) != mesh.getRank())
    return op->emitOpError()
           << "has " << shardDims.size() << " shard dims for mesh "
           << mesh.getSymName() << " of rank " << mesh.getRank();
  MLIRContext *ctx = op->getContext();
  SmallVector<Attribute> placements;
  for (int64_t d : shardDims)
    placements.push_back(d < 0 ? Attribute(ReplicateAttr::get(ctx))
                               : Attribute(ShardAttr::get(ctx, d)));
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  RankedTensorType local =
      getLocalType(DTensorType::get(ctx, globalShape, type.getElementType(),
                                    meshSym, placements),
                   mesh);
  if (!compatibleShapes(type.getShape(), local.getShape()))
    return op->emitOpError()
           << "expected a local shard of shape " << shapeText(local.getShape())
           << ", got " << shapeText(type.getShape());
  return success();
}

LogicalResult ShardedDropoutOp::verify() {
  return verifyShardedDropout(*this, getShardDims(), getGlobalShape(),
                              getP().convertToDouble());
}

LogicalResult
ShardedDropoutOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyShardedDropoutSymbols(*this, getMeshAttr(), getShardDims(),
                                     getGlobalShape(), tables);
}

LogicalResult ShardedDropoutGradOp::verify() {
  return verifyShardedDropout(*this, getShardDims(), getGlobalShape(),
                              getP().convertToDouble());
}

LogicalResult
ShardedDropoutGradOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyShardedDropoutSymbols(*this, getMeshAttr(), getShardDims(),
                                     getGlobalShape(), tables);
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

/// Every collective (and local chunking) over a group of one rank gives back
/// its input: the product of the mesh's sizes on `mesh_axes` is 1 (no axes
/// at all is such a group). The type check comes first, so a collective
/// that changes its type never looks the mesh up; the mesh lookup does not
/// diagnose, as a folder must not.
template <typename OpTy> static OpFoldResult foldOneRankGroup(OpTy op) {
  if (op.getInput().getType() != op.getResult().getType())
    return {};
  ArrayRef<int64_t> axes = op.getMeshAxes();
  if (axes.empty())
    return op.getInput();
  Operation *table = getNearestSymbolTable(op);
  if (!table)
    return {};
  auto mesh = dyn_cast_or_null<MeshOp>(
      SymbolTable::lookupSymbolIn(table, op.getMeshAttr().getAttr()));
  if (!mesh)
    return {};
  for (int64_t a : axes)
    if (a < 0 || a >= mesh.getRank() || mesh.getShape()[a] != 1)
      return {};
  return op.getInput();
}

/// True when `v` holds the same value on every rank of the group `axes` of
/// `mesh`: it is the result of a collective that leaves one value on each
/// rank of a group over those axes or more (a group over more axes contains
/// this one).
static bool isReplicatedOver(Value v, FlatSymbolRefAttr mesh,
                             ArrayRef<int64_t> axes) {
  auto covers = [&](auto def) {
    return def && def.getMeshAttr() == mesh &&
           llvm::all_of(axes, [&](int64_t a) {
             return llvm::is_contained(def.getMeshAxes(), a);
           });
  };
  return covers(v.getDefiningOp<AllReduceOp>()) ||
         covers(v.getDefiningOp<AllGatherOp>()) ||
         covers(v.getDefiningOp<BroadcastOp>());
}

OpFoldResult AllGatherOp::fold(FoldAdaptor) { return foldOneRankGroup(*this); }

OpFoldResult AllReduceOp::fold(FoldAdaptor) {
  if (OpFoldResult folded = foldOneRankGroup(*this))
    return folded;
  // max and min of one value are that value (sum and avg are not: n * x,
  // and avg rounds).
  ReductionKind kind = getReduction();
  if ((kind == ReductionKind::Max || kind == ReductionKind::Min) &&
      isReplicatedOver(getInput(), getMeshAttr(), getMeshAxes()))
    return getInput();
  return {};
}
OpFoldResult ReduceScatterOp::fold(FoldAdaptor) {
  return foldOneRankGroup(*this);
}
OpFoldResult AllToAllOp::fold(FoldAdaptor) { return foldOneRankGroup(*this); }
OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (OpFoldResult folded = foldOneRankGroup(*this))
    return folded;
  // Every rank already holds the root's value.
  if (isReplicatedOver(getInput(), getMeshAttr(), getMeshAxes()))
    return getInput();
  return {};
}
OpFoldResult ChunkOp::fold(FoldAdaptor) { return foldOneRankGroup(*this); }
OpFoldResult PartialFromReplicateOp::fold(FoldAdaptor) {
  return foldOneRankGroup(*this);
}

#include "tp/Dialect/TP/IR/TPOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tp/Dialect/TP/IR/TPOps.cpp.inc"
