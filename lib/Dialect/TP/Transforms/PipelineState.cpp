//===- PipelineState.cpp - which lowering state a module is in --*- C++ -*-===//
//
// The state markers of tp-pipeline's IR and the passes' preconditions on
// them (see PipelineState.h for the table).
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "llvm/ADT/bit.h"

#include <array>

using namespace mlir;
using namespace mlir::tp;

/// The first op (in pre-order) for which `pred` holds, or nullptr.
static Operation *findFirst(Operation *root,
                            function_ref<bool(Operation *)> pred) {
  Operation *found = nullptr;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!pred(op))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

static bool isDTensor(Type t) { return isa<DTensorType>(t); }

Operation *mlir::tp::findPartitioned(Operation *root) {
  StringRef spmd = TPDialect::SpmdAttrHelper::getNameStr();
  if (isa<func::FuncOp>(root))
    return root->hasAttr(spmd) ? root : nullptr;
  for (Region &region : root->getRegions())
    for (auto func : region.getOps<func::FuncOp>())
      if (func->hasAttr(spmd))
        return func;
  return nullptr;
}

Operation *mlir::tp::findStyled(Operation *root) {
  return findFirst(root, [](Operation *op) {
    return op->hasAttr(TPDialect::StyleAttrHelper::getNameStr());
  });
}

Operation *mlir::tp::findUnloweredPlan(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  StringAttr spmd = TPDialect::SpmdAttrHelper(ctx).getName();
  StringAttr style = TPDialect::StyleAttrHelper(ctx).getName();
  bool partitioned = false;
  Operation *styled = nullptr;
  module.walk([&](Operation *op) {
    if (isa<func::FuncOp>(op) && op->hasAttr(spmd))
      partitioned = true;
    if (!styled && op->hasAttr(style))
      styled = op;
  });
  if (partitioned)
    return nullptr;
  if (styled)
    return styled;
  if (TPDialect::PlanAttrHelper(ctx).getAttr(module))
    return module;
  return nullptr;
}

Operation *mlir::tp::findDistributed(Operation *root) {
  return findFirst(root, [](Operation *op) {
    return llvm::any_of(op->getResultTypes(), isDTensor);
  });
}

Operation *mlir::tp::findUnpropagated(Operation *root) {
  return findFirst(root, [](Operation *op) {
    if (op->hasAttr(TPDialect::TpAxisAttrHelper::getNameStr()))
      return true;
    // A composite module may return plain values of distributed inputs;
    // its body is checked op by op.
    if (isa<ToLocalOp, model::SubmoduleOp>(op) ||
        !llvm::any_of(op->getOperandTypes(), isDTensor))
      return false;
    return llvm::any_of(op->getResultTypes(),
                        [](Type t) { return isa<RankedTensorType>(t); });
  });
}

Operation *mlir::tp::findRedistribution(Operation *root) {
  return findFirst(root, [](Operation *op) { return isa<RedistributeOp>(op); });
}

StringRef mlir::tp::getPassFlag(TPPass pass) {
  switch (pass) {
  case TPPass::ApplyPlan:
    return "tp-apply-plan";
  case TPPass::LowerStyles:
    return "tp-lower-styles";
  case TPPass::Propagate:
    return "tp-propagate";
  case TPPass::MixedPrecision:
    return "tp-mixed-precision";
  case TPPass::Differentiate:
    return "tp-differentiate";
  case TPPass::OptimizerStep:
    return "tp-optimizer-step";
  case TPPass::Optimize:
    return "tp-optimize";
  case TPPass::LowerRedistribute:
    return "tp-lower-redistribute";
  case TPPass::Partition:
    return "tp-partition";
  case TPPass::MergeCollectives:
    return "tp-merge-collectives";
  case TPPass::Regather:
    return "tp-regather";
  case TPPass::FSDPUnits:
    return "tp-fsdp-units";
  case TPPass::FSDPPrefetch:
    return "tp-fsdp-prefetch";
  case TPPass::CommReport:
    return "tp-comm-report";
  case TPPass::MemoryReport:
    return "tp-memory-report";
  case TPPass::ConvertModelToLinalg:
    return "convert-model-to-linalg";
  case TPPass::ConvertTPToShard:
    return "convert-tp-to-shard";
  }
  llvm_unreachable("unknown pass");
}

namespace {
/// The states a pass can refuse, in the order they are checked.
enum State : unsigned {
  Partitioned = 1,
  Styled = 2,
  Distributed = 4,
  Unpropagated = 8,
  Redistributions = 16,
  UnloweredPlan = 32,
};
} // namespace

