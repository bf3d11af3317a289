//===- InitUpstream.h - the upstream MLIR tp-opt mixes with -----*- C++ -*-===//
//
// The upstream dialects and passes a pipeline around tp's meets (what
// tp-opt registers, so one --pass-pipeline mixes tp passes with upstream
// ones): func, arith, math, tensor, linalg, scf, cf, memref, bufferization,
// shard and mpi, and the upstream passes that work on them. A separate
// library (TPInitUpstream) from TPInitAll, so an embedder that only runs
// tp's pipeline does not link them.
//
//===----------------------------------------------------------------------===//

#ifndef TP_INITUPSTREAM_H
#define TP_INITUPSTREAM_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tp {

/// Adds func, arith, math, tensor, linalg, scf, cf, memref, bufferization,
/// shard and mpi (with their interface models) to `registry`.
void registerUpstreamDialects(DialectRegistry &registry);

/// Registers the upstream passes of those dialects: the generic transforms
/// (canonicalize, cse, inline, symbol-dce, ...), bufferization's, linalg's,
/// shard's (sharding-propagation, shard-partition) and convert-shard-to-mpi.
void registerUpstreamPasses();

} // namespace mlir::tp

#endif // TP_INITUPSTREAM_H
