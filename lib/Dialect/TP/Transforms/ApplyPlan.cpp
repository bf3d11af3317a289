//===- ApplyPlan.cpp - attach plan styles to modules ------------*- C++ -*-===//
//
// tp-apply-plan: matches plan keys against module FQNs token by token
// (fnmatch per dotted token) and attaches each style as `tp.style`.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPAPPLYPLANPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

bool mlir::tp::fnmatchToken(StringRef pattern, StringRef name) {
  if (pattern.empty())
    return name.empty();
  char p = pattern.front();
  if (p == '*') {
    for (size_t i = 0; i <= name.size(); ++i)
      if (fnmatchToken(pattern.drop_front(), name.drop_front(i)))
        return true;
    return false;
  }
  if (name.empty())
    return false;
  if (p == '?')
    return fnmatchToken(pattern.drop_front(), name.drop_front());
  if (p == '[') {
    size_t close = pattern.find(']', 2);
    if (close != StringRef::npos) {
      StringRef set = pattern.slice(1, close);
      bool negate = set.consume_front("!");
      bool hit = false;
      for (size_t i = 0; i < set.size(); ++i) {
        if (i + 2 < set.size() && set[i + 1] == '-') {
          hit |= set[i] <= name.front() && name.front() <= set[i + 2];
          i += 2;
        } else {
          hit |= set[i] == name.front();
        }
      }
      if (hit == negate)
        return false;
      return fnmatchToken(pattern.drop_front(close + 1), name.drop_front());
    }
  }
  return p == name.front() &&
         fnmatchToken(pattern.drop_front(), name.drop_front());
}

bool mlir::tp::styleSupportsModule(Attribute style, Operation *op) {
  if (auto custom = dyn_cast<CustomStyleAttr>(style)) {
    const CustomStyle *registered =
        lookupParallelStyle(custom.getName().getValue());
    return !registered || !registered->supports || registered->supports(op);
  }
  if (isa<ColwiseAttr, RowwiseAttr>(style))
    return isa<model::LinearOp, model::EmbeddingOp>(op);
  if (isa<SequenceParallelAttr>(style))
    return isa<model::LayerNormOp, model::RMSNormOp, model::DropoutOp>(op);
  if (isa<PairwiseParallelAttr, PairwiseSequenceParallelAttr>(style))
    return isa<model::SubmoduleOp>(op);
  // PrepareModuleInput/Output apply to any module.
  return true;
}

static SmallVector<StringRef> splitFQN(StringRef fqn) {
  SmallVector<StringRef> tokens;
  if (!fqn.empty())
    fqn.split(tokens, '.');
  return tokens;
}

static bool matchesPrefix(ArrayRef<StringRef> key, ArrayRef<StringRef> fqn,
                          size_t n) {
  if (fqn.size() < n)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (!fnmatchToken(key[i], fqn[i]))
      return false;
  return true;
}

LogicalResult mlir::tp::applyPlan(ModuleOp module, PlanAttr plan) {
  if (failed(checkPassPrecondition(module, TPPass::ApplyPlan)))
    return failure();
  // Every module op with an FQN, in program order. The root key "" names
  // the model function itself.
  SmallVector<std::pair<Operation *, StringRef>> modules;
  module.walk([&](Operation *op) {
    if (isa<func::FuncOp>(op))
      modules.push_back({op, ""});
    else if (isa<model::SubmoduleOp>(op) || model::isLeafModule(op))
      modules.push_back({op, model::getModuleFQN(op)});
  });

  Builder b(module.getContext());
  bool ok = true;
  // Which key gave each module its style, to report conflicts.
  llvm::DenseMap<Operation *, StringRef> styledBy;
  for (auto [keyAttr, style] :
       llvm::zip(plan.getKeys().getValue(), plan.getStyles().getValue())) {
    StringRef key = cast<StringAttr>(keyAttr).getValue();
    SmallVector<StringRef> keyTokens = splitFQN(key);
    std::string deprecatedBy;
    if (cast<ParallelStyleAttrInterface>(style).isDeprecated(deprecatedBy))
      emitWarning(module.getLoc())
          << "plan entry '" << key << "': "
          << (isa<PairwiseSequenceParallelAttr>(style)
                  ? StringRef("the seed's SequenceParallel (the "
                              "PairwiseParallel variant)")
                  : cast<ParallelStyleAttrInterface>(style).getStyleName())
          << " is deprecated; use " << deprecatedBy << " instead";
    bool matched = false;
    for (auto [op, fqn] : modules) {
      SmallVector<StringRef> fqnTokens = splitFQN(fqn);
      if (fqnTokens.size() != keyTokens.size() ||
          !matchesPrefix(keyTokens, fqnTokens, keyTokens.size()))
        continue;
      matched = true;
      if (!styleSupportsModule(style, op)) {
        op->emitError() << cast<ParallelStyleAttrInterface>(style)
                               .getStyleName()
                        << " does not support module '" << fqn
                        << "' of type " << model::getModuleTypeName(op)
                        << " (plan key '" << key << "')";
        ok = false;
        continue;
      }
      if (Attribute previous = op->getAttr("tp.style");
          previous && previous != style) {
        op->emitError() << "conflicting styles on module '" << fqn
                        << "': plan key '" << styledBy[op] << "' gives "
                        << cast<ParallelStyleAttrInterface>(previous)
                               .getStyleName()
                        << " and plan key '" << key << "' gives "
                        << cast<ParallelStyleAttrInterface>(style)
                               .getStyleName();
        ok = false;
        continue;
      }
      styledBy[op] = key;
      op->setAttr("tp.style", style);
    }
    if (matched)
      continue;
    // Name the first token that matched no module, for the warning.
    size_t bad = 0;
    while (bad < keyTokens.size() &&
           llvm::any_of(modules, [&](auto &m) {
             return matchesPrefix(keyTokens, splitFQN(m.second), bad + 1);
           }))
      ++bad;
    InFlightDiagnostic diag = emitWarning(module.getLoc())
                              << "plan key '" << key << "' matches no module";
    if (bad < keyTokens.size())
      diag << ": token '" << keyTokens[bad] << "' matches nothing";
    else
      diag << ": no module has exactly " << keyTokens.size() << " tokens";
  }
  module->setAttr("tp.plan", plan);
  return success(ok);
}

namespace {
struct ApplyPlanPass : public tp::impl::TPApplyPlanPassBase<ApplyPlanPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    PlanAttr plan;
    if (!planFile.empty()) {
      FailureOr<PlanAttr> loaded = loadPlanFile(module, planFile);
      if (failed(loaded))
        return signalPassFailure();
      plan = *loaded;
    } else {
      plan = module->getAttrOfType<PlanAttr>("tp.plan");
      if (!plan) {
        module.emitError("no plan: pass plan=FILE or give the module a "
                         "tp.plan attribute");
        return signalPassFailure();
      }
      if (!lookupMesh(module, plan.getMesh()))
        return signalPassFailure();
    }
    if (failed(applyPlan(module, plan)))
      signalPassFailure();
  }
};
} // namespace