static unsigned refusedStates(TPPass pass) {
  switch (pass) {
  case TPPass::ApplyPlan:
    return Partitioned | Styled | Distributed;
  case TPPass::LowerStyles:
    return Partitioned;
  case TPPass::Propagate:
    return Partitioned | Styled;
  case TPPass::MixedPrecision:
  case TPPass::Differentiate:
  case TPPass::OptimizerStep:
  case TPPass::Optimize:
  case TPPass::LowerRedistribute:
    return Partitioned | Styled | Unpropagated;
  case TPPass::Partition:
    return Partitioned | Styled | Unpropagated | Redistributions;
  case TPPass::MergeCollectives:
  case TPPass::Regather:
  case TPPass::FSDPUnits:
  case TPPass::FSDPPrefetch:
    return Styled | Distributed | Unpropagated | Redistributions;
  case TPPass::CommReport:
    return Styled | Unpropagated | Redistributions;
  case TPPass::MemoryReport:
    return Distributed | Redistributions | UnloweredPlan;
  case TPPass::ConvertModelToLinalg:
  case TPPass::ConvertTPToShard:
    return UnloweredPlan;
  }
  llvm_unreachable("unknown pass");
}

/// How a diagnostic names a styled op: its module FQN, or the function.
static std::string describeModule(Operation *op) {
  if (auto func = dyn_cast<func::FuncOp>(op))
    return ("function @" + func.getSymName()).str();
  return ("module '" + model::getModuleFQN(op) + "'").str();
}

/// The first op (in pre-order) in each of the `states`, found in one walk:
/// `first[i]` for state `1 << i`.
static std::array<Operation *, 6> findStates(Operation *root, unsigned states) {
  std::array<Operation *, 6> first{};
  if (states & Partitioned)
    first[0] = findPartitioned(root);
  if (auto module = dyn_cast<ModuleOp>(root);
      module && (states & UnloweredPlan))
    first[5] = findUnloweredPlan(module);
  states &= ~(Partitioned | UnloweredPlan);
  if (!states)
    return first;
  MLIRContext *ctx = root->getContext();
  StringAttr style = TPDialect::StyleAttrHelper(ctx).getName();
  StringAttr tpAxis = TPDialect::TpAxisAttrHelper(ctx).getName();
  unsigned open = states;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto found = [&](State s) {
      first[llvm::countr_zero(static_cast<unsigned>(s))] = op;
      open &= ~s;
    };
    if ((open & Styled) && op->getDiscardableAttr(style))
      found(Styled);
    if ((open & Distributed) && llvm::any_of(op->getResultTypes(), isDTensor))
      found(Distributed);
    // A composite module may return plain values of distributed inputs;
    // its body is checked op by op.
    if ((open & Unpropagated) &&
        (op->getDiscardableAttr(tpAxis) ||
         (!isa<ToLocalOp, model::SubmoduleOp>(op) &&
          llvm::any_of(op->getOperandTypes(), isDTensor) &&
          llvm::any_of(op->getResultTypes(),
                       [](Type t) { return isa<RankedTensorType>(t); }))))
      found(Unpropagated);
    if ((open & Redistributions) && isa<RedistributeOp>(op))
      found(Redistributions);
    return open ? WalkResult::advance() : WalkResult::interrupt();
  });
  return first;
}

LogicalResult mlir::tp::checkPassPrecondition(Operation *root, TPPass pass) {
  unsigned refused = refusedStates(pass);
  StringRef flag = getPassFlag(pass);
  // One walk for every state the pass refuses; reported in the order above.
  std::array<Operation *, 6> first = findStates(root, refused);
  if (Operation *op = first[0])
    return op->emitError()
           << flag << ": the module is already partitioned (tp.spmd on @"
           << cast<func::FuncOp>(op).getSymName()
           << "); run tp-pipeline once, on the model";
  if (Operation *op = first[1]) {
    if (pass == TPPass::ApplyPlan)
      return op->emitError()
             << flag << ": styles are already attached (tp.style on "
             << describeModule(op) << "); apply one plan, once, to the model";
    return op->emitError() << flag << ": " << describeModule(op)
                           << " still carries a tp.style; run "
                              "tp-lower-styles first";
  }
  if (Operation *op = first[2]; op && pass != TPPass::ApplyPlan)
    return op->emitError() << flag << ": the program is not partitioned yet ('"
                           << op->getName()
                           << "' yields a !tp.dtensor); run tp-partition first";
  if (Operation *op = first[2])
    return op->emitError()
           << flag << ": styles are already lowered ('" << op->getName()
           << "' yields a !tp.dtensor); apply the plan to the model, "
              "before tp-lower-styles";
  if (Operation *op = first[3]) {
    InFlightDiagnostic diag = op->emitError()
                              << flag << ": placements are not propagated ('"
                              << op->getName() << "' ";
    if (op->hasAttr(TPDialect::TpAxisAttrHelper::getNameStr()))
      diag << "carries a style's " << TPDialect::TpAxisAttrHelper::getNameStr()
           << " marker";
    else
      diag << "takes a !tp.dtensor but yields a plain tensor";
    return diag << "); run tp-propagate first";
  }
  if (Operation *op = first[4])
    return op->emitError() << flag
                           << ": tp.redistribute is not lowered yet; run "
                              "tp-lower-redistribute first";
  if (Operation *op = first[5])
    return op->emitError() << flag
                           << ": the module holds a plan that is not lowered "
                              "(no tp.spmd function); run tp-pipeline first";
  return success();
}
