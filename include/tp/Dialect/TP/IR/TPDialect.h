//===- TPDialect.h - tp dialect declaration ---------------------*- C++ -*-===//
//
// The tp dialect class, its enums, attribute interfaces and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPDIALECT_H
#define TP_DIALECT_TP_IR_TPDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
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

namespace mlir::tp {

/// The phase of a training step \p op belongs to: its `tp.phase`, forward
/// when unmarked.
Phase getPhase(Operation *op);
/// Marks \p op with \p phase (forward: unmarks it).
void setPhase(Operation *op, Phase phase);
/// Forward, backward, optimizer: the phases in the order a training step
/// runs them.
ArrayRef<Phase> allPhases();

/// Gives every op a builder inserts one phase, that of \p source: a
/// redistribution made for a backward op is backward communication. Use as
/// the builder's listener: `PhaseListener marker(consumer); OpBuilder
/// b(consumer, &marker);`.
class PhaseListener : public OpBuilder::Listener {
public:
  explicit PhaseListener(Operation *source) : phase(getPhase(source)) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    setPhase(op, phase);
  }

private:
  Phase phase;
};

} // namespace mlir::tp

#endif // TP_DIALECT_TP_IR_TPDIALECT_H
