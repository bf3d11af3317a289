//===- Differentiate.cpp - reverse-mode differentiation of a model --------===//
//
// tp-differentiate: a model function ending in a scalar loss becomes a
// training step that returns the loss and the gradient of every parameter.
// Composite modules are inlined; the backward ops (ModelGradOps.td) follow
// the forward ops in reverse order, typed with the global shapes of what
// they are gradients of; then placements are propagated through them by the
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
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

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
      : func(func), builder(func.getContext()) {}

  LogicalResult run() {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    Value loss = ret.getNumOperands() == 1 ? ret.getOperand(0) : Value();
    if (!loss || !getTensorLikeShape(loss.getType()).empty() ||
        !isa<FloatType>(getTensorLikeElementType(loss.getType()))) {
      InFlightDiagnostic diag =
          func.emitError() << "tp-differentiate: @" << func.getSymName()
                           << " must return one scalar loss, but returns (";
      llvm::interleaveComma(ret.getOperandTypes(), diag);
      return diag << ")";
    }
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
    if (!active.contains(loss))
      return func.emitError()
             << "tp-differentiate: the loss of @" << func.getSymName()
             << " depends on no parameter: there is nothing to train";

    builder.setInsertionPoint(ret);
    Location loc = ret.getLoc();
    Value seed = m::FullOp::create(builder, loc, gradType(loss),
                                   builder.getF64FloatAttr(1.0));
    Operation *first = seed.getDefiningOp();
    grads[loss] = seed;
    for (Operation *op : llvm::reverse(forward)) {
      if (op->getNumResults() != 1)
        continue;
      auto it = grads.find(op->getResult(0));
      if (it == grads.end())
        continue;
      if (failed(backward(op, it->second)))
        return failure();
    }

    // The step returns the loss, then one gradient per parameter FQN, in
    // the order the parameters are first defined.
    llvm::MapVector<StringRef, Value> ordered;
    for (Operation *op : forward)
      if (auto p = dyn_cast<m::ParamOp>(op))
        if (auto it = paramGrads.find(p.getName()); it != paramGrads.end())
          ordered.insert(*it);
    paramGrads = std::move(ordered);
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
  /// What the gradient of `v` is typed before propagation: `v`'s global
  /// tensor type.
  static RankedTensorType gradType(Value v) {
    return RankedTensorType::get(getTensorLikeShape(v.getType()),
                                 getTensorLikeElementType(v.getType()));
  }

  /// Marks the values that depend on a parameter: only they get gradients.
  void markActive(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      if (auto p = dyn_cast<m::ParamOp>(op); p && p.getFrozen())
        continue; // requires_grad=False: no gradient flows from it
      else if (isa<m::ParamOp>(op) ||
               (!isa<m::DetachOp>(op) &&
                llvm::any_of(op->getOperands(),
                             [&](Value v) { return active.contains(v); })))
        for (Value r : op->getResults())
          active.insert(r);
  }

  /// Adds `g` to the gradient of `v` (nothing for a value no parameter
  /// reaches).
  void accumulate(Value v, Value g) {
    if (!active.contains(v))
      return;
    auto [it, fresh] = grads.try_emplace(v, g);
    if (!fresh)
      it->second =
          m::AddOp::create(builder, g.getLoc(), gradType(v), it->second, g);
  }

  /// `g` summed back to the shape of `operand` (a broadcast operand).
  Value sumTo(Value g, Value operand) {
    if (getTensorLikeShape(g.getType()) ==
        getTensorLikeShape(operand.getType()))
      return g;
    return m::SumToOp::create(builder, g.getLoc(), gradType(operand), g);
  }

  bool isActive(Value v) const { return v && active.contains(v); }

  LogicalResult backward(Operation *op, Value g) {
    Location loc = op->getLoc();
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](m::ParamOp p) {
          auto [it, fresh] = paramGrads.try_emplace(p.getName(), g);
          if (!fresh) // A tied parameter: one gradient, the sum.
            it->second =
                m::AddOp::create(builder, loc, gradType(p), it->second, g);
          return success();
        })
        .Case([&](m::LinearOp l) {
          if (isActive(l.getInput()))
            accumulate(l.getInput(), m::LinearGradInputOp::create(
                                         builder, loc, gradType(l.getInput()),
                                         l.getFqnAttr(), g, l.getWeight()));
          if (isActive(l.getWeight()))
            accumulate(l.getWeight(), m::LinearGradWeightOp::create(
                                          builder, loc, gradType(l.getWeight()),
                                          l.getFqnAttr(), g, l.getInput()));
          if (isActive(l.getBias()))
            accumulate(l.getBias(), sumTo(g, l.getBias()));
          return success();
        })
        .Case([&](m::ReluOp a) {
          return activation<m::ReluGradOp>(a.getInput(), g);
        })
        .Case([&](m::GeluOp a) {
          return activation<m::GeluGradOp>(a.getInput(), g);
        })
        .Case([&](m::SiluOp a) {
          return activation<m::SiluGradOp>(a.getInput(), g);
        })
        .Case([&](m::AddOp a) {
          accumulate(a.getLhs(), sumTo(g, a.getLhs()));
          accumulate(a.getRhs(), sumTo(g, a.getRhs()));
          return success();
        })
        .Case([&](m::SubOp s) {
          accumulate(s.getLhs(), sumTo(g, s.getLhs()));
          if (isActive(s.getRhs())) {
            Value gr = sumTo(g, s.getRhs());
            accumulate(s.getRhs(),
                       m::NegOp::create(builder, loc, gr.getType(), gr));
          }
          return success();
        })
        .Case([&](m::MulOp mul) {
          Value a = mul.getLhs(), b = mul.getRhs();
          if (isActive(a))
            accumulate(
                a, sumTo(m::MulOp::create(builder, loc, gradType(g), g, b), a));
          if (isActive(b))
            accumulate(
                b, sumTo(m::MulOp::create(builder, loc, gradType(g), g, a), b));
          return success();
        })
        .Case([&](m::MeanOp mean) {
          accumulate(mean.getInput(),
                     m::MeanGradOp::create(builder, loc,
                                           gradType(mean.getInput()), g));
          return success();
        })
        .Case([&](m::LayerNormOp n) {
          Value x = n.getInput();
          if (isActive(x))
            accumulate(x, m::LayerNormGradInputOp::create(
                              builder, loc, gradType(x), n.getFqnAttr(), g, x,
                              n.getWeight(), n.getEpsAttr()));
          if (isActive(n.getWeight()))
            accumulate(n.getWeight(),
                       m::LayerNormGradWeightOp::create(
                           builder, loc, gradType(n.getWeight()),
                           n.getFqnAttr(), g, x, n.getEpsAttr()));
          if (isActive(n.getBias()))
            accumulate(n.getBias(), sumTo(g, n.getBias()));
          return success();
        })
        .Case([&](m::RMSNormOp n) {
          Value x = n.getInput();
          if (isActive(x))
            accumulate(x, m::RMSNormGradInputOp::create(
                              builder, loc, gradType(x), n.getFqnAttr(), g, x,
                              n.getWeight(), n.getEpsAttr()));
          if (isActive(n.getWeight()))
            accumulate(n.getWeight(),
                       m::RMSNormGradWeightOp::create(
                           builder, loc, gradType(n.getWeight()),
                           n.getFqnAttr(), g, x, n.getEpsAttr()));
          return success();
        })
        .Case([&](m::EmbeddingOp e) {
          Value w = e.getWeight();
          accumulate(w, m::EmbeddingGradOp::create(builder, loc, gradType(w),
                                                   e.getFqnAttr(), g,
                                                   e.getIds(), w));
          return success();
        })
        .Case([&](m::SoftmaxOp s) {
          accumulate(s.getInput(), m::SoftmaxGradOp::create(
                                       builder, loc, gradType(s.getInput()), g,
                                       s.getResult(), s.getDimAttr()));
          return success();
        })
        .Case([&](m::ReshapeOp r) {
          accumulate(
              r.getInput(),
              m::ReshapeOp::create(builder, loc, gradType(r.getInput()), g));
          return success();
        })
        .Case([&](m::TransposeOp t) {
          // The inverse permutation: dim perm[i] of the input is dim i.
          ArrayRef<int64_t> perm = t.getPermutation();
          SmallVector<int64_t> inverse(perm.size());
          for (auto [i, p] : llvm::enumerate(perm))
            inverse[p] = i;
          accumulate(t.getInput(),
                     m::TransposeOp::create(
                         builder, loc, gradType(t.getInput()), g, inverse));
          return success();
        })
        .Case([&](m::RotaryOp r) {
          accumulate(r.getInput(), m::RotaryGradOp::create(
                                       builder, loc, gradType(r.getInput()), g,
                                       r.getThetaAttr()));
          return success();
        })
        .Case([&](m::AttentionOp a) {
          Value q = a.getQ(), k = a.getK(), v = a.getV();
          if (isActive(q))
            accumulate(q,
                       m::AttentionGradQOp::create(builder, loc, gradType(q), g,
                                                   q, k, v, a.getCausalAttr()));
          if (isActive(k))
            accumulate(k,
                       m::AttentionGradKOp::create(builder, loc, gradType(k), g,
                                                   q, k, v, a.getCausalAttr()));
          if (isActive(v))
            accumulate(v,
                       m::AttentionGradVOp::create(builder, loc, gradType(v), g,
                                                   q, k, v, a.getCausalAttr()));
          return success();
        })
        .Case([&](m::MatmulOp mm) { return matmul(mm, g); })
        .Case([&](m::ExpOp e) {
          // d exp(x) = exp(x) dx: the forward result times the gradient.
          accumulate(e.getInput(),
                     m::MulOp::create(builder, loc, gradType(e.getInput()), g,
                                      e.getResult()));
          return success();
        })
        .Case([&](m::LogOp l) {
          return activation<m::LogGradOp>(l.getInput(), g);
        })
        .Case([&](m::ReduceSumOp r) {
          accumulate(r.getInput(), m::ReduceSumGradOp::create(
                                       builder, loc, gradType(r.getInput()), g,
                                       r.getInput(), r.getDimAttr()));
          return success();
        })
        .Case([&](m::ReduceMaxOp r) {
          accumulate(r.getInput(), m::ReduceMaxGradOp::create(
                                       builder, loc, gradType(r.getInput()), g,
                                       r.getInput(), r.getDimAttr()));
          return success();
        })
        .Case([&](m::CrossEntropyOp ce) {
          accumulate(ce.getLogits(),
                     m::CrossEntropyGradOp::create(
                         builder, loc, gradType(ce.getLogits()), g,
                         ce.getLogits(), ce.getTargets(), ce.getCountAttr()));
          return success();
        })
        .Case([&](m::TargetLogitOp t) {
          accumulate(t.getLogits(), m::TargetLogitGradOp::create(
                                        builder, loc, gradType(t.getLogits()),
                                        g, t.getLogits(), t.getTargets()));
          return success();
        })
        .Case([&](m::DropoutOp d) {
          // The same mask again (its key is the forward's), or the
          // identity at p = 0.
          Value x = d.getInput();
          accumulate(x, d.getTrain() ? m::DropoutGradOp::create(
                                           builder, loc, gradType(x),
                                           d.getFqnAttr(), g, d.getPAttr())
                                     : g);
          return success();
        })
        // Layout ops keep the global value: its gradient passes through,
        // and propagation redistributes it where a backward op needs.
        .Case<DistributeOp, RedistributeOp, ToLocalOp>([&](Operation *) {
          accumulate(op->getOperand(0), g);
          return success();
        })
        .Default([&](Operation *) {
          InFlightDiagnostic diag = op->emitError()
                                    << "tp-differentiate: '" << op->getName()
                                    << "' has no backward rule yet";
          if (StringRef fqn = m::getModuleFQN(op); !fqn.empty())
            diag << " (in '" << fqn << "')";
          return diag;
        });
  }

  /// a [..., m, k] @ b [..., k, n]: a gets g @ b^T, b gets a^T @ g, each
  /// summed over the batch dims it was broadcast along.
  LogicalResult matmul(m::MatmulOp mm, Value g) {
    Location loc = mm.getLoc();
    auto transposed = [&](Value v) {
      SmallVector<int64_t> shape(getTensorLikeShape(v.getType()));
      SmallVector<int64_t> perm =
          llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
      std::swap(perm[perm.size() - 2], perm.back());
      std::swap(shape[shape.size() - 2], shape.back());
      auto type =
          RankedTensorType::get(shape, getTensorLikeElementType(v.getType()));
      return m::TransposeOp::create(builder, loc, type, v, perm);
    };
    auto product = [&](Value lhs, Value rhs) {
      auto l = getTensorLikeShape(lhs.getType()),
           r = getTensorLikeShape(rhs.getType());
      // Batch dims broadcast as the forward's verifier allows.
      SmallVector<int64_t> shape(l.size() >= r.size() ? l.drop_back(2)
                                                      : r.drop_back(2));
      shape.push_back(l[l.size() - 2]);
      shape.push_back(r.back());
      auto type =
          RankedTensorType::get(shape, getTensorLikeElementType(g.getType()));
      return m::MatmulOp::create(builder, loc, type, lhs, rhs);
    };
    Value a = mm.getLhs(), b = mm.getRhs();
    if (isActive(a))
      accumulate(a, sumTo(product(g, transposed(b)), a));
    if (isActive(b))
      accumulate(b, sumTo(product(transposed(a), g), b));
    return success();
  }

  template <typename GradOp> LogicalResult activation(Value x, Value g) {
    accumulate(x, GradOp::create(builder, g.getLoc(), gradType(x), g, x));
    return success();
  }

  func::FuncOp func;
  OpBuilder builder;
  DenseSet<Value> active;
  DenseMap<Value, Value> grads;
  /// Parameter gradients by FQN.
  llvm::MapVector<StringRef, Value> paramGrads;
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
