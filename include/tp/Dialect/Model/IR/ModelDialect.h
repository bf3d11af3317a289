//===- ModelDialect.h - model dialect declaration ---------------*- C++ -*-===//
//
// The model dialect: nn.Module-like structure and transformer ops.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_MODEL_IR_MODELDIALECT_H
#define TP_DIALECT_MODEL_IR_MODELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tp/Dialect/Model/IR/ModelDialect.h.inc"

#endif // TP_DIALECT_MODEL_IR_MODELDIALECT_H
