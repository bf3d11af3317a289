//===- ApplyPlan.cpp - attach plan styles to modules ------------*- C++ -*-===//
//
// tp-apply-plan: matches plan keys against module FQNs token by token
// (fnmatch per dotted token) and attaches each style as `tp.style`.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/GlobPattern.h"
#include <set>

namespace mlir::tp {
#define GEN_PASS_DEF_TPAPPLYPLANPASS
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

bool mlir::tp::fnmatchToken(StringRef pattern, StringRef name) {
  llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(pattern);
  if (!glob) {
    llvm::consumeError(glob.takeError());
    return false;
  }
  return glob->match(name);
}

bool mlir::tp::styleSupportsModule(Attribute style, Operation *op) {
  auto iface = dyn_cast<ParallelStyleAttrInterface>(style);
  return iface && iface.supportsModule(op);
}

static SmallVector<StringRef> splitFQN(StringRef fqn) {
  SmallVector<StringRef> tokens;
  if (!fqn.empty())
    fqn.split(tokens, '.');
  return tokens;
}

/// Whether the first `n` tokens of `fqn` match the first `n` of `key`.
static bool matchesPrefix(ArrayRef<llvm::GlobPattern> key,
                          ArrayRef<StringRef> fqn, size_t n) {
  if (fqn.size() < n)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (!key[i].match(fqn[i]))
      return false;
  return true;
}

SmallVector<PairwiseGroup> mlir::tp::getPairwiseGroups(Operation *module) {
  SmallVector<PairwiseGroup> groups;
  SmallVector<Operation *> children = model::getChildModules(module);
  SmallVector<Operation *> linears;
  for (Operation *child : children)
    if (isa<model::LinearOp>(child))
      linears.push_back(child);
  // The seed's _parallelize_mlp: a module with more than one direct Linear
  // child pairs the first even number of them; otherwise each child module
  // is parallelized the same way, recursively.
  if (linears.size() > 1) {
    linears.truncate(linears.size() / 2 * 2);
    groups.push_back({module, std::move(linears)});
    return groups;
  }
  for (Operation *child : children)
    if (isa<model::SubmoduleOp>(child))
      groups.append(getPairwiseGroups(child));
  return groups;
}

LogicalResult mlir::tp::checkPairwiseOverlaps(
    ModuleOp module, function_ref<std::string(Operation *)> describe) {
  // The pairwise-styled module that parallelizes each linear.
  llvm::DenseMap<Operation *, Operation *> owner;
  bool ok = true;
  TPDialect::StyleAttrHelper styleAttr(module.getContext());
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    Attribute style = styleAttr.getAttr(op);
    if (!isa_and_nonnull<PairwiseParallelAttr, PairwiseSequenceParallelAttr>(
            style))
      return;
    StringRef styleName =
        cast<ParallelStyleAttrInterface>(style).getStyleName();
    for (const PairwiseGroup &group : getPairwiseGroups(op))
      for (auto [i, linear] : llvm::enumerate(group.linears)) {
        Operation *other = owner.lookup(linear);
        if (!other && styleAttr.getAttr(linear))
          other = linear;
        owner[linear] = op;
        if (!other)
          continue;
        Attribute otherStyle = styleAttr.getAttr(other);
        InFlightDiagnostic diag = linear->emitError()
                                  << "module '" << model::getModuleFQN(linear)
                                  << "' is parallelized twice: " << describe(op)
                                  << " gives '" << model::getModuleFQN(op)
                                  << "' " << styleName << ", which makes '"
                                  << model::getModuleFQN(linear) << "' "
                                  << (i % 2 ? "rowwise" : "colwise") << ", and "
                                  << describe(other) << " gives ";
        if (other != linear)
          diag << "'" << model::getModuleFQN(other) << "' ";
        diag << cast<ParallelStyleAttrInterface>(otherStyle).getStyleName();
        ok = false;
      }
  });
  return success(ok);
}

