//===- ModelToLinalg.cpp - export the model dialect to upstream MLIR ------===//
//
// The convert-model-to-linalg pass: inlines composite modules, turns
// parameters into leading function arguments, then replaces every model op
// by the linalg/tensor/arith/math IR its conversion pattern builds
// (ForwardOps.cpp, GradOps.cpp; dropout, the optimizer updates and the
// 16-bit widening here), with DialectConversion.
//
//===----------------------------------------------------------------------===//

#include "tp/Conversion/ModelToLinalg/Passes.h"

#include "LinalgEmitter.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPTypes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tp {
#define GEN_PASS_DEF_CONVERTMODELTOLINALGPASS
#include "tp/Conversion/ModelToLinalg/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

static bool isModelOp(Operation *op) {
  return isa_and_nonnull<m::ModelDialect>(op->getDialect());
}

/// Replaces every `model.module` by its body, outermost first (the inner
/// ones move with their parent's body).
static void inlineModules(func::FuncOp func) {
  SmallVector<m::SubmoduleOp> modules;
  func.walk<WalkOrder::PreOrder>(
      [&](m::SubmoduleOp module) { modules.push_back(module); });
  IRRewriter rewriter(func.getContext());
  for (m::SubmoduleOp module : modules) {
    Block &body = module.getBody().front();
    Operation *yield = body.getTerminator();
    SmallVector<Value> results(yield->getOperands());
    rewriter.inlineBlockBefore(&body, module, module.getInputs());
    rewriter.replaceOp(module, results);
    rewriter.eraseOp(yield);
  }
}

/// Makes each distinct parameter FQN a leading argument of `func`, in order
/// of first use, and renames the inputs' `model.name` to `tp.input`.
static LogicalResult parametersToArguments(func::FuncOp func, ModuleOp module) {
  llvm::MapVector<StringAttr, SmallVector<m::ParamOp>> params;
  func.walk([&](m::ParamOp p) { params[p.getNameAttr()].push_back(p); });

  // Inputs first, while their indices are the original ones: each is named
  // as tp-run names it (its model.name, else `arg<i>`).
  Builder b(func.getContext());
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    DictionaryAttr argAttrs = func.getArgAttrDict(i);
    // An argument an earlier export gave its role keeps it: run again, the
    // pass must not name parameters as inputs or renumber the inputs.
    if (argAttrs &&
        llvm::any_of(ArrayRef<StringRef>{kInputArgAttr, kParamArgAttr,
                                         kStateArgAttr, kStepArgAttr,
                                         kSeedArgAttr},
                     [&](StringRef role) { return argAttrs.contains(role); }))
      continue;
    auto name = argAttrs ? argAttrs.getAs<StringAttr>("model.name") : nullptr;
    func.setArgAttr(i, kInputArgAttr,
                    name ? name : b.getStringAttr("arg" + Twine(i)));
    if (!argAttrs)
      continue;
    for (NamedAttribute attr : argAttrs) {
      StringRef name = attr.getName().getValue();
      if (name == "model.name") {
        func.removeArgAttr(i, attr.getName());
      } else if (name.starts_with("model.")) {
        return func.emitError()
               << "argument " << i << " of @" << func.getSymName()
               << " has the attribute '" << name << "', which has no export";
      }
    }
  }
  if (params.empty())
    return success();
  if (!SymbolTable::symbolKnownUseEmpty(func, module))
    return func.emitError()
           << "@" << func.getSymName()
           << " reads parameters and has callers: its parameters cannot "
              "become arguments";

  unsigned index = 0;
  for (auto &[name, uses] : params) {
    Type type = uses.front().getType();
    bool frozen = false;
    for (m::ParamOp p : uses) {
      if (p.getType() != type)
        return p.emitOpError()
               << "reads parameter '" << name.getValue() << "' as "
               << p.getType() << ", another model.param reads it as " << type;
      frozen |= p.getFrozen();
    }
    SmallVector<NamedAttribute> attrs{b.getNamedAttr(kParamArgAttr, name)};
    if (frozen)
      attrs.push_back(b.getNamedAttr(kFrozenArgAttr, b.getUnitAttr()));
    if (failed(func.insertArgument(index, type, b.getDictionaryAttr(attrs),
                                   uses.front().getLoc())))
      return func.emitError() << "cannot add an argument for parameter '"
                              << name.getValue() << "'";
    BlockArgument arg = func.getArgument(index);
    for (m::ParamOp p : uses) {
      p.getResult().replaceAllUsesWith(arg);
      p.erase();
    }
    ++index;
  }
  return success();
}

