/*===- tp-c/Dialects.h - C API: tp's dialects ---------------------*- C -*-===*\
|*                                                                            *|
|* The handles of the tp and model dialects (as upstream's mlir-c/Dialect     *|
|* headers declare theirs) and one call that registers every dialect model    *|
|* IR needs.                                                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_C_DIALECTS_H
#define TP_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// mlirGetDialectHandle__tp__() and mlirGetDialectHandle__model__(): insert
/// or load one dialect alone. A handle adds no external model, so passes
/// and plans need tpRegisterAllDialects as well.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TP, tp);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Model, model);

/// Adds the tp and model dialects, the upstream dialects model IR uses
/// (func, arith, tensor) and the external models tp attaches to them (the
/// model ops' sharding rules, the parallel styles) to `registry`.
MLIR_CAPI_EXPORTED void tpRegisterAllDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif // TP_C_DIALECTS_H
