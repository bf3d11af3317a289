//===- TPDialect.cpp - tp dialect registration ------------------*- C++ -*-===//
//
// Registers the tp dialect's attributes, types and operations, and verifies
// the discardable tp attributes (declared in TPBase.td) other ops carry.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "tp/Dialect/TP/IR/TPOps.h"

using namespace mlir;
using namespace mlir::tp;

#include "tp/Dialect/TP/IR/TPDialect.cpp.inc"

void TPDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tp/Dialect/TP/IR/TPOps.cpp.inc"
      >();
}

/// True for a `model` op. The model dialect builds on this one, so the
/// verifier names its dialect rather than linking against it.
static bool isModelOp(Operation *op) {
  return op->getName().getDialectNamespace() == "model";
}

/// True for an i64 integer attribute.
static bool isI64(Attribute attr) {
  auto integer = dyn_cast<IntegerAttr>(attr);
  return integer && integer.getType().isSignlessInteger(64);
}

/// `tp.result_types` and `tp.arg_types`: an array of one tensor or dtensor
/// type per function result or argument.
static LogicalResult verifyFunctionTypes(Operation *op, StringRef name,
                                         Attribute value, bool results) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return op->emitOpError() << "'" << name << "' belongs on a function";
  auto types = dyn_cast<ArrayAttr>(value);
  if (!types)
    return op->emitOpError() << "'" << name << "' must be an array of types";
  unsigned expected = results ? fn.getNumResults() : fn.getNumArguments();
  if (types.size() != expected)
    return op->emitOpError() << "'" << name << "' has " << types.size()
                             << " types but the function has " << expected
                             << (results ? " results" : " arguments");
  for (auto [i, t] : llvm::enumerate(types)) {
    auto type = dyn_cast<TypeAttr>(t);
    if (!type || !isTensorLike(type.getValue()))
      return op->emitOpError() << "'" << name << "' entry " << i
                               << " must be a ranked tensor or dtensor type, "
                                  "got "
                               << t;
  }
  return success();
}

/// The tp attributes passes attach to other ops (declared in TPBase.td):
/// each has one value type and the ops it may sit on. Other `tp.` names are
/// left alone.
LogicalResult TPDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringAttr name = attr.getName();
  StringRef text = name.getValue();
  Attribute value = attr.getValue();
  if (name == getStyleAttrHelper().getName()) {
    if (!isModelOp(op) && !isa<FunctionOpInterface>(op))
      return op->emitOpError()
             << "'" << text << "' belongs on a model module op or a function";
    if (!isParallelStyle(value))
      return op->emitOpError()
             << "'" << text << "' must be a parallel style, got " << value;
    return success();
  }
  if (name == getPlanAttrHelper().getName()) {
    if (!isa<ModuleOp>(op))
      return op->emitOpError() << "'" << text << "' belongs on a module";
    if (!isa<PlanAttr>(value))
      return op->emitOpError()
             << "'" << text << "' must be a #tp.plan, got " << value;
    return success();
  }
  if (name == getTpAxisAttrHelper().getName()) {
    if (!isa<DistributeOp, RedistributeOp>(op))
      return op->emitOpError() << "'" << text
                               << "' belongs on a tp.distribute or "
                                  "tp.redistribute";
    if (!isI64(value) || cast<IntegerAttr>(value).getInt() < 0)
      return op->emitOpError()
             << "'" << text << "' must be a non-negative i64 mesh axis";
    return success();
  }
  if (name == getSpmdAttrHelper().getName()) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError() << "'" << text << "' belongs on a function";
    if (!isa<UnitAttr>(value))
      return op->emitOpError() << "'" << text << "' must be a unit attribute";
    return success();
  }
  if (name == getPhaseAttrHelper().getName()) {
    if (isa<ModuleOp, FunctionOpInterface>(op))
      return op->emitOpError()
             << "'" << text << "' belongs on an op of a function";
    if (!isa<PhaseAttr>(value))
      return op->emitOpError()
             << "'" << text << "' must be a #tp.phase, got " << value;
    return success();
  }
  if (name == getRecomputedAttrHelper().getName()) {
    if (isa<ModuleOp, FunctionOpInterface>(op))
      return op->emitOpError()
             << "'" << text << "' belongs on an op of a function";
    if (!isa<UnitAttr>(value))
      return op->emitOpError() << "'" << text << "' must be a unit attribute";
    return success();
  }
  if (name == getLocalBoundAttrHelper().getName()) {
    auto bound = dyn_cast<DenseI64ArrayAttr>(value);
    if (!bound)
      return op->emitOpError()
             << "'" << text << "' must be an array<i64>, got " << value;
    auto type = op->getNumResults() == 1
                    ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                    : RankedTensorType();
    if (!type)
      return op->emitOpError()
             << "'" << text << "' belongs on an op with one tensor result";
    bool fits = type.getRank() == static_cast<int64_t>(bound.size());
    for (int64_t i = 0; fits && i < type.getRank(); ++i)
      fits = bound[i] >= 0 &&
             (type.isDynamicDim(i) || type.getDimSize(i) == bound[i]);
    if (!fits)
      return op->emitOpError()
             << "'" << text << "' [" << bound.asArrayRef()
             << "] does not bound the result type " << type
             << " (one size >= 0 per dim, equal to each static one)";
    return success();
  }
  if (name == getResultTypesAttrHelper().getName())
    return verifyFunctionTypes(op, text, value, /*results=*/true);
  if (name == getArgTypesAttrHelper().getName())
    return verifyFunctionTypes(op, text, value, /*results=*/false);
  if (name == getLocalAttrHelper().getName() ||
      name == getGradOfAttrHelper().getName() ||
      name == getUpdatedAttrHelper().getName())
    return op->emitOpError() << "'" << text << "' belongs on a function result";
  return success();
}