/// The element types the export handles: f32 values, i32/i64 ids; plain
/// tensors, not tp's distributed ones.
static LogicalResult checkTypes(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned i) -> LogicalResult {
    if (isa<DTensorType>(type))
      return op->emitOpError()
             << "has a distributed tensor " << what << " #" << i << " (" << type
             << "): convert-model-to-linalg exports per-rank programs; run "
                "tp-partition first";
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return op->emitOpError() << "has " << what << " #" << i << " of type "
                               << type << ": the export needs static shapes";
    // Means and norms divide by an element count; one past int64 would
    // wrap around (to 0 for 2^64) and divide silently wrong.
    int64_t count = 1;
    for (int64_t d : tensor.getShape())
      if (llvm::MulOverflow(count, d, count))
        return op->emitOpError()
               << "has " << what << " #" << i << " of type " << type
               << ": its element count overflows int64";
    Type elt = tensor.getElementType();
    if (!elt.isF32() && !elt.isF16() && !elt.isBF16() && !elt.isInteger(64) &&
        !elt.isInteger(32) && !elt.isInteger(1))
      return op->emitOpError()
             << "has " << what << " #" << i << " of element type " << elt
             << ": the export handles f32, f16 and bf16 values, i32/i64 "
                "ids and i1 masks";
    return success();
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(check(v.getType(), "result", i)))
      return failure();
  return success();
}

namespace {
/// What a training step reads besides parameters and inputs, made
/// arguments: each optimizer update's state, the step number, the seed of
/// the dropout masks.
struct TrainingState {
  DenseMap<Operation *, SmallVector<Value>> state;
  Value step;
  Value seed;
};
} // namespace

/// Appends, for every optimizer update with state (AdamW's moments, SGD's
/// momentum buffer), one argument per state tensor `{tp.state =
/// "fqn.name"}` in program order, then the step number `tensor<i64>
/// {tp.step}` if an update or a training dropout needs it, then the seed
/// `tensor<i64> {tp.seed}` if a training dropout needs it.
static FailureOr<TrainingState> trainingArguments(func::FuncOp func,
                                                  ModuleOp module) {
  TrainingState result;
  SmallVector<Operation *> updates;
  bool dropout = false;
  func.walk([&](Operation *op) {
    if (linalg_export::isOptimizerUpdate(op) &&
        !linalg_export::optimizerStateNames(op).empty())
      updates.push_back(op);
    dropout |= linalg_export::isTrainingDropout(op);
  });
  if (updates.empty() && !dropout)
    return result;
  if (!SymbolTable::symbolKnownUseEmpty(func, module))
    return func.emitError() << "@" << func.getSymName()
                            << " has callers: its optimizer state, step and "
                               "dropout seed cannot become arguments";
  Builder b(func.getContext());
  auto append = [&](Type type, NamedAttribute attr,
                    Location loc) -> FailureOr<Value> {
    unsigned index = func.getNumArguments();
    if (failed(
            func.insertArgument(index, type, b.getDictionaryAttr(attr), loc)))
      return func.emitError() << "cannot add the argument " << attr.getValue();
    return Value(func.getArgument(index));
  };
  for (Operation *op : updates) {
    if (op->getParentOp() != func)
      return op->emitOpError() << "is nested in a region: its state cannot "
                                  "become results";
    StringRef fqn = op->getAttrOfType<StringAttr>("fqn").getValue();
    for (StringRef name : linalg_export::optimizerStateNames(op)) {
      FailureOr<Value> arg = append(
          op->getOperand(0).getType(),
          b.getNamedAttr(kStateArgAttr, b.getStringAttr(fqn + "." + name)),
          op->getLoc());
      if (failed(arg))
        return failure();
      result.state[op].push_back(*arg);
    }
  }
  FailureOr<Value> step =
      append(RankedTensorType::get({}, b.getI64Type()),
             b.getNamedAttr(kStepArgAttr, b.getUnitAttr()), func.getLoc());
  if (failed(step))
    return failure();
  result.step = *step;
  if (!dropout)
    return result;
  FailureOr<Value> seed =
      append(RankedTensorType::get({}, b.getI64Type()),
             b.getNamedAttr(kSeedArgAttr, b.getUnitAttr()), func.getLoc());
  if (failed(seed))
    return failure();
  result.seed = *seed;
  return result;
}

