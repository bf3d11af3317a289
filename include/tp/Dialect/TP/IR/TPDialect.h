//===- TPDialect.h - tp dialect declaration ---------------------*- C++ -*-===//
//
// The tp dialect class, its enums, attribute interfaces and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPDIALECT_H
#define TP_DIALECT_TP_IR_TPDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "tp/Dialect/TP/IR/TPEnums.h.inc"

namespace mlir::tp {
/// Lowers a style on one module (TPTransforms, CustomStyles.h); the style
/// interface only passes it on.
class StyleBuilder;

/// Marks the parallel-style attributes (`ParallelStyleAttrTrait` in
/// TPInterfaces.td).
template <typename ConcreteType>
class ParallelStyleAttrTrait
    : public AttributeTrait::TraitBase<ConcreteType, ParallelStyleAttrTrait> {};
} // namespace mlir::tp

#include "tp/Dialect/TP/IR/TPAttrInterfaces.h.inc"

// Before the dialect: its discardable-attribute helpers name the attribute
// classes (PlanAttr).
#define GET_ATTRDEF_CLASSES
#include "tp/Dialect/TP/IR/TPAttrs.h.inc"

#include "tp/Dialect/TP/IR/TPDialect.h.inc"

#endif // TP_DIALECT_TP_IR_TPDIALECT_H
