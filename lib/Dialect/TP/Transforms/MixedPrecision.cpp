//===- MixedPrecision.cpp - 16-bit compute on f32 master parameters -------===//
//
// tp-mixed-precision: FSDP2's MixedPrecisionPolicy(param_dtype) on a placed
// model. The parameters stay f32 (the masters the optimizer steps and
// checkpoints store, placed as the plan says) and the model computes in
// the param dtype:
//
// - each parameter is read through a model.cast to the param dtype right
//   after it is placed, so an FSDP parameter is gathered as its 16-bit
//   shard, as FSDP2 gathers it;
// - every f32 value computed from the parameters and the inputs is
//   retyped (a float input is cast where it is first read);
// - the cross entropy (also as loss_parallel's steps) reads its logits
//   cast to f32 and computes the loss in f32, as torchtitan's loss does;
// - model.generic ops and ops of other dialects (a func.call) compute on
//   the types they were written for, their operands cast to f32;
// - each result is cast back to the type the function returns.
//
// After tp-lower-styles and before tp-differentiate: the backward of each
// parameter's cast gives the parameter an f32 gradient, and a Partial
// gradient passes that widening cast, so it is reduced in f32 unless
// tp-optimizer-step's reduce-dtype says otherwise.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPMIXEDPRECISIONPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;
namespace m = mlir::tp::model;

StringRef mlir::tp::canonicalComputeDtype(StringRef name) {
  std::string lower = name.lower();
  if (llvm::is_contained({"f32", "float32", "float", "fp32"}, lower))
    return "f32";
  if (llvm::is_contained({"bf16", "bfloat16"}, lower))
    return "bf16";
  if (llvm::is_contained({"f16", "float16", "half", "fp16"}, lower))
    return "f16";
  return "";
}

FailureOr<FloatType> mlir::tp::parseComputeDtype(MLIRContext *ctx,
                                                 StringRef name) {
  StringRef canonical = canonicalComputeDtype(name);
  if (canonical == "f32")
    return FloatType(Float32Type::get(ctx));
  if (canonical == "bf16")
    return FloatType(BFloat16Type::get(ctx));
  if (canonical == "f16")
    return FloatType(Float16Type::get(ctx));
  return failure();
}

/// `t` (a tensor or a dtensor) with element type `element`.
static Type withElementType(Type t, Type element) {
  if (auto d = dyn_cast<DTensorType>(t))
    return DTensorType::get(t.getContext(), d.getShape(), element, d.getMesh(),
                            d.getPlacements());
  return cast<RankedTensorType>(t).clone(element);
}

static bool isF32Tensor(Type t) {
  return isTensorLike(t) && getTensorLikeElementType(t).isF32();
}

static bool isFloatTensor(Type t) {
  return isTensorLike(t) && isa<FloatType>(getTensorLikeElementType(t));
}

/// The logits a loss reads, and the ops of the loss that read them: a
/// cross entropy, or the steps tp-lower-styles' loss_parallel rewrites one
/// into (`l - detach(reduce_max(l))`, read by the target logit and the
/// exp; see decomposeCrossEntropy).
static std::optional<std::pair<Value, SmallVector<Operation *>>>
getLossLogits(Operation *op) {
  if (auto ce = dyn_cast<m::CrossEntropyOp>(op))
    return std::make_pair(ce.getLogits(), SmallVector<Operation *>{op});
  auto target = dyn_cast<m::TargetLogitOp>(op);
  if (!target)
    return std::nullopt;
  // Placed, the row maximum is reduced over the class shards on its way.
  auto throughRedistributions = [](Value v) {
    while (auto r = v.getDefiningOp<RedistributeOp>())
      v = r.getInput();
    return v;
  };
  auto shift = target.getLogits().getDefiningOp<m::SubOp>();
  auto detach =
      shift
          ? throughRedistributions(shift.getRhs()).getDefiningOp<m::DetachOp>()
          : nullptr;
  auto max = detach ? throughRedistributions(detach.getInput())
                          .getDefiningOp<m::ReduceMaxOp>()
                    : nullptr;
  if (!max || max.getInput() != shift.getLhs())
    return std::make_pair(target.getLogits(), SmallVector<Operation *>{op});
  return std::make_pair(shift.getLhs(),
                        SmallVector<Operation *>{shift, max.getOperation()});
}

