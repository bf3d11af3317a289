//===- Prepare.cpp - a model file made ready to run -----------------------===//

#include "tp/Launch/Prepare.h"

#include "tp/Dialect/TP/IR/TPDialect.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/Support/InputLimits.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace mlir::tp::exec {

func::FuncOp entryFunction(ModuleOp module, const std::string &file) {
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && (!entry || f.getName() == "forward"))
      entry = f;
  if (!entry)
    throw LaunchError(file + ": the module has no function to run");
  return entry;
}

void widenFloatTypes(ModuleOp module) {
  auto widen = [](Type t) -> Type {
    auto r = dyn_cast<RankedTensorType>(t);
    if (r && (r.getElementType().isBF16() || r.getElementType().isF16()))
      return r.clone(Float32Type::get(t.getContext()));
    return t;
  };
  module.walk([&](Operation *op) {
    for (Value v : op->getResults())
      v.setType(widen(v.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(widen(arg.getType()));
    if (auto fn = dyn_cast<func::FuncOp>(op)) {
      SmallVector<Type> ins, outs;
      for (Type t : fn.getArgumentTypes())
        ins.push_back(widen(t));
      for (Type t : fn.getResultTypes())
        outs.push_back(widen(t));
      fn.setType(FunctionType::get(op->getContext(), ins, outs));
    }
  });
}

namespace {

/// Applies the mixed-precision policy of \p options to every function of
/// \p module (nothing for f32).
LogicalResult mixPrecision(ModuleOp module, const PrepareOptions &options) {
  FailureOr<FloatType> type =
      mlir::tp::parseComputeDtype(module.getContext(), options.paramDtype);
  if (failed(type))
    throw LaunchError("--param-dtype must be bf16, f16 or f32, not '" +
                      options.paramDtype + "'");
  for (auto f : module.getOps<func::FuncOp>())
    if (failed(mlir::tp::applyMixedPrecision(f, *type)))
      return failure();
  return success();
}

/// Makes \p module's model a training step as \p options ask (nothing
/// without differentiate).
LogicalResult train(ModuleOp module, const PrepareOptions &options) {
  if (!options.differentiate)
    return success();
  if (failed(mlir::tp::differentiate(module)))
    return failure();
  if (options.optimizer)
    return mlir::tp::addOptimizerStep(module, *options.optimizer);
  return success();
}

/// The unparallelized model of \p module on one rank: without the meshes
/// and the plan, differentiated when asked, partitioned for a single rank.
OwningOpRef<ModuleOp> prepareReference(ModuleOp module, bool inF32,
                                       const PrepareOptions &options) {
  OwningOpRef<ModuleOp> reference = module.clone();
  if (inF32)
    widenFloatTypes(*reference);
  // The plan's frozen parameters stay frozen without the plan.
  if (auto plan = mlir::tp::TPDialect::PlanAttrHelper(reference->getContext())
                      .getAttr(*reference))
    if (failed(mlir::tp::markFrozenParameters(*reference, plan)))
      throw LaunchError("cannot prepare the reference model");
  reference->walk([](mlir::tp::MeshOp m) { m.erase(); });
  (*reference)->removeAttr(mlir::tp::TPDialect::PlanAttrHelper::getNameStr());
  // The same policy as the run, unless the reference is the model in f32.
  if ((!inF32 && failed(mixPrecision(*reference, options))) ||
      failed(train(*reference, options)) ||
      failed(mlir::tp::partition(*reference)))
    throw LaunchError("cannot prepare the reference model");
  return reference;
}

/// Sizes the plan's mesh for the job: --np resizes a 1-D mesh; an N-D mesh
/// must match it.
void sizeMesh(ModuleOp module, mlir::tp::PlanAttr plan,
              const Launcher &launcher) {
  auto mesh = mlir::tp::lookupMesh(module, plan.getMesh());
  if (!mesh)
    throw LaunchError("the plan's mesh is missing");
  launcher.checkMeshRanks(mesh.getNumRanks());
  int64_t n = launcher.requestedRanks();
  if (n <= 0 || n == mesh.getNumRanks())
    return;
  if (mesh.getRank() != 1)
    throw LaunchError(launcher.ranksText() + " does not match the " +
                      std::to_string(mesh.getRank()) + "-D mesh of " +
                      std::to_string(mesh.getNumRanks()) + " ranks");
  mesh.setShape({n});
}

} // namespace

PreparedModel prepareModel(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                           const PrepareOptions &options,
                           const Launcher &launcher) {
  const std::string &file = options.modelFile;
  PreparedModel model;
  if (options.parsedModel) {
    if (options.parsedModel->getContext() != &context)
      throw LaunchError("the parsed " + file + " is of another context");
    ModuleOp parsed = options.parsedModel;
    model.module = OwningOpRef<ModuleOp>(parsed.clone());
  } else {
    auto buffer = mlir::tp::readFileBounded(file, mlir::tp::kMaxModelFileBytes);
    if (!buffer)
      throw LaunchError("cannot read model file '" + file +
                        "': " + llvm::toString(buffer.takeError()));
    if (sourceMgr.getNumBuffers() != 0)
      throw LaunchError("prepareModel needs a source manager of its own for " +
                        file);
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    model.module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  }
  if (!model.module)
    throw LaunchError("cannot parse " + file);
  ModuleOp module = *model.module;

  // A model (lowered here) or a program tp-pipeline partitioned; IR in
  // between would run as something else.
  func::FuncOp entry = entryFunction(module, file);
  model.partitioned = mlir::tp::findPartitioned(module);
  if (model.partitioned && options.planFile)
    throw LaunchError("--plan " + *options.planFile + ": " + file +
                      " is already partitioned (@" + entry.getName().str() +
                      " has tp.spmd) and runs on its own mesh; leave --plan "
                      "out");
  if (!model.partitioned && failed(mlir::tp::checkPassPrecondition(
                                module, mlir::tp::TPPass::ApplyPlan)))
    throw LaunchError(file + " is partly lowered: give the model or the "
                             "program tp-pipeline partitioned");
  if (options.differentiate && model.partitioned)
    throw LaunchError("--grad needs the model before lowering, not a "
                      "partitioned program (or lower it with "
                      "tp-pipeline=\"... grad=true\")");
  if (options.reference && model.partitioned)
    throw LaunchError("--verify needs the model before lowering, not a "
                      "partitioned program");
  if (model.partitioned && options.paramDtype != "f32")
    throw LaunchError("--param-dtype applies while lowering the model, not "
                      "to a partitioned program (lower it with "
                      "tp-pipeline=\"... param-dtype=" +
                      options.paramDtype + "\")");
  if (model.partitioned)
    return model;

  mlir::tp::TPDialect::PlanAttrHelper planHelper(&context);
  if (options.planFile) {
    auto plan = mlir::tp::loadPlanFile(module, *options.planFile);
    if (failed(plan))
      throw LaunchError("invalid plan " + *options.planFile);
    planHelper.setAttr(module, *plan);
  }
  // Before the pipeline lowers the model; it takes the plan's frozen
  // parameters and drops the rest of the plan.
  if (options.reference)
    model.reference = prepareReference(module, options.referenceInF32, options);
  if (auto plan = planHelper.getAttr(module)) {
    sizeMesh(module, plan, launcher);
    PassManager pm(&context);
    mlir::tp::TPPipelineOptions pipeline;
    pipeline.grad = options.differentiate;
    pipeline.regather = options.regather;
    pipeline.fsdpPrefetch = options.fsdpPrefetch;
    pipeline.paramDtype = options.paramDtype;
    if (const auto &o = options.optimizer) {
      pipeline.optimizer = o->kind;
      pipeline.lr = o->lr;
      pipeline.momentum = o->momentum;
      pipeline.dampening = o->dampening;
      pipeline.nesterov = o->nesterov;
      pipeline.weightDecay = o->weightDecay;
      pipeline.beta1 = o->beta1;
      pipeline.beta2 = o->beta2;
      pipeline.eps = o->eps;
      pipeline.maxGradNorm = o->maxGradNorm;
      pipeline.reduceDtype = o->reduceDtype;
    }
    mlir::tp::buildTPPipeline(pm, pipeline);
    pm.enableVerifier(options.verifyEachPass);
    if (failed(pm.run(module)) ||
        (!options.verifyEachPass && failed(mlir::verify(module))))
      throw LaunchError("lowering " + file + " failed");
  } else if (launcher.requestedRanks() > 1) {
    throw LaunchError("no plan: give --plan PLAN.json (or a tp.plan "
                      "attribute in the model) to run on " +
                      std::to_string(launcher.requestedRanks()) + " ranks");
  } else if (failed(mixPrecision(module, options)) ||
             failed(train(module, options)) ||
             failed(mlir::tp::partition(module))) {
    // No plan: the unparallelized model on one rank.
    throw LaunchError("cannot prepare " + file + " for execution");
  }
  return model;
}

void checkProgramRanks(const Program &program, const Launcher &launcher,
                       bool partitioned) {
  int64_t n = program.numRanks();
  launcher.checkMeshRanks(n);
  int64_t requested = launcher.requestedRanks();
  if (partitioned && requested > 0 && requested != n)
    throw LaunchError(launcher.ranksText() + " does not match the " +
                      "program's mesh of " + std::to_string(n) + " ranks");
}

} // namespace mlir::tp::exec
