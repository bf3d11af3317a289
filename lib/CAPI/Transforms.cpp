//===- Transforms.cpp - C API: passes, plans, the report, version ---------===//
//
// tp-c/Transforms.h and tpGetVersion (tp-c/TP.h). Nothing here throws: the
// failures are MLIR diagnostics, which a handler scoped to the call turns
// into the caller's error message.
//
//===----------------------------------------------------------------------===//

#include "tp-c/TP.h"

#include "CAPISupport.h"

#include "tp/Dialect/TP/IR/TPDialect.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/PipelineState.h"
#include "tp/InitAll.h"
#include "tp/Support/Version.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

void tpRegisterAllPasses(void) {
  // MLIR's registry stops the process when a pipeline name is registered
  // twice, so only the first call registers.
  static bool once = (mlir::tp::registerAllPasses(), true);
  (void)once;
}

/// `op` as a builtin.module, or null after setting \p errorMessage.
static ModuleOp asModule(MlirOperation op, const char *function,
                         char **errorMessage) {
  if (mlirOperationIsNull(op)) {
    tp::capi::setError(errorMessage,
                       std::string(function) + ": the operation is null");
    return nullptr;
  }
  auto module = dyn_cast<ModuleOp>(unwrap(op));
  if (!module)
    tp::capi::setError(errorMessage,
                       std::string(function) +
                           ": expected a builtin.module, "
                           "got '" +
                           unwrap(op)->getName().getStringRef().str() + "'");
  return module;
}

MlirLogicalResult tpModuleSetPlan(MlirOperation op, MlirStringRef planJson,
                                  MlirStringRef sourceName,
                                  char **errorMessage) {
  ModuleOp module = asModule(op, "tpModuleSetPlan", errorMessage);
  if (!module)
    return mlirLogicalResultFailure();
  tp::capi::DiagnosticCollector diagnostics(module.getContext());
  // parsePlan creates the mesh the plan names before it reads the entries;
  // a plan that fails leaves the module as it was.
  bool hadMesh = module.lookupSymbol<tp::MeshOp>("mesh") != nullptr;
  FailureOr<tp::PlanAttr> plan =
      tp::parsePlan(module, unwrap(planJson), unwrap(sourceName));
  if (failed(plan)) {
    if (auto mesh = module.lookupSymbol<tp::MeshOp>("mesh"); mesh && !hadMesh)
      mesh.erase();
    return diagnostics.fail(errorMessage, "invalid plan");
  }
  tp::TPDialect::PlanAttrHelper(module.getContext()).setAttr(module, *plan);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult tpGetCommReport(MlirOperation op, char **json,
                                  char **errorMessage) {
  if (json)
    *json = nullptr;
  ModuleOp module = asModule(op, "tpGetCommReport", errorMessage);
  if (!module)
    return mlirLogicalResultFailure();
  if (!json) {
    tp::capi::setError(errorMessage, "tpGetCommReport: json is null");
    return mlirLogicalResultFailure();
  }
  // Styles left are tp-comm-report's own refusal; a plan not even applied
  // would report no collectives.
  if (tp::findUnloweredPlan(module) == module.getOperation()) {
    tp::capi::setError(errorMessage,
                       "tpGetCommReport: the module holds a plan that is not "
                       "partitioned yet (no tp.spmd function): run tp-pipeline "
                       "first");
    return mlirLogicalResultFailure();
  }
  tp::capi::DiagnosticCollector diagnostics(module.getContext());
  FailureOr<std::string> report = tp::getCommReportJSON(module);
  if (failed(report))
    return diagnostics.fail(errorMessage, "no communication report");
  *json = tp::capi::copyString(*report);
  return mlirLogicalResultSuccess();
}

void tpFreeString(char *string) { std::free(string); }

const char *tpGetVersion(void) { return tp::getVersion(); }