using StateResults = SmallVector<std::pair<Value, std::string>>;

static bool isHalfType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         (tensor.getElementType().isF16() || tensor.getElementType().isBF16());
}

/// True for an op on f16/bf16 tensors.
static bool isHalf(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isHalfType) ||
         llvm::any_of(op->getResultTypes(), isHalfType);
}

namespace {

/// A 16-bit op as tp's executor runs it: its 16-bit operands widened to
/// f32, the kernel in f32, its result rounded once to its type. The f32
/// kernel is a copy of the op on f32 tensors, which the conversion then
/// legalizes with the op's own pattern.
struct WidenHalfPattern : public ConversionPattern {
  explicit WidenHalfPattern(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    // A generic's body is typed by its elements: it is exported as it is.
    if (!isModelOp(op) || !isHalf(op) ||
        isa<m::GenericOp, m::GenericYieldOp>(op))
      return failure();
    linalg_export::Emitter e(rewriter, op->getLoc());
    auto widen = [&](Type type) -> Type {
      if (!isHalfType(type))
        return type;
      return cast<RankedTensorType>(type).clone(rewriter.getF32Type());
    };
    OperationState state(op->getLoc(), op->getName());
    for (Value v : operands) {
      if (!isHalfType(v.getType())) {
        state.addOperands(v);
        continue;
      }
      state.addOperands(
          e.elementwise(linalg_export::shapeOf(v), rewriter.getF32Type(), {v},
                        [](OpBuilder &nb, Location l, ValueRange a) {
                          return SmallVector<Value>{arith::ExtFOp::create(
                              nb, l, nb.getF32Type(), a[0])};
                        }));
    }
    state.addTypes(widen(op->getResult(0).getType()));
    state.propertiesAttr = op->getPropertiesAsAttribute();
    for (NamedAttribute attr : op->getDiscardableAttrs())
      state.addAttribute(attr.getName(), attr.getValue());
    Value value = rewriter.create(state)->getResult(0);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (isHalfType(type))
      value = e.elementwise(type.getShape(), type.getElementType(), {value},
                            [&](OpBuilder &nb, Location l, ValueRange a) {
                              return SmallVector<Value>{arith::TruncFOp::create(
                                  nb, l, type.getElementType(), a[0])};
                            });
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// model.dropout: the identity, or in a training step tp's mask under the
/// step's seed; model.dropout_grad: the same mask again.
template <typename OpT>
struct DropoutPattern : public OpConversionPattern<OpT> {
  DropoutPattern(MLIRContext *ctx, const TrainingState &training)
      : OpConversionPattern<OpT>(ctx), training(training) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getOperands()[0];
    if (!linalg_export::isTrainingDropout(op)) {
      rewriter.replaceOp(op, x);
      return success();
    }
    linalg_export::Emitter e(rewriter, op.getLoc());
    return linalg_export::replaceExported(
        op,
        linalg_export::convertTrainingDropout(op, x, training.seed,
                                              training.step, e),
        rewriter);
  }

  const TrainingState &training;
};

/// An optimizer update: the updated parameter replaces it; its updated
/// state goes to `newState`, returned after the function's results.
template <typename OpT> struct UpdatePattern : public OpConversionPattern<OpT> {
  UpdatePattern(MLIRContext *ctx, const TrainingState &training,
                StateResults &newState)
      : OpConversionPattern<OpT>(ctx), training(training), newState(newState) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange state;
    if (auto it = training.state.find(op); it != training.state.end())
      state = it->second;
    linalg_export::Emitter e(rewriter, op.getLoc());
    SmallVector<Value> updated = linalg_export::convertOptimizerUpdate(
        op, adaptor.getOperands(), state, training.step, e);
    for (auto [v, name] : llvm::zip(ArrayRef<Value>(updated).drop_front(),
                                    linalg_export::optimizerStateNames(op)))
      newState.push_back({v, (op.getFqn() + "." + name).str()});
    return linalg_export::replaceExported(op, updated[0], rewriter);
  }

  const TrainingState &training;
  StateResults &newState;
};

} // namespace

