//===- ModelOps.h - model dialect operations --------------------*- C++ -*-===//
//
// Composite modules, leaf modules with parameters, and functional ops.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_MODEL_IR_MODELOPS_H
#define TP_DIALECT_MODEL_IR_MODELOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tp/Dialect/Model/IR/GradientBuilder.h"
#include "tp/Dialect/Model/IR/ModelDialect.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/IR/TPTypes.h"

#include <type_traits>

namespace mlir::tp::model::detail {
/// The kernel of op class \p Op (KernelOpInterface): `Op::kKernelName`
/// where its record sets one, else its mnemonic.
template <typename Op, typename = void> struct KernelNameOf {
  static llvm::StringRef get() {
    return Op::getOperationName().split('.').second;
  }
};
template <typename Op>
struct KernelNameOf<Op, std::void_t<decltype(Op::kKernelName)>> {
  static llvm::StringRef get() { return Op::kKernelName; }
};
template <typename Op> llvm::StringRef kernelNameOf() {
  return KernelNameOf<Op>::get();
}
} // namespace mlir::tp::model::detail

#include "tp/Dialect/Model/IR/ModelOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tp/Dialect/Model/IR/ModelOps.h.inc"

namespace mlir::tp::model {

/// True for leaf-module ops (LeafModuleOpInterface: linear, embedding,
/// layer_norm, rms_norm, dropout): ops that carry an `fqn` and own
/// parameters.
bool isLeafModule(Operation *op);

/// The FQN of a composite or leaf module op, or "" for other ops.
llvm::StringRef getModuleFQN(Operation *op);

/// The PyTorch class name of a module op (`Linear`, `Embedding`, ...), or the
/// composite module's `kind`.
std::string getModuleTypeName(Operation *op);

/// The direct child modules (leaf or composite module ops in its body, not
/// nested in another module) of a composite module or of a model function,
/// in definition order: first those a composite's `children` lists, in its
/// order, then the others in program order.
llvm::SmallVector<Operation *> getChildModules(Operation *module);

/// Whether \p op's result holds (some of) its operands' ids, moved: slices,
/// reshapes, transposes, concats, and tp's chunks, gathers and layout ops.
bool movesIds(Operation *op);

/// Whether integer ids \p ids are read only as the targets of a
/// model.cross_entropy (and of its gradient, and counted by
/// model.valid_rows), through ops that only move them (slices, reshapes,
/// tp's chunks, gathers and layout ops): then -100, PyTorch's ignore_index,
/// is a valid value (a row the loss skips). Target logits and comparisons
/// may read them too where model.valid_rows counts them (the class-parallel
/// loss that skips the rows); not a target logit alone, which cannot skip a
/// row.
bool takesIgnoreIndex(Value ids);

/// Whether the targets \p targets of a cross entropy may hold -100: unless
/// they come, through ops that only move them, from function arguments of
/// which none takesIgnoreIndex (a value computed otherwise may).
bool mayHoldIgnoreIndex(Value targets);

/// Attaches the model dialect's interfaces to ops of other dialects:
/// tp's layout ops (distribute, redistribute, to_local) pass a gradient
/// through unchanged. Called by tp::registerAllDialects.
void registerModelExternalModels(DialectRegistry &registry);

} // namespace mlir::tp::model

#endif // TP_DIALECT_MODEL_IR_MODELOPS_H
