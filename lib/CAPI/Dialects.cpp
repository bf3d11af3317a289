//===- Dialects.cpp - C API: tp's dialects ----------------------*- C++ -*-===//
//
// The dialect handles and tpRegisterAllDialects (tp-c/Dialects.h).
//
//===----------------------------------------------------------------------===//

#include "tp-c/Dialects.h"

#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TP, tp, mlir::tp::TPDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Model, model,
                                      mlir::tp::model::ModelDialect)

void tpRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::tp::registerAllDialects(*unwrap(registry));
}