void mlir::tp::populateModelToLinalgPatterns(RewritePatternSet &patterns) {
  linalg_export::populateForwardExportPatterns(patterns);
  linalg_export::populateGradExportPatterns(patterns);
  linalg_export::populateIndexExportPatterns(patterns);
  linalg_export::populateMaskExportPatterns(patterns);
  patterns.add<WidenHalfPattern>(patterns.getContext());
}

/// What the export refuses, checked before anything is rewritten so that
/// the conversion itself cannot fail on a model op it has a pattern for.
static LogicalResult checkExportable(func::FuncOp func) {
  WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isModelOp(op) || isa<m::GenericYieldOp>(op))
      return WalkResult::advance();
    if (failed(checkTypes(op)))
      return WalkResult::interrupt();
    if (op->getNumResults() != 1) {
      op->emitOpError() << "has " << op->getNumResults()
                        << " results: the export converts single-result "
                           "model ops";
      return WalkResult::interrupt();
    }
    if (isHalf(op) && linalg_export::isOptimizerUpdate(op)) {
      op->emitOpError() << "updates a 16-bit parameter: the export handles "
                           "f32 optimizer updates only";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Every model op of `func` replaced by its export, one conversion pattern
/// per op (DialectConversion: an op without one is a legalization error).
static LogicalResult convertOps(func::FuncOp func,
                                const TrainingState &training) {
  if (failed(checkExportable(func)))
    return failure();
  MLIRContext *ctx = func.getContext();
  // The updated optimizer state, returned after the function's results.
  StateResults newState;
  RewritePatternSet patterns(ctx);
  populateModelToLinalgPatterns(patterns);
  patterns.add<DropoutPattern<m::DropoutOp>, DropoutPattern<m::DropoutGradOp>>(
      ctx, training);
  patterns.add<UpdatePattern<m::SGDUpdateOp>, UpdatePattern<m::AdamWUpdateOp>>(
      ctx, training, newState);
  ConversionTarget target(*ctx);
  target.addIllegalDialect<m::ModelDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  if (failed(applyPartialConversion(func, target, std::move(patterns))))
    return failure();
  // The updated state is returned next to the results: from the one
  // return of a single-block body, where every value dominates it.
  if (!newState.empty() && !func.getBody().hasOneBlock())
    return func.emitError()
           << "@" << func.getSymName() << " has "
           << func.getBody().getBlocks().size()
           << " blocks: the optimizer's updated state is returned from a "
              "function of one block only";
  Builder b(ctx);
  for (auto &[value, name] : newState) {
    unsigned index = func.getNumResults();
    if (failed(func.insertResult(index, value.getType(),
                                 b.getDictionaryAttr(b.getNamedAttr(
                                     kStateArgAttr, b.getStringAttr(name))))))
      return func.emitError() << "cannot add the result " << name;
  }
  func.walk([&](func::ReturnOp ret) {
    for (auto &[value, name] : newState)
      ret->insertOperands(ret->getNumOperands(), value);
  });
  return success();
}

LogicalResult mlir::tp::convertModelToLinalg(ModuleOp module) {
  // A plan set but not lowered would be exported as the unparallelized
  // model, the plan attached.
  if (failed(checkPassPrecondition(module, TPPass::ConvertModelToLinalg)))
    return failure();
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    if (func.isExternal())
      continue;
    inlineModules(func);
    if (failed(parametersToArguments(func, module)))
      return failure();
    FailureOr<TrainingState> state = trainingArguments(func, module);
    if (failed(state) || failed(convertOps(func, *state)))
      return failure();
  }
  // Model ops outside a func.func body, and model attributes anywhere, have
  // no export.
  WalkResult leftover = module.walk([&](Operation *op) {
    if (isModelOp(op)) {
      op->emitOpError() << "is outside a func.func: it has no export";
      return WalkResult::interrupt();
    }
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (attr.getName().getValue().starts_with("model.")) {
        op->emitOpError() << "carries the attribute '"
                          << attr.getName().getValue()
                          << "', which has no export";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(leftover.wasInterrupted());
}

namespace {
struct ConvertModelToLinalgPass
    : public mlir::tp::impl::ConvertModelToLinalgPassBase<
          ConvertModelToLinalgPass> {
  void runOnOperation() override {
    if (failed(convertModelToLinalg(getOperation())))
      signalPassFailure();
  }
};
} // namespace
