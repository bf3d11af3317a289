//===- Pipelines.cpp - the tp-pipeline pass pipeline ------------*- C++ -*-===//
//
// The whole plan-to-SPMD lowering as one pipeline, and its registration.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tp;

void mlir::tp::buildTPPipeline(OpPassManager &pm,
                               const TPPipelineOptions &options) {
  // Attach each plan entry's style to the modules its key matches.
  pm.addPass(createTPApplyPlanPass(TPApplyPlanPassOptions{options.plan}));
  // Styles become parameter placements and input/output redistributions;
  // then every value downstream of a distributed tensor gets a placement
  // (the pass ends with tp-propagate's propagatePlacements, so the pipeline
  // does not run tp-propagate again).
  pm.addPass(createTPLowerStylesPass());
  // Mixed precision: the model computes in the param dtype on its f32
  // parameters, each read through a cast after it is placed (so FSDP
  // gathers the 16-bit shard); before the backward is derived, so the
  // backward computes in it too.
  if (canonicalComputeDtype(options.paramDtype) != "f32")
    pm.addNestedPass<func::FuncOp>(createTPMixedPrecisionPass(
        TPMixedPrecisionPassOptions{options.paramDtype}));
  // A training step: the backward program follows the placed forward one,
  // placed by the same rules, so the passes below lower its communication
  // too.
  if (options.grad)
    pm.addPass(createTPDifferentiatePass());
  // The optimizer's update of every parameter, on the parameter's shard.
  if (options.grad && !options.optimizer.empty())
    pm.addPass(createTPOptimizerStepPass(TPOptimizerStepPassOptions{
        options.optimizer, options.lr, options.momentum, options.dampening,
        options.weightDecay, options.nesterov, options.beta1, options.beta2,
        options.eps, options.maxGradNorm,
        getOptimizerOptions(options).reduceDtype}));
  // From here on every step rewrites one function at a time (func.func
  // passes; meshes are only looked up), so they share one nested pipeline
  // and a compiler can run them on its functions in parallel.
  OpPassManager &funcPM = pm.nest<func::FuncOp>();
  // Cancel and merge redistributions before they cost communication.
  funcPM.addPass(createTPOptimizePass());
  // What is left becomes explicit collectives on local tensors.
  funcPM.addPass(createTPLowerRedistributePass());
  // Each function becomes the SPMD program every rank runs: local types,
  // composite modules inlined.
  funcPM.addPass(createTPPartitionPass());
  // Collectives are Pure (every rank runs this one function): identical ones
  // (same input, mesh axes, attributes and module) are computed once, and
  // unused ones are dropped, alike on every rank. A training step's phases
  // share them: what the forward gathered, the backward does not gather
  // again.
  funcPM.addPass(createTPCSEPass());
  // Memory for communication: what the backward reads of the forward's
  // gathers is gathered again there, from the shards.
  // FSDP's parameters are freed after the forward and gathered again for
  // the backward, unless the plan says reshard_after_forward = false.
  if (options.grad)
    funcPM.addPass(createTPRegatherPass(
        TPRegatherPassOptions{/*parametersOnly=*/!options.regather}));
  // FSDP: one gather per unit and phase, one reduce_scatter per unit.
  funcPM.addPass(createTPFSDPUnitsPass());
  // Fewer, larger all_reduces: a Partial on two mesh axes reduced at once,
  // and the all_reduces nobody reads until later (a training step's
  // gradients and loss) in buckets.
  funcPM.addPass(createTPMergeCollectivesPass(
      TPMergeCollectivesPassOptions{options.bucketBytes}));
  // FSDP: each unit's parameters are gathered while the unit before it
  // computes (last, so that it moves the final collectives).
  if (options.fsdpPrefetch)
    funcPM.addPass(createTPFSDPPrefetchPass());
  // Count what each rank communicates.
  if (!options.reportJson.empty() || options.reportTable)
    pm.addPass(createTPCommReportPass(
        TPCommReportPassOptions{options.reportJson, options.reportTable}));
  // Predict what each rank's tensors occupy: the executor's pass, found by
  // name (its library depends on this one; checkTPPipelineOptions has
  // checked that it is registered).
  if (!options.memoryReport.empty())
    if (const PassInfo *report = PassInfo::lookup("tp-memory-report")) {
      bool training = options.grad && !options.optimizer.empty();
      std::string args = "json=\"" + options.memoryReport +
                         "\" runs=" + (training ? "2" : "1");
      (void)report->addToPipeline(pm, args, [](const Twine &) {
        return failure(); // the options are ours and valid
      });
    }
}

void mlir::tp::registerTPPipelines() {
  // Registered by hand, not through PassPipelineRegistration<Options>, so
  // that options tp-run would refuse are refused here too: the C API and
  // embedders reach the pipeline through its option string.
  registerPassPipeline(
      "tp-pipeline",
      "Lower a tensor-parallel plan to one SPMD function with explicit "
      "collectives",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TPPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string problem = checkTPPipelineOptions(options);
            !problem.empty())
          return errorHandler("tp-pipeline: " + problem);
        buildTPPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(TPPipelineOptions());
      });
}