/// The `name = value` arguments of a style attribute as it prints
/// (`#tp.colwise<output_layouts = #tp.replicate>`); absent ones are defaults.
static llvm::StringMap<std::string> printedArguments(Attribute style) {
  std::string text;
  llvm::raw_string_ostream os(text);
  style.print(os);
  llvm::StringMap<std::string> args;
  size_t open = text.find('<');
  if (open == std::string::npos || text.back() != '>')
    return args;
  StringRef body = StringRef(text).slice(open + 1, text.size() - 1);
  int depth = 0;
  bool quoted = false;
  size_t begin = 0;
  auto flush = [&](size_t end) {
    StringRef item = body.slice(begin, end).trim();
    auto [name, value] = item.split(" = ");
    if (!name.empty())
      args[name.trim()] = value.trim().str();
    begin = end + 1;
  };
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '"' && (i == 0 || body[i - 1] != '\\'))
      quoted = !quoted;
    if (quoted)
      continue;
    if (c == '<' || c == '[' || c == '{' || c == '(')
      ++depth;
    else if (c == '>' || c == ']' || c == '}' || c == ')')
      --depth;
    else if (c == ',' && depth == 0)
      flush(i);
  }
  flush(body.size());
  return args;
}

/// "output_layouts: #tp.shard<-1> vs #tp.replicate" for each argument two
/// attributes of one style set differently.
static std::string describeDifference(Attribute a, Attribute b) {
  llvm::StringMap<std::string> argsA = printedArguments(a),
                               argsB = printedArguments(b);
  std::set<std::string> names;
  for (auto &kv : argsA)
    names.insert(kv.getKey().str());
  for (auto &kv : argsB)
    names.insert(kv.getKey().str());
  std::string result;
  llvm::raw_string_ostream os(result);
  for (const std::string &name : names) {
    auto valueOf = [&](llvm::StringMap<std::string> &args) {
      auto it = args.find(name);
      return it == args.end() ? std::string("the default") : it->second;
    };
    std::string va = valueOf(argsA), vb = valueOf(argsB);
    if (va == vb)
      continue;
    if (!result.empty())
      os << "; ";
    os << name << ": " << va << " vs " << vb;
  }
  return result;
}

/// The tokens of a plan's `what` pattern (frozen, recompute) as glob
/// patterns; an invalid token is an error from \p emit.
static FailureOr<SmallVector<llvm::GlobPattern>>
globTokens(StringRef pattern, StringRef what,
           function_ref<InFlightDiagnostic()> emit) {
  SmallVector<llvm::GlobPattern> tokens;
  for (StringRef token : splitFQN(pattern)) {
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(token);
    if (!glob)
      return emit() << what << " pattern '" << pattern << "': token '" << token
                    << "' is not a valid pattern: "
                    << llvm::toString(glob.takeError());
    tokens.push_back(std::move(*glob));
  }
  return tokens;
}

std::string FSDPUnitMatcher::unitOf(StringRef fqn) const {
  SmallVector<StringRef> tokens = splitFQN(fqn);
  for (const SmallVector<llvm::GlobPattern> &pattern : patterns)
    if (matchesPrefix(pattern, tokens, pattern.size()))
      return llvm::join(ArrayRef<StringRef>(tokens).take_front(pattern.size()),
                        ".");
  return "";
}

FailureOr<FSDPUnitMatcher>
mlir::tp::getFSDPUnitMatcher(PlanAttr plan,
                             function_ref<InFlightDiagnostic()> emit) {
  SmallVector<StringRef> patterns;
  if (plan && plan.getFsdpUnits())
    for (Attribute a : plan.getFsdpUnits())
      patterns.push_back(cast<StringAttr>(a).getValue());
  else
    patterns.push_back("layers.*");
  FSDPUnitMatcher matcher;
  for (StringRef pattern : patterns) {
    FailureOr<SmallVector<llvm::GlobPattern>> tokens =
        globTokens(pattern, "fsdp_units", emit);
    if (failed(tokens))
      return failure();
    matcher.patterns.push_back(std::move(*tokens));
  }
  return matcher;
}

LogicalResult mlir::tp::markFrozenParameters(ModuleOp module, PlanAttr plan) {
  if (!plan.getFrozen())
    return success();
  SmallVector<model::ParamOp> params;
  module.walk([&](model::ParamOp p) { params.push_back(p); });
  for (Attribute attr : plan.getFrozen()) {
    StringRef pattern = cast<StringAttr>(attr).getValue();
    FailureOr<SmallVector<llvm::GlobPattern>> tokens = globTokens(
        pattern, "frozen", [&] { return emitError(module.getLoc()); });
    if (failed(tokens))
      return failure();
    bool matched = false;
    for (model::ParamOp p : params)
      if (matchesPrefix(*tokens, splitFQN(p.getName()), tokens->size())) {
        p.setFrozen(true);
        matched = true;
      }
    if (!matched)
      return emitError(module.getLoc())
             << "frozen pattern '" << pattern
             << "' matches no parameter (nor module with parameters)";
  }
  return success();
}

