//===- Generic.cpp - model.generic: a loop nest over a scalar body -------===//
//
// The verifier and the sharding rule of model.generic, read from its
// indexing maps and iterator types as the factors of AxisRules.h.
//
//===----------------------------------------------------------------------===//

#include "ShapeChecks.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/AxisRules.h"

#include "mlir/IR/AffineExpr.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

LogicalResult GenericOp::verify() {
  size_t numOperands = getNumOperands();
  if (numOperands == 0)
    return emitOpError("needs an init operand (the last)");
  ArrayRef<Attribute> maps = getIndexingMaps().getValue();
  if (maps.size() != numOperands)
    return emitOpError() << "has " << maps.size() << " indexing maps for "
                         << numOperands << " operands";
  int64_t loops = getIteratorTypes().size();
  SmallVector<bool> parallel;
  for (Attribute t : getIteratorTypes()) {
    StringRef kind = cast<StringAttr>(t).getValue();
    if (kind != "parallel" && kind != "reduction")
      return emitOpError() << "iterator type '" << kind
                           << "' is neither \"parallel\" nor \"reduction\"";
    parallel.push_back(kind == "parallel");
  }
  for (auto [i, attr] : llvm::enumerate(maps)) {
    AffineMap map = cast<AffineMapAttr>(attr).getValue();
    ArrayRef<int64_t> shape = shapeOf(getOperand(i));
    if (map.getNumDims() != loops || map.getNumSymbols())
      return emitOpError() << "indexing map " << i << " is over "
                           << map.getNumDims() << " dims and "
                           << map.getNumSymbols() << " symbols; expected "
                           << loops << " loops and no symbols";
    if (map.getNumResults() != shape.size())
      return emitOpError() << "indexing map " << i << " has "
                           << map.getNumResults()
                           << " results for an operand of rank "
                           << shape.size();
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      if (isa<AffineDimExpr>(expr))
        continue;
      auto c = dyn_cast<AffineConstantExpr>(expr);
      if (!c || c.getValue() != 0 || (shape[d] != 1)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        expr.print(os);
        return emitOpError()
               << "operand " << i << " dim " << d << " is indexed by " << text
               << ": model.generic reads a dim at one loop, or "
                  "at 0 when its size is 1";
      }
    }
  }
  // The init (and the result): parallel loops, each once.
  AffineMap initMap = cast<AffineMapAttr>(maps.back()).getValue();
  llvm::SmallDenseSet<unsigned> seen;
  for (AffineExpr expr : initMap.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || !parallel[dim.getPosition()] ||
        !seen.insert(dim.getPosition()).second)
      return emitOpError() << "the init's indexing map "
                           << AffineMapAttr::get(initMap)
                           << " must name parallel loops, each once";
  }
  Type resultType = getResult().getType(),
       initType = getOperands().back().getType();
  if (shapeOf(getResult()) != shapeOf(getOperands().back()) ||
      getTensorLikeElementType(resultType) !=
          getTensorLikeElementType(initType))
    return emitOpError() << "result type " << resultType
                         << " differs from the init's " << initType;
  Block &body = getBody().front();
  if (body.getNumArguments() != numOperands)
    return emitOpError() << "body takes " << body.getNumArguments()
                         << " arguments for " << numOperands << " operands";
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Type elt = getTensorLikeElementType(getOperand(i).getType());
    if (arg.getType() != elt)
      return emitOpError() << "body argument " << i << " is " << arg.getType()
                           << ", operand " << i << "'s elements are " << elt;
  }
  auto yield = dyn_cast<GenericYieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body does not end in model.generic_yield");
  Type resultElt = getTensorLikeElementType(getResult().getType());
  if (yield.getValue().getType() != resultElt)
    return emitOpError() << "body yields " << yield.getValue().getType()
                         << " for a result of " << resultElt << " elements";
  return success();
}

SmallVector<int64_t> GenericOp::getLoopsOf(unsigned operand) {
  SmallVector<int64_t> loops;
  AffineMap map = cast<AffineMapAttr>(getIndexingMaps()[operand]).getValue();
  for (AffineExpr e : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    loops.push_back(dim ? static_cast<int64_t>(dim.getPosition()) : -1);
  }
  return loops;
}

bool GenericOp::readsInit() {
  return !getBody().front().getArguments().back().use_empty();
}

std::optional<ReductionKind> GenericOp::getCombiner() {
  Block &body = getBody().front();
  BlockArgument acc = body.getArguments().back();
  Value yielded = cast<GenericYieldOp>(body.getTerminator()).getValue();
  Operation *combine = yielded.getDefiningOp();
  if (!combine || !acc.hasOneUse() || combine->getNumOperands() != 2 ||
      *acc.getUsers().begin() != combine)
    return std::nullopt;
  // The other operand must not depend on the result element.
  Value other = combine->getOperand(0) == acc ? combine->getOperand(1)
                                              : combine->getOperand(0);
  if (other == acc)
    return std::nullopt;
  StringRef name = combine->getName().getStringRef();
  if (name == "arith.addf")
    return ReductionKind::Sum;
  if (name == "arith.maximumf" || name == "arith.maxnumf")
    return ReductionKind::Max;
  if (name == "arith.minimumf" || name == "arith.minnumf")
    return ReductionKind::Min;
  return std::nullopt;
}

/// Whether the body computes from its arguments alone (arith and math
/// ops): not from the loop indices or anything else.
static bool pureScalarBody(Block &body) {
  for (Operation &op : body.without_terminator()) {
    StringRef dialect = op.getName().getDialectNamespace();
    if (dialect != "arith" && dialect != "math")
      return false;
  }
  return true;
}

AxisRule GenericOp::getAxisRule(ArrayRef<Attribute> in, int64_t axisSize) {
  AxisRuleBuilder b(getContext(), axisSize);
  if (!pureScalarBody(getBody().front()))
    return b.replicateAll(getNumOperands());
  FactorRule rule;
  std::optional<ReductionKind> combiner = getCombiner();
  for (Attribute t : getIteratorTypes()) {
    FactorRule::Factor f;
    if (cast<StringAttr>(t).getValue() == "reduction") {
      if (combiner) {
        f.kind = FactorRule::FactorKind::Reduction;
        f.reduction = *combiner;
      } else {
        f.kind = FactorRule::FactorKind::Replicated;
      }
    }
    rule.factors.push_back(f);
  }
  for (unsigned i = 0; i < getNumOperands(); ++i) {
    rule.operands.push_back(getLoopsOf(i));
    rule.shapes.emplace_back(shapeOf(getOperand(i)));
  }
  rule.result = rule.operands.back();
  AxisRule axisRule = b.fromFactors(rule, in);
  // A Partial result: each rank combines its part of the reduction into
  // the init, so the init must count once (Partial too).
  if (auto partial = dyn_cast<PartialAttr>(axisRule.result))
    axisRule.operands.back() = partial;
  return axisRule;
}
