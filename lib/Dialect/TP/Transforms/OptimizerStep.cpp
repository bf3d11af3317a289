//===- OptimizerStep.cpp - the optimizer update in the training step -----===//
//
// tp-optimizer-step: after tp-differentiate, each parameter gradient feeds
// an update op (`model.sgd_update`, `model.adamw_update`) whose result, the
// updated parameter, the step also returns (marked `tp.updated`); the
// executor keeps it, and the optimizer state, for the next step. The
// update's sharding rule puts the gradient on the parameter's placement, so
// a Partial gradient (a replicated parameter read by sharded activations,
// e.g. a norm weight under sequence parallelism) is reduced there, by the
// same propagation and redistribution lowering as everything else.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/MapVector.h"

#include <cmath>

namespace mlir::tp {
#define GEN_PASS_DEF_TPOPTIMIZERSTEPPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

/// The values the forward program reads parameter `p` as: its distributed
/// forms (one per style that placed it; a tied parameter may have several),
/// and the parameter itself where another op reads it replicated.
static SmallVector<Value> parameterValues(m::ParamOp p) {
  SmallVector<Value> values;
  bool plainUse = false;
  for (Operation *user : p->getUsers()) {
    if (auto d = dyn_cast<DistributeOp>(user))
      values.push_back(d.getResult());
    else
      plainUse = true;
  }
  // In program order (use lists are not), so diagnostics name the first
  // read first.
  llvm::sort(values, [](Value a, Value b) {
    return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
  });
  if (plainUse || values.empty())
    values.insert(values.begin(), p.getResult());
  return values;
}

static LogicalResult addUpdates(func::FuncOp func,
                                const OptimizerOptions &options) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  StringRef gradOf = TPDialect::GradOfAttrHelper::getNameStr();
  StringRef updated = TPDialect::UpdatedAttrHelper::getNameStr();
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (func.getResultAttr(i, updated))
      return func.emitError() << "tp-optimizer-step: @" << func.getSymName()
                              << " already updates its parameters (" << updated
                              << " on result " << i << ")";
  // One value per parameter FQN: the later reads of a tied parameter read
  // the first one's value (one update serves them all), and a parameter
  // read in two placements would need two updates that could drift apart.
  llvm::MapVector<StringRef, Value> params;
  WalkResult walk = func.walk([&](m::ParamOp p) {
    for (Value v : parameterValues(p)) {
      auto [it, fresh] = params.try_emplace(p.getName(), v);
      if (fresh || it->second == v)
        continue;
      if (it->second.getType() == v.getType()) {
        // The one value must dominate every read: it is a parameter or its
        // tp.distribute (whose parameter comes before it), so it can move
        // up to the earlier of the two.
        Operation *keep = it->second.getDefiningOp(), *drop = v.getDefiningOp();
        if (drop->isBeforeInBlock(keep)) {
          if (auto d = dyn_cast<DistributeOp>(keep))
            if (Operation *param = d.getInput().getDefiningOp();
                param && drop->isBeforeInBlock(param))
              param->moveBefore(drop);
          keep->moveBefore(drop);
        }
        v.replaceAllUsesWith(it->second);
        continue;
      }
      p.emitError() << "tp-optimizer-step: parameter '" << p.getName()
                    << "' is read as " << it->second.getType() << " and as "
                    << v.getType()
                    << "; the optimizer updates one placement of a "
                       "parameter (place tied weights alike)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  OpBuilder b(ret);
  // Everything inserted before the return from here on is the optimizer's
  // (tp.phase); the tied parameters above only moved up.
  Operation *lastBefore = ret->getPrevNode();
  SmallVector<Value> results(ret.getOperands());
  // The parameter of each gradient result.
  DenseMap<unsigned, Value> paramOf;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto fqn = func.getResultAttrOfType<StringAttr>(i, gradOf);
    if (!fqn)
      continue;
    Value param = params.lookup(fqn.getValue());
    if (!param)
      return func.emitError()
             << "tp-optimizer-step: result " << i << " is the gradient of '"
             << fqn.getValue() << "', which @" << func.getSymName()
             << " does not read";
    paramOf[i] = param;
  }
  // Each gradient reduced over ranks (a Partial where its parameter is not)
  // is reduced explicitly where the default would not do it right:
  // - A gradient that its parameter's placement shards where the gradient
  //   is Partial (FSDP: the batch and the parameter are both split over the
  //   axis) is reduce-scattered to the parameter's placement as soon as the
  //   backward has computed it, as FSDP does after each unit's backward:
  //   the whole gradient dies there, and only the shard lives on to the
  //   update and is returned, as FSDP's sharded .grad.
  // - With a reduce dtype other than the gradient's, the gradient is
  //   reduced in it (FSDP2's reduce_dtype): a mixed-precision parameter's
  //   16-bit gradient before tp-mixed-precision's cast widens it, any other
  //   gradient cast to a wider type and back.
  // Other gradients are reduced by the update's sharding rule, in the
  // optimizer's phase, as they always were.
  Type reduceType;
  if (!options.reduceDtype.empty()) {
    FailureOr<FloatType> t =
        parseComputeDtype(func.getContext(), options.reduceDtype);
    if (failed(t))
      return func.emitError() << "tp-optimizer-step: reduce-dtype must be "
                                 "f32, bf16 or f16, not '"
                              << options.reduceDtype << "'";
    reduceType = *t;
  }
  // The widening casts whose gradients are now reduced first (dead once
  // the step returns what replaces them).
  SmallVector<m::CastOp> widened;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    if (!paramOf.count(i))
      continue;
    auto g = dyn_cast<DTensorType>(results[i].getType());
    if (!g)
      continue;
    // A parameter read whole (a plain tensor) is replicated.
    auto p = dyn_cast<DTensorType>(paramOf[i].getType());
    SmallVector<Attribute> target =
        p ? SmallVector<Attribute>(p.getPlacements())
          : SmallVector<Attribute>(g.getPlacements().size(),
                                   ReplicateAttr::get(func.getContext()));
    bool reduced = false, scattered = false;
    for (auto [pp, gp] : llvm::zip(target, g.getPlacements())) {
      reduced |= isa<PartialAttr>(gp) && !isa<PartialAttr>(pp);
      scattered |= getSplitDim(pp) && isa<PartialAttr>(gp);
    }
    if (!reduced)
      continue;
    StringRef fqn = func.getResultAttrOfType<StringAttr>(i, gradOf).getValue();
    Type own = g.getElementType();
    // What is reduced: the gradient, or the 16-bit gradient it widens.
    Value source = results[i];
    bool widen = false;
    if (reduceType && reduceType != own) {
      auto c = source.getDefiningOp<m::CastOp>();
      if (c && getTensorLikeElementType(c.getInput().getType()) == reduceType) {
        source = c.getInput();
        widened.push_back(c);
      } else if (reduceType.getIntOrFloatBitWidth() >
                 own.getIntOrFloatBitWidth())
        widen = true;
      else
        return func.emitError()
               << "tp-optimizer-step: reduce-dtype " << reduceType
               << " for the gradient of '" << fqn << "', which is computed in "
               << own
               << ": a gradient is reduced in its own dtype or a wider one "
                  "(compute in "
               << reduceType << " with tp-mixed-precision to reduce in it)";
    }
    if (source == results[i] && !widen && !scattered)
      continue;
    // FSDP's reduce-scatter follows the backward and counts for the module
    // that owns the parameter; the others stay in the optimizer's phase,
    // counted for the parameter, as the update's rule would place them.
    OpBuilder at(func.getContext());
    if (scattered)
      at.setInsertionPointAfterValue(source);
    else
      at.setInsertionPoint(ret);
    Location loc = ret.getLoc();
    SmallVector<Operation *> made;
    auto castTo = [&](Value v, Type element) -> Value {
      auto d = cast<DTensorType>(v.getType());
      auto c = m::CastOp::create(
          at, loc,
          DTensorType::get(func.getContext(), d.getShape(), element,
                           d.getMesh(), d.getPlacements()),
          v);
      made.push_back(c);
      return c.getResult();
    };
    Value v = widen ? castTo(source, reduceType) : source;
    v = ensurePlacements(at, loc, v, g.getMesh(), target,
                         scattered ? getParameterOwner(fqn) : fqn);
    made.push_back(v.getDefiningOp());
    if (getTensorLikeElementType(v.getType()) != own)
      v = castTo(v, own);
    if (scattered)
      for (Operation *op : made)
        setPhase(op, Phase::Backward);
    results[i] = v;
  }
  // The first new op: placements are propagated from there.
  Operation *first = nullptr;
  // Clipping by the global norm (clip_grad_norm_): every gradient scaled by
  // one coefficient; the step returns the clipped gradients, as PyTorch
  // leaves them in .grad. Each gradient is taken as its update reads it
  // (on its parameter's placement, a Partial one reduced once), since the
  // sum of squares needs whole values.
  if (options.maxGradNorm > 0 && !paramOf.empty()) {
    Location loc = ret.getLoc();
    SmallVector<Value> grads;
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      if (!paramOf.count(i))
        continue;
      // A parameter read whole (a plain tensor) is replicated.
      if (auto p = dyn_cast<DTensorType>(paramOf[i].getType()))
        results[i] = ensurePlacements(b, loc, results[i], p.getMesh(),
                                      p.getPlacements(), /*module=*/"");
      else if (auto g = dyn_cast<DTensorType>(results[i].getType()))
        results[i] = ensurePlacements(
            b, loc, results[i], g.getMesh(),
            SmallVector<Attribute>(g.getPlacements().size(),
                                   ReplicateAttr::get(b.getContext())),
            /*module=*/"");
      grads.push_back(results[i]);
    }
    auto scalar = RankedTensorType::get({}, b.getF32Type());
    Value squares = m::SumSquaresOp::create(b, loc, scalar, grads);
    first = squares.getDefiningOp();
    Value coef = m::ClipCoefficientOp::create(
        b, loc, scalar, squares, b.getF64FloatAttr(options.maxGradNorm));
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      if (!paramOf.count(i))
        continue;
      Value g = results[i];
      auto type = RankedTensorType::get(getTensorLikeShape(g.getType()),
                                        getTensorLikeElementType(g.getType()));
      results[i] = m::MulOp::create(b, loc, type, g, coef);
    }
  }
  SmallVector<DictionaryAttr> attrs;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    attrs.push_back(func.getResultAttrDict(i));
  TPDialect::UpdatedAttrHelper updatedHelper(func.getContext());
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto fqn = func.getResultAttrOfType<StringAttr>(i, gradOf);
    if (!fqn)
      continue;
    Value param = paramOf[i];
    Value grad = results[i];
    auto type =
        RankedTensorType::get(getTensorLikeShape(param.getType()),
                              getTensorLikeElementType(param.getType()));
    Operation *update;
    if (options.kind == "sgd")
      update = m::SGDUpdateOp::create(
          b, ret.getLoc(), type, fqn, param, grad,
          b.getF64FloatAttr(options.lr), b.getF64FloatAttr(options.momentum),
          b.getF64FloatAttr(options.dampening),
          b.getF64FloatAttr(options.weightDecay < 0 ? 0 : options.weightDecay),
          b.getBoolAttr(options.nesterov));
    else
      update = m::AdamWUpdateOp::create(
          b, ret.getLoc(), type, fqn, param, grad,
          b.getF64FloatAttr(options.lr), b.getF64FloatAttr(options.beta1),
          b.getF64FloatAttr(options.beta2), b.getF64FloatAttr(options.eps),
          b.getF64FloatAttr(options.weightDecay < 0 ? 0.01
                                                    : options.weightDecay));
    if (failed(mlir::verify(update)))
      return failure();
    first = first ? first : update;
    results.push_back(update->getResult(0));
    NamedAttrList list;
    list.append(updatedHelper.getName(), fqn);
    attrs.push_back(list.getDictionary(func.getContext()));
  }
  // f16 keeps no value below 2^-24 (6e-8): AdamW's eps, added to a root
  // stored in f16, vanishes, and a zero second moment divides by zero, as
  // it does in PyTorch. Said once per function, naming a parameter.
  if (options.kind == "adamw" && options.eps < 0x1p-24)
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      if (auto fqn = func.getResultAttrOfType<StringAttr>(i, gradOf);
          fqn && getTensorLikeElementType(paramOf[i].getType()).isF16()) {
        func.emitWarning()
            << "tp-optimizer-step: AdamW's eps " << options.eps
            << " is below the smallest f16 (2^-24, about 6e-8), so it adds "
               "nothing to the f16 denominator of '"
            << fqn.getValue()
            << "' and a zero second moment gives inf or NaN, as in PyTorch; "
               "use eps >= 1e-4 or f32 parameters";
        break;
      }
  if (!first)
    return func.emitError() << "tp-optimizer-step: @" << func.getSymName()
                            << " returns no gradient (" << gradOf
                            << "); run tp-differentiate first";
  for (Operation &op :
       llvm::make_range(lastBefore ? std::next(lastBefore->getIterator())
                                   : ret->getBlock()->begin(),
                        Block::iterator(ret)))
    setPhase(&op, Phase::Optimizer);
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  for (m::CastOp c : widened)
    if (c->use_empty())
      c->erase();
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  func.setAllResultAttrs(attrs);
  return propagatePlacementsFrom(first);
}

