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
  case TPPass::Optimize:
    return "tp-optimize";
  case TPPass::LowerRedistribute:
    return "tp-lower-redistribute";
  case TPPass::Partition:
    return "tp-partition";
  case TPPass::CommReport:
    return "tp-comm-report";
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
  case TPPass::Optimize:
  case TPPass::LowerRedistribute:
    return Partitioned | Styled | Unpropagated;
  case TPPass::Partition:
    return Partitioned | Styled | Unpropagated | Redistributions;
  case TPPass::CommReport:
    return Styled | Unpropagated | Redistributions;
  }
  llvm_unreachable("unknown pass");
}

/// How a diagnostic names a styled op: its module FQN, or the function.
static std::string describeModule(Operation *op) {
  if (auto func = dyn_cast<func::FuncOp>(op))
    return ("function @" + func.getSymName()).str();
  return ("module '" + model::getModuleFQN(op) + "'").str();
}

LogicalResult mlir::tp::checkPassPrecondition(Operation *root, TPPass pass) {
  unsigned refused = refusedStates(pass);
  StringRef flag = getPassFlag(pass);
  if (refused & Partitioned)
    if (Operation *op = findPartitioned(root))
      return op->emitError()
             << flag << ": the module is already partitioned (tp.spmd on @"
             << cast<func::FuncOp>(op).getSymName()
             << "); run tp-pipeline once, on the model";
  if (refused & Styled)
    if (Operation *op = findStyled(root)) {
      if (pass == TPPass::ApplyPlan)
        return op->emitError()
               << flag << ": styles are already attached (tp.style on "
               << describeModule(op) << "); apply one plan, once, to the model";
      return op->emitError() << flag << ": " << describeModule(op)
                             << " still carries a tp.style; run "
                                "tp-lower-styles first";
    }
  if (refused & Distributed)
    if (Operation *op = findDistributed(root))
      return op->emitError()
             << flag << ": styles are already lowered ('" << op->getName()
             << "' yields a !tp.dtensor); apply the plan to the model, "
                "before tp-lower-styles";
  if (refused & Unpropagated)
    if (Operation *op = findUnpropagated(root)) {
      InFlightDiagnostic diag = op->emitError()
                                << flag << ": placements are not propagated ('"
                                << op->getName() << "' ";
      if (op->hasAttr(TPDialect::TpAxisAttrHelper::getNameStr()))
        diag << "carries a style's "
             << TPDialect::TpAxisAttrHelper::getNameStr() << " marker";
      else
        diag << "takes a !tp.dtensor but yields a plain tensor";
      return diag << "); run tp-propagate first";
    }
  if (refused & Redistributions)
    if (Operation *op = findRedistribution(root))
      return op->emitError() << flag
                             << ": tp.redistribute is not lowered yet; run "
                                "tp-lower-redistribute first";
  return success();
}
