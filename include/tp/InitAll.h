//===- InitAll.h - register every tp dialect and pass -----------*- C++ -*-===//
//
// One entry point for tools and embedders: the dialects tp needs to parse
// model IR, and every tp pass and pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef TP_INITALL_H
#define TP_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tp {

/// Adds the tp and model dialects plus the upstream dialects model IR uses
/// (func, arith, tensor) to `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Registers every tp pass and the `tp-pipeline` pipeline.
void registerAllPasses();

} // namespace mlir::tp

#endif // TP_INITALL_H