FailureOr<SmallVector<Operation *>>
mlir::tp::getRecomputedModules(Operation *root, PlanAttr plan) {
  SmallVector<Operation *> units;
  if (!plan || !plan.getRecompute())
    return units;
  SmallVector<model::SubmoduleOp> subs;
  root->walk<WalkOrder::PreOrder>(
      [&](model::SubmoduleOp s) { subs.push_back(s); });
  llvm::SmallPtrSet<Operation *, 16> chosen;
  for (Attribute attr : plan.getRecompute()) {
    StringRef pattern = cast<StringAttr>(attr).getValue();
    FailureOr<SmallVector<llvm::GlobPattern>> tokens =
        globTokens(pattern, "recompute", [&] { return root->emitError(); });
    if (failed(tokens))
      return failure();
    bool matched = false;
    for (model::SubmoduleOp s : subs) {
      SmallVector<StringRef> fqn = splitFQN(model::getModuleFQN(s));
      if (fqn.size() == tokens->size() &&
          matchesPrefix(*tokens, fqn, tokens->size())) {
        chosen.insert(s);
        matched = true;
      }
    }
    if (!matched)
      return root->emitError()
             << "recompute pattern '" << pattern
             << "' matches no composite module (a model.module such as "
                "'layers.0'; single layers are not recomputed alone)";
  }
  for (model::SubmoduleOp s : subs) {
    if (!chosen.contains(s))
      continue;
    bool inner = false;
    for (Operation *p = s->getParentOp(); p && !inner; p = p->getParentOp())
      inner = chosen.contains(p);
    if (!inner)
      units.push_back(s);
  }
  return units;
}

