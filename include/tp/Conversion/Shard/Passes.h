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
#include "mlir/Pass/PassOptions.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"

namespace mlir::tp {

#define GEN_PASS_DECL
#include "tp/Conversion/Shard/Passes.h.inc"

/// Rewrites every tp op of the partitioned `module` into upstream ops
/// (`shard`, `tensor`, `arith`, `linalg`) and removes tp's attributes; fails
/// with a diagnostic naming the first op that has no faithful upstream form.
LogicalResult convertTPToShard(ModuleOp module);

/// Imports the shard annotations of `module` as tp placements and raises its
/// linalg computation to model ops (see `import-shard`); fails with a
/// diagnostic naming what it cannot express.
LogicalResult importShard(ModuleOp module);

/// Rewrites the linalg computation of `func` as model ops (contractions,
/// element-wise ops, sum/max reductions, permutations, tensor reshapes; see
/// `import-shard`) and removes the inits and constants nothing reads any
/// more; fails naming the first op that has no model form.
LogicalResult raiseLinalgToModel(func::FuncOp func);

/// Options of `tp-shard-pipeline`.
struct TPShardPipelineOptions
    : public PassPipelineOptions<TPShardPipelineOptions> {
  Option<std::string> reportJson{
      *this, "report-json",
      llvm::cl::desc("Write the communication report as JSON here ('-' for "
                     "stdout)"),
      llvm::cl::init("")};
  Option<bool> reportTable{
      *this, "report-table",
      llvm::cl::desc("Print the communication table to stderr"),
      llvm::cl::init(false)};
};

/// Appends import-shard and tp's lowering from placements to the SPMD
/// program to `pm`.
void buildTPShardPipeline(OpPassManager &pm,
                          const TPShardPipelineOptions &options);

/// Registers the passes of this header and `tp-shard-pipeline`.
void registerTPShardConversions();

#define GEN_PASS_REGISTRATION
#include "tp/Conversion/Shard/Passes.h.inc"

} // namespace mlir::tp

#endif // TP_CONVERSION_SHARD_PASSES_H
