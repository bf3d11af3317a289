//===- PlanBuilder.cpp - a tensor-parallel plan built in C++ --------------===//

#include "tp/Dialect/TP/Transforms/PlanBuilder.h"

#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tp;

PlanBuilder::PlanBuilder(MLIRContext *context) : context(context) {
  context->getOrLoadDialect<TPDialect>();
}

PlanBuilder &PlanBuilder::setMesh(ArrayRef<int64_t> shape,
                                  ArrayRef<StringRef> names) {
  meshShape.assign(shape.begin(), shape.end());
  axisNames.clear();
  for (StringRef name : names)
    axisNames.push_back(name.str());
  return *this;
}

PlanBuilder &PlanBuilder::setTPAxis(StringRef axis) {
  tpAxis = axis.str();
  return *this;
}

PlanBuilder &PlanBuilder::setDPAxis(StringRef axis) {
  dpAxis = axis.str();
  return *this;
}

PlanBuilder &PlanBuilder::setFSDPAxis(StringRef axis) {
  fsdpAxis = axis.str();
  return *this;
}

PlanBuilder &PlanBuilder::setReshardAfterForward(bool on) {
  reshardAfterForward = on;
  return *this;
}

PlanBuilder &PlanBuilder::fsdpUnit(StringRef pattern) {
  fsdpUnits.push_back(pattern.str());
  return *this;
}

PlanBuilder &PlanBuilder::setLossParallel(bool on) {
  lossParallel = on;
  return *this;
}

PlanBuilder &PlanBuilder::freeze(StringRef pattern) {
  frozen.push_back(pattern.str());
  return *this;
}

PlanBuilder &PlanBuilder::recompute(StringRef pattern) {
  recomputed.push_back(pattern.str());
  return *this;
}

PlanBuilder &PlanBuilder::add(StringRef pattern, Attribute style) {
  entries.emplace_back(pattern.str(), style);
  return *this;
}

ColwiseAttr PlanBuilder::colwise(Attribute inputLayouts,
                                 Attribute outputLayouts,
                                 bool useLocalOutput) const {
  return ColwiseAttr::get(context, inputLayouts, outputLayouts, useLocalOutput);
}

RowwiseAttr PlanBuilder::rowwise(Attribute inputLayouts,
                                 Attribute outputLayouts,
                                 bool useLocalOutput) const {
  return RowwiseAttr::get(context, inputLayouts, outputLayouts, useLocalOutput);
}

SequenceParallelAttr PlanBuilder::sequenceParallel(int64_t sequenceDim,
                                                   bool useLocalOutput) const {
  return SequenceParallelAttr::get(context, sequenceDim, useLocalOutput);
}

ReplicateAttr PlanBuilder::replicate() const {
  return ReplicateAttr::get(context);
}

ShardAttr PlanBuilder::shard(int64_t dim) const {
  return ShardAttr::get(context, dim);
}

FailureOr<PlanAttr> PlanBuilder::build(ModuleOp module) const {
  // isParallelStyle asks for the style models TPTransforms attaches.
  ensureParallelStyleModels(context);
  auto fail = [&]() { return emitError(module.getLoc()) << "plan: "; };

  if (meshShape.empty() ||
      llvm::any_of(meshShape, [](int64_t n) { return n <= 0; })) {
    fail() << "the mesh needs a shape of positive sizes (setMesh)";
    return failure();
  }
  if (!axisNames.empty() && axisNames.size() != meshShape.size()) {
    fail() << "the mesh has " << axisNames.size() << " axis names for "
           << meshShape.size() << " axes";
    return failure();
  }
  SmallVector<StringRef> names(axisNames.begin(), axisNames.end());
  if (std::string problem =
          checkPlanAxes(meshShape, names, tpAxis, dpAxis, fsdpAxis);
      !problem.empty()) {
    fail() << problem;
    return failure();
  }
  for (const auto &[pattern, style] : entries)
    if (!style || !isParallelStyle(style)) {
      auto diag = fail() << "the style of '" << pattern << "' is ";
      if (style)
        diag << style << ", not a parallel style";
      else
        diag << "null";
      return failure();
    }

  FailureOr<MeshOp> mesh = getOrCreatePlanMesh(module, meshShape, names, fail);
  if (failed(mesh))
    return failure();

  Builder builder(module.getContext());
  SmallVector<Attribute> keys, styles, frozenPatterns;
  for (const auto &[pattern, style] : entries) {
    keys.push_back(builder.getStringAttr(pattern));
    styles.push_back(style);
  }
  for (const std::string &pattern : frozen)
    frozenPatterns.push_back(builder.getStringAttr(pattern));
  auto optionalName = [&](const std::string &name) {
    return name.empty() ? StringAttr() : builder.getStringAttr(name);
  };
  PlanAttr plan = PlanAttr::getChecked(
      [&]() { return emitError(module.getLoc()); }, context,
      FlatSymbolRefAttr::get(mesh->getSymNameAttr()), optionalName(tpAxis),
      builder.getArrayAttr(keys), builder.getArrayAttr(styles),
      optionalName(dpAxis), lossParallel,
      frozen.empty() ? ArrayAttr() : builder.getArrayAttr(frozenPatterns),
      recomputed.empty() ? ArrayAttr()
                         : builder.getStrArrayAttr(SmallVector<StringRef>(
                               recomputed.begin(), recomputed.end())),
      optionalName(fsdpAxis), reshardAfterForward,
      fsdpUnits.empty() ? ArrayAttr()
                        : builder.getStrArrayAttr(SmallVector<StringRef>(
                              fsdpUnits.begin(), fsdpUnits.end())));
  if (!plan)
    return failure();
  TPDialect::PlanAttrHelper(context).setAttr(module, plan);
  return plan;
}
