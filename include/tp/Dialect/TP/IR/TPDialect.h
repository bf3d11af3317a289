//===- TPDialect.h - tp dialect declaration ---------------------*- C++ -*-===//
//
// The tp dialect class, its enums and attribute interfaces.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPDIALECT_H
#define TP_DIALECT_TP_IR_TPDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "tp/Dialect/TP/IR/TPDialect.h.inc"
#include "tp/Dialect/TP/IR/TPEnums.h.inc"
#include "tp/Dialect/TP/IR/TPAttrInterfaces.h.inc"

#endif // TP_DIALECT_TP_IR_TPDIALECT_H
