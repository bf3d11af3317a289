//===- ModelBuilder.h - model IR from a JSON config -------------*- C++ -*-===//
//
// Builds `model` dialect IR (an MLP, the GPT-style transformer of PyTorch's
// TP tests, or a torchtitan Llama) from a JSON config of PyTorch-style
// hyperparameters: what tp-model prints, callable by other tools and tests.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_MODEL_BUILDER_MODELBUILDER_H
#define TP_DIALECT_MODEL_BUILDER_MODELBUILDER_H

#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::tp::model {

/// Parses the JSON config `text` and appends its model to `module` as
/// `func.func @forward`, loading the model and func dialects. `source` names
/// the config in the IR's locations. Returns the first error (naming the
/// offending key) on failure, none on success; after an error `module` may
/// hold a partly built function.
std::optional<std::string> buildModelFromConfig(ModuleOp module, StringRef text,
                                                StringRef source);

} // namespace mlir::tp::model

#endif // TP_DIALECT_MODEL_BUILDER_MODELBUILDER_H