LogicalResult mlir::tp::applyPlan(ModuleOp module, PlanAttr plan) {
  if (failed(checkPassPrecondition(module, TPPass::ApplyPlan)))
    return failure();
  if (failed(markFrozenParameters(module, plan)))
    return failure();
  // Checked here, used by tp-differentiate.
  if (failed(getRecomputedModules(module, plan)))
    return failure();
  // Checked here, used by tp-fsdp-units: each pattern given must hold
  // parameters.
  FailureOr<FSDPUnitMatcher> units =
      getFSDPUnitMatcher(plan, [&] { return emitError(module.getLoc()); });
  if (failed(units))
    return failure();
  if (plan && plan.getFsdpUnits())
    for (size_t i = 0; i < units->patterns.size(); ++i) {
      ArrayRef<llvm::GlobPattern> tokens = units->patterns[i];
      bool matched = false;
      module.walk([&](model::ParamOp p) {
        matched |= matchesPrefix(
            tokens, splitFQN(getParameterOwner(p.getName())), tokens.size());
      });
      if (!matched)
        return emitError(module.getLoc())
               << "fsdp_units pattern '"
               << cast<StringAttr>(plan.getFsdpUnits()[i]).getValue()
               << "' matches no module with parameters";
    }
  ensureParallelStyleModels(module.getContext());
  // Every module op with an FQN, in program order. The root key "" names
  // the model function itself.
  SmallVector<std::pair<Operation *, StringRef>> modules;
  module.walk([&](Operation *op) {
    if (isa<func::FuncOp>(op))
      modules.push_back({op, ""});
    else if (isa<model::SubmoduleOp>(op) || model::isLeafModule(op))
      modules.push_back({op, model::getModuleFQN(op)});
  });

  bool ok = true;
  TPDialect::StyleAttrHelper styleAttr(module.getContext());
  // Which key gave each module its style, to report conflicts.
  llvm::DenseMap<Operation *, StringRef> styledBy;
  for (auto [keyAttr, style] :
       llvm::zip(plan.getKeys().getValue(), plan.getStyles().getValue())) {
    StringRef key = cast<StringAttr>(keyAttr).getValue();
    SmallVector<StringRef> keyTokens = splitFQN(key);
    // Each token compiled once; matching is linear in the name.
    SmallVector<llvm::GlobPattern> patterns;
    for (StringRef token : keyTokens) {
      llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(token);
      if (!glob) {
        emitError(module.getLoc())
            << "plan key '" << key << "': token '" << token
            << "' is not a valid pattern: " << llvm::toString(glob.takeError());
        return failure();
      }
      patterns.push_back(std::move(*glob));
    }
    const StyleDefinition *definition = getStyleDefinition(style);
    std::string deprecatedBy;
    if (cast<ParallelStyleAttrInterface>(style).isDeprecated(deprecatedBy))
      emitWarning(module.getLoc())
          << "plan entry '" << key << "': "
          << (definition && !definition->title.empty()
                  ? StringRef(definition->title)
                  : cast<ParallelStyleAttrInterface>(style).getStyleName())
          << " is deprecated; use " << deprecatedBy << " instead";
    bool matched = false;
    for (auto [op, fqn] : modules) {
      SmallVector<StringRef> fqnTokens = splitFQN(fqn);
      if (fqnTokens.size() != keyTokens.size() ||
          !matchesPrefix(patterns, fqnTokens, keyTokens.size()))
        continue;
      matched = true;
      if (!styleSupportsModule(style, op)) {
        InFlightDiagnostic diag =
            op->emitError()
            << cast<ParallelStyleAttrInterface>(style).getStyleName()
            << " does not support module '" << fqn << "' of type "
            << model::getModuleTypeName(op) << " (plan key '" << key << "')";
        if (definition && definition->unsupportedNote)
          if (std::string note = definition->unsupportedNote(op); !note.empty())
            diag << "; " << note;
        ok = false;
        continue;
      }
      if (Attribute previous = styleAttr.getAttr(op);
          previous && previous != style) {
        StringRef previousName =
            cast<ParallelStyleAttrInterface>(previous).getStyleName();
        StringRef name = cast<ParallelStyleAttrInterface>(style).getStyleName();
        InFlightDiagnostic diag =
            op->emitError()
            << "conflicting styles on module '" << fqn << "': plan key '"
            << styledBy[op] << "' gives " << previousName << " and plan key '"
            << key << "' gives " << name;
        if (previous.getTypeID() == Attribute(style).getTypeID())
          diag << " with other arguments ("
               << describeDifference(previous, style) << ")";
        ok = false;
        continue;
      }
      styledBy[op] = key;
      styleAttr.setAttr(op, cast<ParallelStyleAttrInterface>(style));
    }
    if (matched)
      continue;
    // Name the first token that matched no module, for the warning.
    size_t bad = 0;
    while (bad < keyTokens.size() &&
           llvm::any_of(
               modules,
               [&](auto &m) {
                 return matchesPrefix(patterns, splitFQN(m.second), bad + 1);
               }))
      ++bad;
    InFlightDiagnostic diag = emitWarning(module.getLoc())
                              << "plan key '" << key << "' matches no module";
    if (bad < keyTokens.size()) {
      diag << ": token '" << keyTokens[bad] << "' matches nothing";
      continue;
    }
    // Every token matched: the key names a prefix of longer FQNs (a
    // ModuleList such as `layers`, which has no module op of its own).
    SmallVector<StringRef> examples;
    for (auto &[op, fqn] : modules)
      if (examples.size() < 2 && splitFQN(fqn).size() > keyTokens.size() &&
          matchesPrefix(patterns, splitFQN(fqn), keyTokens.size()))
        examples.push_back(fqn);
    diag << ": it is only the prefix of modules such as '";
    llvm::interleave(examples, diag, "', '");
    diag << "' (a container without a module op of its own); a style "
            "applies to the module a key names, so use '"
         << key << ".*' to match its children";
  }
  TPDialect::PlanAttrHelper(module.getContext()).setAttr(module, plan);
  if (!ok)
    return failure();
  // Only a pairwise style can reach the linears of other entries.
  if (llvm::none_of(plan.getStyles(), [](Attribute style) {
        return isa<PairwiseParallelAttr, PairwiseSequenceParallelAttr>(style);
      }))
    return success();
  return checkPairwiseOverlaps(module, [&](Operation *op) {
    return ("plan key '" + styledBy.lookup(op) + "'").str();
  });
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
      plan = TPDialect::PlanAttrHelper(module.getContext()).getAttr(module);
      if (!plan) {
        module.emitError() << "no plan: pass plan=FILE or give the module a "
                           << TPDialect::PlanAttrHelper::getNameStr()
                           << " attribute";
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
