//===- TPTypes.cpp - tp distributed tensor type -----------------*- C++ -*-===//
//
// Parser, printer and verifier of `!tp.dtensor`.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tp;

#define GET_TYPEDEF_CLASSES
#include "tp/Dialect/TP/IR/TPTypes.cpp.inc"

void TPDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tp/Dialect/TP/IR/TPTypes.cpp.inc"
      >();
}

RankedTensorType DTensorType::getGlobalType() const {
  return RankedTensorType::get(getShape(), getElementType());
}

/// `!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>`; negative shard dims are
/// normalized against the rank while parsing.
Type DTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  FlatSymbolRefAttr mesh;
  SmallVector<Attribute> placements;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(mesh) || parser.parseComma() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&]() {
                                       Attribute a;
                                       if (parser.parseAttribute(a))
                                         return failure();
                                       placements.push_back(
                                           normalizePlacement(a, shape.size()));
                                       return success();
                                     }) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<DTensorType>(parser.getContext(), shape, elementType,
                                        mesh, placements);
}

void DTensorType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << getMesh() << ", [";
  llvm::interleaveComma(getPlacements(), printer);
  printer << "]>";
}

LogicalResult DTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type,
                                  FlatSymbolRefAttr mesh,
                                  ArrayRef<Attribute> placements) {
  if (!mesh)
    return emitError() << "dtensor needs a mesh symbol";
  if (placements.empty())
    return emitError() << "dtensor needs one placement per mesh axis, got none";
  for (int64_t d : shape)
    if (d < 0)
      return emitError() << "dtensor global shape must be static";
  int64_t rank = shape.size();
  for (auto [axis, p] : llvm::enumerate(placements)) {
    if (!isPlacement(p))
      return emitError() << "dtensor placement " << axis
                         << " is not a placement: " << p;
    if (std::optional<int64_t> dim = getSplitDim(p))
      if (*dim < 0 || *dim >= rank)
        return emitError() << "shard dim " << *dim
                           << " is out of range for a tensor of rank " << rank;
  }
  SmallVector<Attribute> canonical = canonicalizePlacements(placements);
  for (auto [axis, p] : llvm::enumerate(placements))
    if (p != canonical[axis])
      return emitError() << "dtensor placement " << axis << " is " << p
                         << ", but no later mesh axis splits dim "
                         << *getSplitDim(p)
                         << " first: the split is in mesh order, write "
                         << canonical[axis];
  return success();
}

bool mlir::tp::isTensorLike(Type type) {
  return isa<RankedTensorType, DTensorType>(type);
}

ArrayRef<int64_t> mlir::tp::getTensorLikeShape(Type type) {
  if (auto d = dyn_cast<DTensorType>(type))
    return d.getShape();
  return cast<RankedTensorType>(type).getShape();
}

Type mlir::tp::getTensorLikeElementType(Type type) {
  if (auto d = dyn_cast<DTensorType>(type))
    return d.getElementType();
  return cast<RankedTensorType>(type).getElementType();
}