namespace {

class Retyper {
public:
  Retyper(func::FuncOp func, FloatType narrow)
      : func(func), narrow(narrow), wide(Float32Type::get(func.getContext())) {}

  LogicalResult run() {
    collectLossOps();
    castParameters();
    visitBlock(func.getBody().front());
    castResults();
    // The casts were typed with their operand's placements; a narrowing
    // cast of a Partial must reduce first, as its rule says, and the
    // propagation decides that for every op again (the others keep their
    // placements).
    return propagatePlacements(func, /*checkPrecondition=*/false);
  }

private:
  /// The loss ops (cross entropies and what they compute from) stay f32:
  /// the forward slice of the ops that read the logits, up to the return.
  void collectLossOps() {
    SmallVector<Operation *> work;
    func.walk([&](Operation *op) {
      if (auto loss = getLossLogits(op))
        for (Operation *reader : loss->second)
          work.push_back(reader);
    });
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (isa<func::ReturnOp, m::YieldOp>(op) || !wideOps.insert(op))
        continue;
      for (Value r : op->getResults())
        for (Operation *user : r.getUsers())
          work.push_back(user);
    }
  }

  /// Each f32 parameter is read through a cast to the compute type right
  /// after each of its placed forms (its tp.distribute, or the parameter
  /// itself where it is read whole): the optimizer updates the f32 value,
  /// and an FSDP gather (a redistribute of the placed form) moves the
  /// narrow shard.
  void castParameters() {
    SmallVector<m::ParamOp> params;
    func.walk([&](m::ParamOp p) { params.push_back(p); });
    for (m::ParamOp p : params) {
      if (!p.getType().getElementType().isF32())
        continue;
      SmallVector<Value> reads;
      bool whole = false;
      for (Operation *user : p->getUsers()) {
        if (auto d = dyn_cast<DistributeOp>(user))
          reads.push_back(d.getResult());
        else
          whole = true;
      }
      if (whole)
        reads.push_back(p.getResult());
      for (Value v : reads) {
        Value c = castAfter(v, narrow);
        v.replaceUsesWithIf(c, [&](OpOperand &use) {
          return use.getOwner() != c.getDefiningOp() &&
                 !isa<DistributeOp>(use.getOwner());
        });
      }
    }
  }

  /// One cast of `v` to `element`, right after `v` is defined (at the
  /// start of its block for a block argument), shared by every reader.
  Value castAfter(Value v, Type element) {
    auto key = std::make_pair(v, element);
    if (Value c = casts.lookup(key))
      return c;
    OpBuilder b(func.getContext());
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    auto c = m::CastOp::create(b, v.getLoc(),
                               withElementType(v.getType(), element), v);
    ownCasts.insert(c);
    casts[key] = c.getResult();
    return c.getResult();
  }

  /// Casts every float operand of `op` whose element type is not `element`.
  void castOperands(Operation *op, Type element) {
    for (OpOperand &operand : op->getOpOperands()) {
      Type t = operand.get().getType();
      if (isFloatTensor(t) && getTensorLikeElementType(t) != element)
        operand.set(castAfter(operand.get(), element));
    }
  }

  void retypeResults(Operation *op) {
    for (Value r : op->getResults())
      if (isF32Tensor(r.getType()))
        r.setType(withElementType(r.getType(), narrow));
  }

