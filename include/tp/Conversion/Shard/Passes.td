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
    | `tp.all_gather` | `shard.all_gather` (uneven pieces: padded to equal ones, gathered, cut to the global size) |
    | `tp.all_reduce` | `shard.all_reduce` (sum, average, max, min) |
    | `tp.reduce_scatter` | `shard.reduce_scatter` (uneven: the input padded to equal pieces, each rank's torch.chunk piece cut from its padded one) |
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
    op: a gather of uneven pieces of a dim also split on other mesh axes,
    reduce_scatter and all_to_all of dynamic inputs, and
    `tp.sharded_dropout`, whose mask is tp's runtime generator.
    `model` ops are left as they are.
  }];
  let dependentDialects = [
    "::mlir::shard::ShardDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TPImportShardPass : Pass<"import-shard", "::mlir::ModuleOp"> {
  let summary = "Import upstream shard annotations as tp placements";
  let description = [{
    Takes what MLIR users write for the `shard` dialect (functions over
    global tensors whose values are annotated with `shard.sharding` and
    `shard.shard` on a `shard.grid`, the computation between them in linalg)
    and turns it into tp's DTensor program, so that tp's propagation,
    Partial handling and redistribution planner lower it (`tp-propagate`,
    `tp-optimize`, `tp-lower-redistribute`, `tp-partition`; all of them in
    `tp-shard-pipeline`):

    * `shard.grid @g(shape = 2x4)` becomes `tp.mesh @g(shape = 2x4)`.
    * A sharding's `split_axes` become one placement per grid axis: an axis
      listed for tensor dim `d` is `#tp.shard<d>`, an axis not listed is
      `#tp.replicate`. (MLIR 22 has no partial annotation.)
    * `shard.shard` of a function argument without `annotate_for_users`
      says how the argument arrives: its type becomes the `!tp.dtensor`
      (as a declared input layout). Every other `shard.shard` is a layout
      the value must have at that point: `tp.distribute` of a plain tensor,
      `tp.redistribute` of a distributed one.
    * The computation is raised to `model` ops, whose sharding rules tp
      has: a contraction `linalg.generic` (or `linalg.matmul`,
      `linalg.batch_matmul`) of `[..., m, k]` by `[k, n]`, `[n, k]` (through
      `model.transpose`) or `[..., k, n]` with a multiply-add body is
      `model.matmul` (plus `model.add` of its init unless that is a zero
      fill); a sum or max over one loop is `model.reduce_sum` /
      `model.reduce_max`; a permutation of dims is `model.transpose`; an element-wise `linalg.generic`
      (or a named element-wise op) is its body's scalar ops as element-wise
      model ops (`addf`, `subf`, `mulf`, `negf`, `maximumf` with zero,
      `math.exp`, `math.log`, `math.tanh`, float constants);
      `tensor.collapse_shape` and `tensor.expand_shape` are
      `model.reshape`.

    What it cannot express is an error naming the op and why: halos and
    explicit uneven offsets (tp shards are torch.chunk pieces), grid axes
    listed out of mesh order within one dim, dynamic grid sizes, linalg ops
    that are neither of the forms above, and body ops without a model op.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect",
                           "::mlir::tp::model::ModelDialect"];
}

#endif // TP_CONVERSION_SHARD_PASSES_TD
