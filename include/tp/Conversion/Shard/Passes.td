//===- Passes.td - tp <-> upstream shard conversions -------*- tablegen -*-===//
//
// The bridge to MLIR's `shard` dialect: exporting tp's partitioned SPMD
// program as upstream ops, and importing upstream sharding annotations as
// tp placements.
//
//===----------------------------------------------------------------------===//

#ifndef TP_CONVERSION_SHARD_PASSES_TD
#define TP_CONVERSION_SHARD_PASSES_TD

include "mlir/Pass/PassBase.td"

def TPConvertTPToShardPass
    : Pass<"convert-tp-to-shard", "::mlir::ModuleOp"> {
  let summary = "Rewrite a partitioned program's tp ops as upstream ops";
  let description = [{
    On the output of `tp-partition` (`tp.spmd` functions over local
    tensors), rewrites every `tp` op into MLIR's own dialects so that
    upstream passes (`convert-shard-to-mpi`, bufferization, ...) take over:

    | tp | upstream |
    |---|---|
    | `tp.mesh` | `shard.grid` (same symbol and shape; axis names dropped) |
    | `tp.all_gather` | `shard.all_gather` |
    | `tp.all_reduce` | `shard.all_reduce` (sum, average, max, min) |
    | `tp.reduce_scatter` | `shard.reduce_scatter` |
    | `tp.all_to_all` | `shard.all_to_all` |
    | `tp.broadcast` | `shard.broadcast` (root as a multi-index) |
    | `tp.chunk` | `shard.process_multi_index` + `tensor.extract_slice` (torch.chunk offsets, also uneven) |
    | `tp.partial_from_replicate` | sum: `arith.select` between the value and zeros on the group's coordinate 0; others: the value |
    | `tp.pack` / `tp.unpack` | `tensor.collapse_shape` + `tensor.concat` / `tensor.extract_slice` + `tensor.expand_shape` |
    | `tp.sharded_embedding`, `tp.sharded_target_logit` and their grads | `linalg.generic` over this rank's rows or classes (offset from `shard.process_multi_index`) |

    tp's attributes go (`tp.plan`, `tp.spmd`, `tp.arg_types`,
    `tp.result_types`, `tp.local`, the collectives' `module`); a training
    phase stays as the plain string attribute `tp_phase`, which upstream
    tools parse. What has no faithful upstream form is an error naming the
    op: collectives of uneven (dynamic) pieces, whose sizes upstream cannot
    express, and `tp.sharded_dropout`, whose mask is tp's runtime generator.
    `model` ops are left as they are.
  }];
  let dependentDialects = [
    "::mlir::shard::ShardDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // TP_CONVERSION_SHARD_PASSES_TD
