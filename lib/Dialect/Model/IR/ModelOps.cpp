//===- ModelOps.cpp - model dialect operations ------------------*- C++ -*-===//
//
// Dialect registration, the module helpers, and the verifiers of the ops
// that give a model its structure (param, module, yield) and its constants
// (arange, full). The other ops' verifiers, sharding rules and backward
// rules are with their family (Elementwise.cpp, Linear.cpp, ...).
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"

#include "ShapeChecks.h"

#include "tp/Dialect/TP/IR/AxisRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::model;
using namespace mlir::tp::model::detail;

#include "tp/Dialect/Model/IR/ModelDialect.cpp.inc"

void ModelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tp/Dialect/Model/IR/ModelOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool mlir::tp::model::isLeafModule(Operation *op) {
  return isa<LeafModuleOpInterface>(op);
}

StringRef mlir::tp::model::getModuleFQN(Operation *op) {
  if (auto fqn = op->getAttrOfType<StringAttr>("fqn"))
    return fqn.getValue();
  return "";
}

std::string mlir::tp::model::getModuleTypeName(Operation *op) {
  if (auto leaf = dyn_cast<LeafModuleOpInterface>(op))
    return leaf.getTorchClassName().str();
  if (auto module = dyn_cast<SubmoduleOp>(op))
    return module.getKind() ? module.getKind()->str() : std::string("Module");
  return op->getName().getStringRef().str();
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

ParseResult ParamOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  RankedTensorType type;
  if (parser.parseCustomAttributeWithFallback(
          name, parser.getBuilder().getType<NoneType>()))
    return failure();
  result.getOrAddProperties<Properties>().name = name;
  if (parseAttrDict(parser, result) || parser.parseColon() ||
      parser.parseCustomTypeWithFallback(type))
    return failure();
  result.addTypes(type);
  return success();
}

void ParamOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getNameAttr());
  printAttrDict(p, *this, {"name"});
  p << " : " << getType();
}

LogicalResult ParamOp::verify() {
  if (getName().empty())
    return emitOpError("parameter name must not be empty");
  // Parameters are weights: tp computes in float (integer tensors are ids).
  Type element = getResult().getType().getElementType();
  if (!isa<FloatType>(element))
    return emitOpError() << "parameter '" << getName()
                         << "' must have a float element type, got " << element;
  return success();
}

void SubmoduleOp::build(OpBuilder &builder, OperationState &state,
                        StringRef fqn, ValueRange inputs,
                        TypeRange outputTypes) {
  state.addAttribute(getFqnAttrName(state.name), builder.getStringAttr(fqn));
  state.addOperands(inputs);
  state.addTypes(outputTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value v : inputs)
    block->addArgument(v.getType(), state.location);
}

/// The last token of a dotted FQN (`layers.0.attention` -> `attention`).
static StringRef lastToken(StringRef fqn) {
  size_t dot = fqn.rfind('.');
  return dot == StringRef::npos ? fqn : fqn.drop_front(dot + 1);
}

LogicalResult SubmoduleOp::verify() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "module '" << getFqn() << "' has "
                         << getInputs().size() << " inputs but its body takes "
                         << block.getNumArguments() << " arguments";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getInputs(), block.getArguments()))) {
    auto [in, arg] = pair;
    if (in.getType() != arg.getType())
      return emitOpError() << "input " << i << " of module '" << getFqn()
                           << "' has type " << in.getType()
                           << " but the body argument has " << arg.getType();
  }
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().getTypes() != getOutputs().getTypes())
    return emitOpError() << "module '" << getFqn()
                         << "' yields types that differ from its results";
  if (auto names = getArgNames())
    if (names->size() != getInputs().size())
      return emitOpError() << "module '" << getFqn() << "' has "
                           << getInputs().size() << " inputs but "
                           << names->size() << " arg_names";
  if (std::optional<ArrayAttr> children = getChildren()) {
    llvm::StringSet<> direct, seen;
    for (Operation &op : block)
      if (isa<SubmoduleOp>(op) || isLeafModule(&op))
        direct.insert(lastToken(getModuleFQN(&op)));
    for (Attribute a : *children) {
      StringRef name = cast<StringAttr>(a).getValue();
      if (!direct.contains(name))
        return emitOpError() << "module '" << getFqn() << "' lists child '"
                             << name << "', which is not a direct child module";
      if (!seen.insert(name).second)
        return emitOpError() << "module '" << getFqn() << "' lists child '"
                             << name << "' twice";
    }
  }
  return success();
}

SmallVector<Operation *> mlir::tp::model::getChildModules(Operation *module) {
  Region *body = nullptr;
  ArrayAttr order;
  if (auto sub = dyn_cast<SubmoduleOp>(module)) {
    body = &sub.getBody();
    order = sub.getChildrenAttr();
  } else if (module->getNumRegions() == 1) {
    body = &module->getRegion(0);
  }
  SmallVector<Operation *> children;
  if (!body || body->empty())
    return children;
  for (Operation &op : body->front())
    if (isa<SubmoduleOp>(op) || isLeafModule(&op))
      children.push_back(&op);
  if (!order)
    return children;
  auto rank = [&](Operation *op) -> size_t {
    StringRef name = lastToken(getModuleFQN(op));
    for (auto [i, a] : llvm::enumerate(order))
      if (cast<StringAttr>(a).getValue() == name)
        return i;
    return order.size();
  };
  llvm::stable_sort(
      children, [&](Operation *a, Operation *b) { return rank(a) < rank(b); });
  return children;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1 || !isa<IntegerType>(type.getElementType()))
    return emitOpError("arange produces a 1-D integer tensor");
  return success();
}

LogicalResult ConstantOp::verify() {
  auto elements = dyn_cast<DenseElementsAttr>(getElements());
  if (!elements)
    return emitOpError("holds dense elements (dense<...>)");
  Type elt = getType().getElementType();
  if (!elt.isF32() && !elt.isBF16() && !elt.isF16() &&
      !elt.isSignlessInteger(64) && !elt.isSignlessInteger(32) &&
      !elt.isInteger(1))
    return emitOpError()
           << "holds f32, bf16, f16, i64, i32 or i1 elements, not " << elt;
  return success();
}

LogicalResult FullOp::verify() {
  if (!isa<FloatType>(getType().getElementType()))
    return emitOpError() << "fills floats, not " << getType().getElementType();
  return success();
}

#define GET_OP_CLASSES
#include "tp/Dialect/Model/IR/ModelOps.cpp.inc"