/// `tp.local` (a unit attribute on a function result) and `tp.grad_of` (the
/// FQN of the parameter a training step's result is the gradient of).
LogicalResult TPDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  StringAttr name = attr.getName();
  bool isLocal = name == getLocalAttrHelper().getName();
  bool isGradOf = name == getGradOfAttrHelper().getName() ||
                  name == getUpdatedAttrHelper().getName();
  if (!isLocal && !isGradOf)
    return success();
  if (!isa<FunctionOpInterface>(op))
    return op->emitOpError()
           << "'" << name.getValue() << "' belongs on a function result";
  if (isLocal && !isa<UnitAttr>(attr.getValue()))
    return op->emitOpError() << "'" << name.getValue() << "' on result "
                             << resultIndex << " must be a unit attribute";
  auto fqn = dyn_cast<StringAttr>(attr.getValue());
  if (isGradOf && (!fqn || fqn.getValue().empty()))
    return op->emitOpError()
           << "'" << name.getValue() << "' on result " << resultIndex
           << " must name a parameter (a non-empty string)";
  return success();
}

/// The name `tp.phase`, kept by the loaded dialect: a dialect lookup is
/// cheaper than uniquing the string again, and getPhase runs for most ops
/// in several passes.
static StringAttr phaseName(MLIRContext *ctx) {
  if (auto *dialect = ctx->getLoadedDialect<TPDialect>())
    return dialect->getPhaseAttrHelper().getName();
  return TPDialect::PhaseAttrHelper(ctx).getName();
}

// The mark is discardable: read and written without the inherent-attribute
// lookup of Operation::getAttr.
Phase mlir::tp::getPhase(Operation *op) {
  if (auto phase = dyn_cast_or_null<PhaseAttr>(
          op->getDiscardableAttr(phaseName(op->getContext()))))
    return phase.getValue();
  return Phase::Forward;
}

void mlir::tp::setPhase(Operation *op, Phase phase) {
  StringAttr name = phaseName(op->getContext());
  if (phase == Phase::Forward) {
    op->removeDiscardableAttr(name);
    return;
  }
  op->setDiscardableAttr(name, PhaseAttr::get(op->getContext(), phase));
}

ArrayRef<Phase> mlir::tp::allPhases() {
  static const Phase phases[] = {Phase::Forward, Phase::Backward,
                                 Phase::Optimizer};
  return phases;
}
