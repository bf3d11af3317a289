//===- Passes.h - tp <-> upstream shard conversions -------------*- C++ -*-===//
//
// The passes between tp and MLIR's `shard` dialect and the public functions
// behind them.
//
//===----------------------------------------------------------------------===//

#ifndef TP_CONVERSION_SHARD_PASSES_H
#define TP_CONVERSION_SHARD_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tp {

#define GEN_PASS_DECL
#include "tp/Conversion/Shard/Passes.h.inc"

/// Rewrites every tp op of the partitioned `module` into upstream ops
/// (`shard`, `tensor`, `arith`, `linalg`) and removes tp's attributes; fails
/// with a diagnostic naming the first op that has no faithful upstream form.
LogicalResult convertTPToShard(ModuleOp module);

#define GEN_PASS_REGISTRATION
#include "tp/Conversion/Shard/Passes.h.inc"

} // namespace mlir::tp

#endif // TP_CONVERSION_SHARD_PASSES_H