LogicalResult mlir::tp::addOptimizerStep(ModuleOp module,
                                         const OptimizerOptions &options) {
  if (std::string problem =
          checkOptimizerOptions(options, OptionSyntax::PassOptions);
      !problem.empty())
    return module.emitError() << "tp-optimizer-step: " << problem;
  if (failed(checkPassPrecondition(module, TPPass::OptimizerStep)))
    return failure();
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && failed(addUpdates(func, options)))
      return failure();
  return success();
}

namespace {
struct OptimizerStepPass
    : public tp::impl::TPOptimizerStepPassBase<OptimizerStepPass> {
  using TPOptimizerStepPassBase::TPOptimizerStepPassBase;
  void runOnOperation() override {
    OptimizerOptions options;
    options.kind = optimizer;
    options.lr = lr;
    options.momentum = momentum;
    options.dampening = dampening;
    options.weightDecay = weightDecay;
    options.nesterov = nesterov;
    options.beta1 = beta1;
    options.beta2 = beta2;
    options.eps = eps;
    options.maxGradNorm = maxGradNorm;
    options.reduceDtype = reduceDtype;
    // The options set to other than their defaults count as given (a pass
    // built from its options struct, as tp-pipeline builds it, has every
    // option set): an option of the other optimizer at its default value
    // changes nothing.
    const OptimizerOptions defaults;
    std::pair<const char *, bool> changed[] = {
        {"lr", options.lr != defaults.lr},
        {"momentum", options.momentum != defaults.momentum},
        {"dampening", options.dampening != defaults.dampening},
        {"weight-decay", options.weightDecay != defaults.weightDecay},
        {"nesterov", options.nesterov != defaults.nesterov},
        {"beta1", options.beta1 != defaults.beta1},
        {"beta2", options.beta2 != defaults.beta2},
        {"eps", options.eps != defaults.eps},
        {"max-grad-norm", options.maxGradNorm != defaults.maxGradNorm}};
    for (auto [option, isChanged] : changed)
      if (isChanged)
        options.given.push_back(option);
    if (failed(addOptimizerStep(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace
