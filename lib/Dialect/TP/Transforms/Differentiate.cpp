//===- Differentiate.cpp - reverse-mode differentiation of a model --------===//
//
// tp-differentiate: a model function ending in a scalar loss becomes a
// training step that returns the loss and the gradient of every parameter.
// Composite modules are inlined; each forward op's backward rule (its
// DifferentiableOpInterface) emits backward ops (ModelGradOps.td) in
// reverse order, typed with the global shapes of what they are gradients
// of. A module the plan recomputes (activation checkpointing) has its
// forward cloned into the backward, where its backward starts, and its
// backward rules read the clones: its own activations then die in the
// forward. Then placements are propagated through them by the
// same sharding rules as the forward program. Nothing here decides
// communication: a gradient that several ops produce is summed where it
// meets (still Partial, when the contributions are), and the redistribution
// lowering reduces it once, where a consumer needs the sum.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPDIFFERENTIATEPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

namespace {

/// The backward program of one function.
class Differentiator {
public:
  explicit Differentiator(func::FuncOp func)
      : func(func), grads(func.getContext()), builder(grads.getBuilder()) {}

  LogicalResult run() {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    // The loss is the first result; a step returns it and the gradients,
    // not the other results (Hugging Face's `labels=` forward returns
    // (loss, logits)).
    Value loss = ret.getNumOperands() >= 1 ? ret.getOperand(0) : Value();
    if (!loss || !getTensorLikeShape(loss.getType()).empty() ||
        !isa<FloatType>(getTensorLikeElementType(loss.getType()))) {
      InFlightDiagnostic diag = func.emitError()
                                << "tp-differentiate: @" << func.getSymName()
                                << " must return a scalar loss (first), but "
                                   "returns (";
      llvm::interleaveComma(ret.getOperandTypes(), diag);
      return diag << ")";
    }
    // The plan's recompute units: each op inside one, by unit.
    auto module = func->getParentOfType<ModuleOp>();
    FailureOr<SmallVector<Operation *>> units = getRecomputedModules(
        func, module
                  ? TPDialect::PlanAttrHelper(func.getContext()).getAttr(module)
                  : PlanAttr());
    if (failed(units))
      return failure();
    for (auto [i, unit] : llvm::enumerate(*units))
      cast<m::SubmoduleOp>(unit).getBody().walk([&, i = i](Operation *op) {
        if (!isa<m::SubmoduleOp, m::YieldOp>(op))
          unitOf[op] = static_cast<unsigned>(i);
      });
    inlineSubmodules(func);
    Block &body = func.getBody().front();
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      forward.push_back(&op);
    // A training step drops: every dropout with p > 0 applies its mask
    // (PyTorch's train mode); the forward-only program stays the identity.
    for (Operation *op : forward)
      if (auto d = dyn_cast<m::DropoutOp>(op); d && !d.getP().isZero())
        d.setTrain(true);
    // A tied parameter is frozen everywhere or nowhere.
    llvm::StringMap<m::ParamOp> declared;
    for (Operation *op : forward)
      if (auto p = dyn_cast<m::ParamOp>(op)) {
        auto [it, fresh] = declared.try_emplace(p.getName(), p);
        if (!fresh && it->second.getFrozen() != p.getFrozen())
          return p.emitError()
                 << "tp-differentiate: parameter '" << p.getName()
                 << "' is frozen in one use and trained in another";
      }
    markActive(forward);
    if (!grads.isActive(loss))
      return func.emitError()
             << "tp-differentiate: the loss of @" << func.getSymName()
             << " depends on no parameter: there is nothing to train";

    builder.setInsertionPoint(ret);
    Location loc = ret.getLoc();
    Value seed = m::FullOp::create(builder, loc, gradType(loss),
                                   builder.getF64FloatAttr(1.0));
    Operation *first = seed.getDefiningOp();
    grads.accumulate(loss, seed);
    llvm::DenseSet<unsigned> recomputed;
    for (Operation *op : llvm::reverse(forward)) {
      if (auto unit = unitOf.find(op); unit != unitOf.end()) {
        // The unit's last op: its forward again, then its backward on that.
        if (recomputed.insert(unit->second).second &&
            failed(recompute(forward, unit->second)))
          return failure();
        continue;
      }
      if (op->getNumResults() != 1)
        continue;
      Value g = grads.lookup(op->getResult(0));
      if (!g)
        continue;
      if (failed(backward(op, g)))
        return failure();
    }

    // The step returns the loss, then one gradient per parameter FQN, in
    // the order the parameters are first defined.
    llvm::MapVector<StringRef, Value> &received = grads.getParamGrads();
    llvm::MapVector<StringRef, Value> paramGrads;
    for (Operation *op : forward)
      if (auto p = dyn_cast<m::ParamOp>(op))
        if (auto it = received.find(p.getName()); it != received.end())
          paramGrads.insert(*it);
    // The step's loss is the global one on every rank: a loss over a batch
    // split on a data-parallel axis is a partial sum there (the sharding
    // rules of model.mean and model.cross_entropy), reduced here once.
    Value globalLoss = loss;
    if (auto type = dyn_cast<DTensorType>(loss.getType());
        type &&
        !llvm::all_of(type.getPlacements(), llvm::IsaPred<ReplicateAttr>)) {
      SmallVector<Attribute> replicated(type.getPlacements().size(),
                                        ReplicateAttr::get(func.getContext()));
      globalLoss = RedistributeOp::create(
          builder, loc,
          DTensorType::get(func.getContext(), type.getShape(),
                           type.getElementType(), type.getMesh(), replicated),
          loss, /*module=*/nullptr);
    }
    SmallVector<Value> results{globalLoss};
    for (auto &[name, g] : paramGrads)
      results.push_back(g);
    // Everything from the seed on is the backward program; propagation
    // gives the redistributions it inserts for these ops their phase.
    for (Operation &op :
         llvm::make_range(first->getIterator(), Block::iterator(ret)))
      setPhase(&op, Phase::Backward);
    func::ReturnOp::create(builder, loc, results);
    ret.erase();
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    // Replicated, it is one value whatever the forward's styles returned.
    func.removeResultAttr(
        0, TPDialect::LocalAttrHelper(func.getContext()).getName());
    SmallVector<DictionaryAttr> attrs{func.getResultAttrDict(0)};
    TPDialect::GradOfAttrHelper gradOf(func.getContext());
    for (auto &[name, g] : paramGrads) {
      NamedAttrList list;
      list.append(gradOf.getName(), builder.getStringAttr(name));
      attrs.push_back(list.getDictionary(func.getContext()));
    }
    func.setAllResultAttrs(attrs);
    return propagatePlacementsFrom(first);
  }

private:
  static RankedTensorType gradType(Value v) {
    return m::GradientBuilder::gradType(v);
  }