  void visitBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      visit(&op);
  }

  void visit(Operation *op) {
    if (ownCasts.contains(op) || isa<m::ParamOp, m::YieldOp>(op))
      return;
    if (auto sub = dyn_cast<m::SubmoduleOp>(op)) {
      Block &body = sub.getBody().front();
      for (auto [arg, in] : llvm::zip(body.getArguments(), sub.getInputs()))
        arg.setType(in.getType());
      visitBlock(body);
      auto yield = cast<m::YieldOp>(body.getTerminator());
      for (auto [res, v] : llvm::zip(sub.getOutputs(), yield.getValues()))
        res.setType(v.getType());
      return;
    }
    if (isa<func::ReturnOp>(op))
      return; // castResults
    // Placement changes keep their input's element type.
    if (isa<DistributeOp, RedistributeOp, FromLocalOp, ToLocalOp>(op)) {
      Type in = op->getOperand(0).getType();
      Value r = op->getResult(0);
      if (isFloatTensor(in) && isFloatTensor(r.getType()))
        r.setType(withElementType(r.getType(), getTensorLikeElementType(in)));
      return;
    }
    // A source of values (a constant, an arange) computes in f32; its
    // readers cast it.
    if (!isa<m::CastOp>(op) &&
        llvm::none_of(op->getOperandTypes(), isFloatTensor))
      return;
    bool ours = isa<m::ModelDialect, TPDialect>(op->getDialect());
    if (wideOps.contains(op) || isa<m::GenericOp>(op) || !ours) {
      // Computes on what it was written for: f32.
      castOperands(op, wide);
      return;
    }
    // A cast converts from whatever it reads; the others read the compute
    // type.
    if (!isa<m::CastOp>(op))
      castOperands(op, narrow);
    retypeResults(op);
  }

  /// The function returns what it returned before: each result cast back.
  void castResults() {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [operand, type] :
         llvm::zip(ret->getOpOperands(), func.getResultTypes())) {
      Type t = operand.get().getType();
      if (t != type && isFloatTensor(t) && isFloatTensor(type))
        operand.set(castAfter(operand.get(), getTensorLikeElementType(type)));
    }
  }

  func::FuncOp func;
  FloatType narrow;
  Type wide;
  llvm::SetVector<Operation *> wideOps;
  DenseSet<Operation *> ownCasts;
  DenseMap<std::pair<Value, Type>, Value> casts;
};

} // namespace

LogicalResult mlir::tp::applyMixedPrecision(func::FuncOp func,
                                            FloatType paramType) {
  if (func.isExternal() || paramType.isF32())
    return success();
  StringRef gradOf = TPDialect::GradOfAttrHelper::getNameStr();
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (func.getResultAttr(i, gradOf))
      return func.emitError()
             << "tp-mixed-precision: @" << func.getSymName()
             << " is already a training step (" << gradOf << " on result " << i
             << "); run tp-mixed-precision before tp-differentiate";
  // The masters are the f32 parameters: a model in 16 bits has none.
  bool anyParam = false, anyMaster = false;
  Type other;
  func.walk([&](m::ParamOp p) {
    anyParam = true;
    Type t = p.getType().getElementType();
    if (t.isF32())
      anyMaster = true;
    else if (isa<FloatType>(t) && !other)
      other = t;
  });
  if (anyParam && !anyMaster && other)
    return func.emitError()
           << "tp-mixed-precision: @" << func.getSymName()
           << " has no f32 parameter to keep as the master copy (its "
              "parameters are "
           << other << "); build the model in f32 to train it in " << paramType
           << " with f32 masters";
  // Already computing in the narrow type: each f32 parameter is read
  // through a cast to it and nothing else is f32 (the pass ran).
  bool done = anyMaster;
  func.walk([&](m::ParamOp p) {
    if (!p.getType().getElementType().isF32())
      return;
    for (Operation *user : p->getUsers()) {
      Operation *reader = user;
      if (auto d = dyn_cast<DistributeOp>(user)) {
        if (!d->hasOneUse())
          done = false;
        reader = d->hasOneUse() ? *d->getUsers().begin() : nullptr;
      }
      auto c = dyn_cast_or_null<m::CastOp>(reader);
      if (!c || getTensorLikeElementType(c.getType()) != paramType)
        done = false;
    }
  });
  if (done)
    return success();
  return Retyper(func, paramType).run();
}

namespace {
struct MixedPrecisionPass
    : public tp::impl::TPMixedPrecisionPassBase<MixedPrecisionPass> {
  using TPMixedPrecisionPassBase::TPMixedPrecisionPassBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<FloatType> type = parseComputeDtype(&getContext(), paramDtype);
    if (failed(type)) {
      func.emitError() << "tp-mixed-precision: param-dtype must be bf16, f16 "
                          "or f32, not '"
                       << paramDtype << "'";
      return signalPassFailure();
    }
    if (failed(checkPassPrecondition(func, TPPass::MixedPrecision)) ||
        failed(applyMixedPrecision(func, *type)))
      signalPassFailure();
  }
};
} // namespace
