/*===- tp-c/Transforms.h - C API: passes, plans, the report -------*- C -*-===*\
|*                                                                            *|
|* Registration of tp's passes and of tp-pipeline (so that upstream's         *|
|* mlirParsePassPipeline accepts them), a plan given as JSON text, and the    *|
|* communication report of a partitioned module.                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_C_TRANSFORMS_H
#define TP_C_TRANSFORMS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every tp pass (tp-apply-plan, ..., tp-comm-report) and the
/// `tp-pipeline` pipeline in the global registry that mlirParsePassPipeline
/// reads, e.g. "builtin.module(tp-pipeline{plan=plan.json})". Call it once,
/// before parsing a pipeline; calling it again does nothing more.
MLIR_CAPI_EXPORTED void tpRegisterAllPasses(void);

/// Parses `planJson` (a plan as tp-opt's plan files hold it: {"mesh": ...,
/// "plan": ...}) and attaches it to `module` (a builtin.module) as its
/// tp.plan attribute, creating the mesh it names, so that tp-pipeline
/// without `plan=` applies it. `sourceName` names the plan in diagnostics.
/// On failure returns failure and, when `errorMessage` is not NULL, sets
/// *errorMessage to a message the caller frees with tpFreeString; the
/// diagnostics of the failure go to that message, not to the context's
/// handlers. The module is unchanged on failure.
MLIR_CAPI_EXPORTED MlirLogicalResult tpModuleSetPlan(MlirOperation module,
                                                     MlirStringRef planJson,
                                                     MlirStringRef sourceName,
                                                     char **errorMessage);

/// The communication report of `module`, a builtin.module that tp-pipeline
/// (or tp-partition) has partitioned: the JSON object tp-comm-report writes
/// (bytes_per_rank, collectives, collectives_by_phase, modules,
/// modules_by_phase). On success sets *json to a NUL-terminated string the
/// caller frees with tpFreeString. On failure (a module tp-comm-report
/// refuses: styles, unpropagated placements or redistributions left)
/// returns failure and sets *errorMessage as tpModuleSetPlan does; *json is
/// then NULL. A model without a plan reports no collectives; a module whose
/// plan tp-pipeline has not lowered (tp.plan, no tp.spmd function) fails.
MLIR_CAPI_EXPORTED MlirLogicalResult tpGetCommReport(MlirOperation module,
                                                     char **json,
                                                     char **errorMessage);

/// Frees a string tp's C API returned (an error message, a report). NULL
/// is allowed.
MLIR_CAPI_EXPORTED void tpFreeString(char *string);

#ifdef __cplusplus
}
#endif

#endif // TP_C_TRANSFORMS_H