  /// Marks the values that depend on a parameter: only they get gradients.
  void markActive(ArrayRef<Operation *> ops) {
    for (Operation *op : ops) {
      if (auto p = dyn_cast<m::ParamOp>(op); p && p.getFrozen())
        continue; // requires_grad=False: no gradient flows from it
      auto diff = dyn_cast<m::DifferentiableOpInterface>(op);
      if (diff && !diff.passesGradient())
        continue; // detach
      if (isa<m::ParamOp>(op) || llvm::any_of(op->getOperands(), [&](Value v) {
            return grads.isActive(v);
          }))
        for (Value r : op->getResults())
          // Integers (ids, topk's indices, a one-hot mask) carry no
          // gradient, whatever they were computed from.
          if (!isTensorLike(r.getType()) ||
              isa<FloatType>(getTensorLikeElementType(r.getType())))
            grads.markActive(r);
    }
  }

  /// The backward of recompute unit \p unit (its ops among \p forward):
  /// its forward ops cloned here, in the backward (parameters are resident
  /// and read as they are), the gradients of its results moved to the
  /// clones, and each clone's backward rule run in reverse order, so that
  /// the backward reads only the unit's inputs from the forward. The clones
  /// compute what the forward did (a dropout draws the same mask: it
  /// depends on the seed, the step and its FQN), so the gradients are
  /// those of the run that keeps the activations, bit for bit.
  LogicalResult recompute(ArrayRef<Operation *> forward, unsigned unit) {
    IRMapping map;
    SmallVector<Operation *> ops, clones;
    for (Operation *op : forward)
      if (auto it = unitOf.find(op); it != unitOf.end() && it->second == unit)
        ops.push_back(op);
    TPDialect::RecomputedAttrHelper recomputedAttr(func.getContext());
    for (Operation *op : ops)
      if (!isa<m::ParamOp>(op)) {
        clones.push_back(builder.clone(*op, map));
        recomputedAttr.setAttr(clones.back(), UnitAttr::get(func.getContext()));
      }
    for (Operation *op : ops)
      for (Value r : op->getResults())
        if (Value c = map.lookupOrNull(r)) {
          if (grads.isActive(r))
            grads.markActive(c);
          if (Value g = grads.lookup(r))
            grads.accumulate(c, g);
        }
    for (Operation *c : llvm::reverse(clones)) {
      if (c->getNumResults() != 1)
        continue;
      if (Value g = grads.lookup(c->getResult(0)))
        if (failed(backward(c, g)))
          return failure();
    }
    // The unit's parameters, read by the clones as they are: their
    // gradients reach the step's results through their own rule.
    for (Operation *op : llvm::reverse(ops))
      if (isa<m::ParamOp>(op))
        if (Value g = grads.lookup(op->getResult(0)))
          if (failed(backward(op, g)))
            return failure();
    return success();
  }

  /// The op's own backward rule (DifferentiableOpInterface), given the
  /// gradient of its result.
  LogicalResult backward(Operation *op, Value g) {
    auto diff = dyn_cast<m::DifferentiableOpInterface>(op);
    if (!diff) {
      InFlightDiagnostic diag = op->emitError()
                                << "tp-differentiate: '" << op->getName()
                                << "' has no backward rule";
      if (StringRef fqn = m::getModuleFQN(op); !fqn.empty())
        diag << " (in '" << fqn << "')";
      return diag;
    }
    return diff.backward(grads, g);
  }

  func::FuncOp func;
  /// The recompute unit of each forward op inside one.
  llvm::DenseMap<Operation *, unsigned> unitOf;
  /// The sweep's state: active values, gradients, parameter gradients.
  m::GradientBuilder grads;
  OpBuilder &builder;
};

} // namespace

LogicalResult mlir::tp::differentiate(ModuleOp module) {
  if (failed(checkPassPrecondition(module, TPPass::Differentiate)))
    return failure();
  StringRef gradOf = TPDialect::GradOfAttrHelper::getNameStr();
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (func.getResultAttr(i, gradOf))
        return func.emitError() << "tp-differentiate: @" << func.getSymName()
                                << " is already a training step (" << gradOf
                                << " on result " << i << ")";
    if (failed(Differentiator(func).run()))
      return failure();
  }
  return success();
}

namespace {
struct DifferentiatePass
    : public tp::impl::TPDifferentiatePassBase<DifferentiatePass> {
  void runOnOperation() override {
    if (failed(differentiate(getOperation())))
      signalPassFailure();
  }
};
} // namespace
