//===- ModelOps.cpp - model dialect operations ------------------*- C++ -*-===//
//
// Dialect registration and shape verifiers. Shapes are checked on whatever
// the operands are: global tensors, dtensors (global shape) or, after
// partitioning, local tensors; dynamic (uneven) sizes are not checked.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"

#include "ShapeChecks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

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
  return isa<LinearOp, EmbeddingOp, LayerNormOp, RMSNormOp, DropoutOp>(op);
}

StringRef mlir::tp::model::getModuleFQN(Operation *op) {
  if (auto fqn = op->getAttrOfType<StringAttr>("fqn"))
    return fqn.getValue();
  return "";
}

std::string mlir::tp::model::getModuleTypeName(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([](LinearOp) { return "Linear"; })
      .Case([](EmbeddingOp) { return "Embedding"; })
      .Case([](LayerNormOp) { return "LayerNorm"; })
      .Case([](RMSNormOp) { return "RMSNorm"; })
      .Case([](DropoutOp) { return "Dropout"; })
      .Case([](SubmoduleOp m) {
        return m.getKind() ? m.getKind()->str() : std::string("Module");
      })
      .Default(
          [](Operation *op) { return op->getName().getStringRef().str(); });
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

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
// Leaf modules
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  auto x = shapeOf(getInput()), w = shapeOf(getWeight());
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [out_features, in_features], got "
                         << shapeStr(w);
  if (x.empty() || !sameSize(x.back(), w[1]))
    return emitOpError() << "input of '" << getFqn() << "' has shape "
                         << shapeStr(x) << " but weight expects " << w[1]
                         << " input features";
  if (getBias() &&
      failed(expectShape(*this, "bias", shapeOf(getBias()), {w[0]})))
    return failure();
  SmallVector<int64_t> out(x);
  out.back() = w[0];
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult EmbeddingOp::verify() {
  auto ids = shapeOf(getIds()), w = shapeOf(getWeight());
  if (!isa<IntegerType>(getTensorLikeElementType(getIds().getType())))
    return emitOpError() << "ids of '" << getFqn() << "' must be integers";
  if (w.size() != 2)
    return emitOpError() << "weight of '" << getFqn()
                         << "' must be [num_embeddings, embedding_dim]";
  SmallVector<int64_t> out(ids);
  out.push_back(w[1]);
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

static LogicalResult verifyNorm(Operation *op, Value input, Value weight,
                                Value bias, Value result) {
  auto x = shapeOf(input);
  if (x.empty())
    return op->emitOpError("input must have at least one dim");
  if (weight && failed(expectShape(op, "weight", shapeOf(weight), {x.back()})))
    return failure();
  if (bias && failed(expectShape(op, "bias", shapeOf(bias), {x.back()})))
    return failure();
  return expectShape(op, "result", shapeOf(result), x);
}

LogicalResult LayerNormOp::verify() {
  return verifyNorm(*this, getInput(), getWeight(), getBias(), getResult());
}

LogicalResult RMSNormOp::verify() {
  return verifyNorm(*this, getInput(), getWeight(), nullptr, getResult());
}

LogicalResult DropoutOp::verify() {
  if (failed(verifyDropoutP(*this, getP())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()),
                     shapeOf(getInput()));
}

//===----------------------------------------------------------------------===//
// Functional ops
//===----------------------------------------------------------------------===//

LogicalResult ReluOp::verify() { return verifyUnary(*this); }
LogicalResult GeluOp::verify() { return verifyUnary(*this); }
LogicalResult SiluOp::verify() { return verifyUnary(*this); }
LogicalResult ExpOp::verify() { return verifyUnary(*this); }
LogicalResult LogOp::verify() { return verifyUnary(*this); }
LogicalResult DetachOp::verify() { return verifyUnary(*this); }

LogicalResult AddOp::verify() { return verifyBroadcast(*this); }
LogicalResult MulOp::verify() { return verifyBroadcast(*this); }
LogicalResult SubOp::verify() { return verifyBroadcast(*this); }

static LogicalResult verifyReduce(Operation *op, int64_t dim) {
  auto in = shapeOf(op->getOperand(0));
  int64_t rank = in.size();
  if (dim < -rank || dim >= rank)
    return op->emitOpError()
           << "dim " << dim << " is out of range for rank " << rank;
  SmallVector<int64_t> out(in);
  out[dim < 0 ? dim + rank : dim] = 1;
  return expectShape(op, "result", shapeOf(op->getResult(0)), out);
}

LogicalResult ReduceMaxOp::verify() {
  return verifyReduce(*this, (int64_t)getDim());
}
LogicalResult ReduceSumOp::verify() {
  return verifyReduce(*this, (int64_t)getDim());
}

LogicalResult MeanOp::verify() {
  if (failed(verifyCount(*this, getCount())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), {});
}

LogicalResult TargetLogitOp::verify() {
  auto l = shapeOf(getLogits()), t = shapeOf(getTargets());
  if (l.size() != 2 || t.size() != 1 || !sameSize(l[0], t[0]))
    return emitOpError("target_logit takes logits [N, C] and targets [N]");
  if (!isa<IntegerType>(getTensorLikeElementType(getTargets().getType())))
    return emitOpError("targets must be integers");
  return expectShape(*this, "result", shapeOf(getResult()), {l[0], 1});
}

LogicalResult MatmulOp::verify() {
  auto a = shapeOf(getLhs()), b = shapeOf(getRhs());
  if (a.size() < 2 || b.size() < 2)
    return emitOpError("matmul operands must have rank >= 2");
  if (!sameSize(a.back(), b[b.size() - 2]))
    return emitOpError() << "contracting dims differ: " << shapeStr(a) << " x "
                         << shapeStr(b);
  if (b.size() != 2 && b.size() != a.size())
    return emitOpError("rhs must be 2-D or have the lhs's batch dims");
  SmallVector<int64_t> out(a);
  out.back() = b.back();
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = shapeOf(getInput()).size();
  // I64Attr getters return uint64_t: compare as signed so -1 is accepted.
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < -rank || dim >= rank)
    return emitOpError() << "softmax dim " << dim
                         << " is out of range for rank " << rank;
  return verifyUnary(*this);
}

LogicalResult ReshapeOp::verify() {
  auto count = [](ArrayRef<int64_t> s) -> std::optional<int64_t> {
    int64_t n = 1;
    for (int64_t d : s) {
      if (ShapedType::isDynamic(d))
        return std::nullopt;
      n *= d;
    }
    return n;
  };
  auto a = count(shapeOf(getInput())), b = count(shapeOf(getResult()));
  if (a && b && *a != *b)
    return emitOpError() << "cannot reshape " << shapeStr(shapeOf(getInput()))
                         << " to " << shapeStr(shapeOf(getResult()));
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = shapeOf(getInput());
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != in.size())
    return emitOpError("permutation must name every dim once");
  SmallVector<bool> seen(in.size(), false);
  SmallVector<int64_t> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)in.size() || seen[p])
      return emitOpError("permutation must name every dim once");
    seen[p] = true;
    out.push_back(in[p]);
  }
  return expectShape(*this, "result", shapeOf(getResult()), out);
}

LogicalResult RotaryOp::verify() {
  auto x = shapeOf(getInput());
  if (x.size() != 4)
    return emitOpError("rotary input must be [batch, seq, heads, head_dim]");
  if (!ShapedType::isDynamic(x[3]) && x[3] % 2)
    return emitOpError("rotary head_dim must be even");
  return verifyUnary(*this);
}

LogicalResult AttentionOp::verify() {
  auto q = shapeOf(getQ());
  if (failed(
          verifyAttentionOperands(*this, q, shapeOf(getK()), shapeOf(getV()))))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), q);
}

LogicalResult ArangeOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1 || !isa<IntegerType>(type.getElementType()))
    return emitOpError("arange produces a 1-D integer tensor");
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  auto l = shapeOf(getLogits()), t = shapeOf(getTargets());
  if (l.size() != 2 || t.size() != 1 || !sameSize(l[0], t[0]))
    return emitOpError("cross_entropy takes logits [N, C] and targets [N]");
  if (failed(verifyCount(*this, getCount())))
    return failure();
  return expectShape(*this, "result", shapeOf(getResult()), {});
}

#define GET_OP_CLASSES
#include "tp/Dialect/Model/IR/ModelOps.cpp.inc"
