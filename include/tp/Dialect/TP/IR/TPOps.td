//===- TPOps.td - tp dialect operations --------------------*- tablegen -*-===//
//
// The mesh symbol, the DTensor ops (distribute, redistribute, from_local,
// to_local) and the collectives of a partitioned program.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_IR_TPOPS_TD
#define TP_DIALECT_TP_IR_TPOPS_TD

include "tp/Dialect/TP/IR/TPBase.td"
include "tp/Dialect/TP/IR/TPAttrs.td"
include "tp/Dialect/TP/IR/TPTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def TP_MeshAxesAttr : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayNonNegative<DenseI64ArrayAttr>]>;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def TP_MeshOp : TP_Op<"mesh", [Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "An N-D device mesh";
  let description = [{
    Declares a device mesh: its shape (one size per axis) and optional axis
    names. Ranks are numbered row-major over the mesh shape, as in PyTorch's
    `DeviceMesh`. The number of ranks must fit in 64 bits. The mesh also
    checks the `!tp.dtensor` values that name it and that no tp op checks
    (those only other dialects' ops define and use): one placement per axis.

    ```mlir
    tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
    tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       DenseI64ArrayAttr:$shape,
                       OptionalAttr<StrArrayAttr>:$axis_names);
  let assemblyFormat = [{
    $sym_name `(` `shape` `=` custom<DimensionList>($shape) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getRank() { return getShape().size(); }
    /// Total number of ranks (product of the shape).
    int64_t getNumRanks();
    /// Index of the axis named `name`, or -1.
    int64_t getAxisIndex(llvm::StringRef name);
    /// The axis name, or "axis<i>" when the mesh has no names.
    std::string getAxisName(int64_t axis);
  }];
}

//===----------------------------------------------------------------------===//
// DTensor ops
//===----------------------------------------------------------------------===//

class TP_MeshUserOp<string mnemonic, list<Trait> traits = []>
    : TP_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>])>;

def TP_DistributeOp : TP_MeshUserOp<"distribute", [Pure]> {
  let summary = "Lay a global tensor out with the given placements";
  let description = [{
    Takes a tensor whose full (global) value is present on every rank and
    returns it as a distributed tensor. Shard placements keep only this
    rank's chunk (no communication); `Partial(sum)` keeps the value on the
    axis' coordinate-0 rank and zeros elsewhere, `Partial(avg|max|min)` the
    value everywhere (tp-partition: `tp.chunk` and
    `tp.partial_from_replicate`). Used for parameter loading and for module
    inputs and outputs whose layout a plan declares.

    ```mlir
    %w = tp.distribute %weight : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, OptionalAttr<StrAttr>:$module);
  let results = (outs TP_DTensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def TP_RedistributeOp : TP_MeshUserOp<"redistribute", [Pure]> {
  let summary = "Change the placements of a distributed tensor";
  let description = [{
    The DTensor `redistribute`: same global value, new placements.
    `tp-lower-redistribute` turns it into collectives (one per
    changed mesh axis: all_gather, all_reduce, reduce_scatter, all_to_all,
    or a local chunk).

    ```mlir
    %r = tp.redistribute %p : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
                           -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
    ```
  }];
  let arguments = (ins TP_DTensorType:$input, OptionalAttr<StrAttr>:$module);
  let results = (outs TP_DTensorType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TP_FromLocalOp : TP_MeshUserOp<"from_local", [Pure]> {
  let summary = "View this rank's local tensor as a distributed tensor";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs TP_DTensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` qualified(type($result))";
}

def TP_ToLocalOp : TP_MeshUserOp<"to_local", [Pure]> {
  let summary = "This rank's local tensor of a distributed tensor";
  let arguments = (ins TP_DTensorType:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Collectives and local chunking (on local tensors)
//===----------------------------------------------------------------------===//

// Every op here is Pure and folds to its input over a group of one rank
// (the product of the mesh's sizes on `mesh_axes` is 1, no axes included).
class TP_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : TP_MeshUserOp<mnemonic, !listconcat(traits, [Pure])> {
  dag commonArgs = (ins FlatSymbolRefAttr:$mesh, TP_MeshAxesAttr:$mesh_axes,
                        OptionalAttr<StrAttr>:$module);
  let results = (outs AnyRankedTensor:$result);
  let hasFolder = 1;
  // Appended to the description of each op that communicates.
  code spmdNote = [{

    Pure: in an SPMD program every rank runs the same function, so a
    collective is a pure function of all ranks' inputs, and merging identical
    ones or dropping an unused one happens alike on every rank (no rank is
    left waiting). Over a group of one rank it folds to its input.
  }];
}

def TP_AllGatherOp : TP_CollectiveOp<"all_gather"> {
  let summary = "Concatenate every rank's tensor along a dim";
  let description = [{
    Over the ranks of `mesh_axes`, concatenates the local tensors along
    `gather_axis` in rank order. Lowers `Shard(d) -> Replicate`.

    ```
    gather_axis = 0, 2 ranks:   rank0: [a]      rank1: [b]
                        after:  rank0: [a; b]   rank1: [a; b]
    ```

    Uneven chunks (`torch.chunk` sizes) make the gathered dim dynamic. When
    the result dim is dynamic too (the dim is also split on earlier mesh
    axes), `global_size` is the dim's global size and `outer_axes` those
    earlier axes, from which each rank computes its group's size.
  }] # spmdNote;
  let arguments = !con(commonArgs, (ins AnyRankedTensor:$input, I64Attr:$gather_axis,
                                        OptionalAttr<I64Attr>:$global_size,
                                        OptionalAttr<DenseI64ArrayAttr>:$outer_axes));
  let assemblyFormat = [{
    $input `on` $mesh `mesh_axes` `=` $mesh_axes `gather_axis` `=` $gather_axis
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TP_AllReduceOp : TP_CollectiveOp<"all_reduce", [SameOperandsAndResultType]> {
  let summary = "Reduce every rank's tensor and give the result to all";
  let description = [{
    Element-wise reduction (`sum`, `avg`, `max`, `min`) over the ranks of
    `mesh_axes`. Lowers `Partial -> Replicate`.

    ```mlir
    %r = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {module = "layers.0.w2"} : tensor<8x16xf32>
    ```

    ```
    reduction = sum, 2 ranks:   rank0: [1 2]   rank1: [3 4]
                        after:  rank0: [4 6]   rank1: [4 6]
    ```

    `max` and `min` also fold to their input where every rank of the group
    already holds it: the result of an all_reduce, all_gather or broadcast
    over the same axes or more.
  }] # spmdNote;
  let arguments = !con(commonArgs, (ins AnyRankedTensor:$input, TP_ReductionKindAttr:$reduction));
  // `$input on $mesh mesh_axes = $mesh_axes reduction = $reduction attr-dict
  // : type($input)`, parsed and printed by hand (TPOps.cpp): one per Rowwise
  // layer in every partitioned program.
  let hasCustomAssemblyFormat = 1;
}

def TP_ReduceScatterOp : TP_CollectiveOp<"reduce_scatter"> {
  let summary = "Reduce every rank's tensor and keep this rank's chunk";
  let description = [{
    Element-wise reduction over the ranks of `mesh_axes`, after which rank
    `i` keeps chunk `i` along `scatter_axis`. Lowers `Partial -> Shard(d)`.

    ```
    scatter_axis = 0, sum:   rank0: [1; 2]   rank1: [3; 4]
                     after:  rank0: [4]      rank1: [6]
    ```
  }] # spmdNote;
  let arguments = !con(commonArgs, (ins AnyRankedTensor:$input, TP_ReductionKindAttr:$reduction, I64Attr:$scatter_axis));
  let assemblyFormat = [{
    $input `on` $mesh `mesh_axes` `=` $mesh_axes `reduction` `=` `` $reduction
    `scatter_axis` `=` $scatter_axis attr-dict `:` type($input) `->` type($result)
  }];
}

def TP_AllToAllOp : TP_CollectiveOp<"all_to_all"> {
  let summary = "Exchange chunks: split one dim, concatenate another";
  let description = [{
    Each rank splits its tensor along `split_axis` into one chunk per rank,
    sends chunk `j` to rank `j`, and concatenates what it receives along
    `concat_axis`. Lowers `Shard(i) -> Shard(j)`.

    ```
    split_axis = 1, concat_axis = 0, 2 ranks:
      rank0: [a0 a1]          rank1: [b0 b1]
      after: rank0: [a0; b0]  rank1: [a1; b1]
    ```
  }] # spmdNote;
  let arguments = !con(commonArgs, (ins AnyRankedTensor:$input, I64Attr:$split_axis, I64Attr:$concat_axis));
  let assemblyFormat = [{
    $input `on` $mesh `mesh_axes` `=` $mesh_axes `split_axis` `=` $split_axis
    `concat_axis` `=` $concat_axis attr-dict `:` type($input) `->` type($result)
  }];
}

def TP_BroadcastOp : TP_CollectiveOp<"broadcast", [SameOperandsAndResultType]> {
  let summary = "Copy the root rank's tensor to every rank";
  let description = [{
    ```
    root = 0:   rank0: [a]   rank1: [b]
       after:   rank0: [a]   rank1: [a]
    ```

    Folds to its input where every rank of the group already holds it: the
    result of an all_reduce, all_gather or broadcast over the same axes or
    more.
  }] # spmdNote;
  let arguments = !con(commonArgs, (ins AnyRankedTensor:$input, I64Attr:$root));
  let assemblyFormat = [{
    $input `on` $mesh `mesh_axes` `=` $mesh_axes `root` `=` $root
    attr-dict `:` type($input)
  }];
}

def TP_ChunkOp : TP_CollectiveOp<"chunk"> {
  let summary = "Keep this rank's chunk of a replicated tensor (local)";
  let description = [{
    No communication: rank `i` of the ranks of `mesh_axes` keeps chunk `i`
    of `axis` (`torch.chunk` rule). Lowers `Replicate -> Shard(d)` and
    parameter loading.

    ```mlir
    %c = tp.chunk %w on @mesh mesh_axes = [0] axis = 0 {module = "layers.0.w1"} : tensor<64x16xf32> -> tensor<32x16xf32>
    ```

    ```
    axis = 0, 2 ranks:   rank0: [a; b]   rank1: [a; b]
                after:   rank0: [a]      rank1: [b]
    ```

    Over a group of one rank it folds to its input.
  }];
  let arguments = !con(commonArgs, (ins AnyRankedTensor:$input, I64Attr:$axis));
  // `$input on $mesh mesh_axes = $mesh_axes axis = $axis attr-dict :
  // type($input) -> type($result)`, parsed and printed by hand (TPOps.cpp):
  // one per parameter in every partitioned program.
  let hasCustomAssemblyFormat = 1;
}

def TP_PartialFromReplicateOp : TP_CollectiveOp<"partial_from_replicate", [
    SameOperandsAndResultType]> {
  let summary = "Make a replicated tensor Partial (local)";
  let description = [{
    No communication: the local half of `Replicate -> Partial(reduction)`
    over the ranks of `mesh_axes`, chosen so that reducing the result over
    those ranks gives back the replicated value exactly. For `sum` the rank
    at coordinate 0 of every axis in `mesh_axes` keeps the value and the
    others hold zeros (no division by the group size, which would round);
    for `avg`, `max` and `min` every rank keeps the value. Lowers
    `Replicate -> Partial`, and `tp.distribute` to a Partial placement.

    ```
    reduction = sum, 2 ranks:   rank0: [1 2]   rank1: [1 2]
                        after:  rank0: [1 2]   rank1: [0 0]
    reduction = max, 2 ranks:   rank0: [1 2]   rank1: [1 2]
                        after:  rank0: [1 2]   rank1: [1 2]
    ```

    Named after the redistribution it lowers rather than after what it does
    to the data, which depends on the reduction: zeros for `sum`, nothing
    for the others. Over a group of one rank it folds to its input.
  }];
  let arguments = !con(commonArgs, (ins AnyRankedTensor:$input, TP_ReductionKindAttr:$reduction));
  let assemblyFormat = [{
    $input `on` $mesh `mesh_axes` `=` $mesh_axes `reduction` `=` `` $reduction
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buckets (local, made by tp-merge-collectives)
//===----------------------------------------------------------------------===//

def TP_PackOp : TP_Op<"pack", [Pure]> {
  let summary = "Flatten tensors into one 1-D tensor, one after another";
  let description = [{
    The inputs' elements in row-major order, the first input's first, in a
    1-D tensor of their total size. With `tp.unpack` it carries several
    tensors through one collective (a bucket):

    ```mlir
    %b = tp.pack %gw, %gb : tensor<4x8xf32>, tensor<8xf32> -> tensor<40xf32>
    %r = tp.all_reduce %b on @mesh mesh_axes = [0] reduction = sum : tensor<40xf32>
    %w = tp.unpack %r offset = 0 : tensor<40xf32> -> tensor<4x8xf32>
    %c = tp.unpack %r offset = 32 : tensor<40xf32> -> tensor<8xf32>
    ```

    Every input has a static shape and the result's element type.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TP_UnpackOp : TP_Op<"unpack", [Pure]> {
  let summary = "A tensor read from a 1-D tensor at an offset (of tp.pack)";
  let description = [{
    The elements `[offset, offset + n)` of the 1-D `input`, `n` the static
    size of the result, in the result's shape (row-major): the inverse of
    one input of `tp.pack`.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$offset);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `offset` `=` $offset attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Lookups into a sharded dim (local, made by tp-partition)
//===----------------------------------------------------------------------===//

// A lookup whose table is split over mesh axes finds only the rows (or
// classes) this rank holds; the others give zero, so the results of the
// ranks sum to the unsplit lookup. Which rows a rank holds follows from the
// full size and the rank's index in the group of `mesh_axes` (torch.chunk
// sizes), so the op carries both rather than an offset, and one program
// serves every rank.
class TP_ShardedLookupOp<string mnemonic>
    : TP_MeshUserOp<mnemonic, [Pure]> {
  let results = (outs AnyRankedTensor:$result);
  let hasVerifier = 1;
}

def TP_ShardedEmbeddingOp : TP_ShardedLookupOp<"sharded_embedding"> {
  let summary = "Embedding lookup in this rank's rows of the vocabulary";
  let description = [{
    `weight` holds this rank's chunk of the rows of an embedding table of
    `vocab_size` rows, split over the ranks of `mesh_axes` (torch.chunk
    sizes, in rank order). Each id gives its row when this rank holds it
    and zeros otherwise; the result is `Partial(sum)` over `mesh_axes`.
    The local form of `RowwiseParallel` on an `nn.Embedding`.

    ```
    vocab_size = 4, 2 ranks, ids = [0 3]:
      rank0 (rows 0-1): [w0; 0]   rank1 (rows 2-3): [0; w3]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, TP_MeshAxesAttr:$mesh_axes,
                       OptionalAttr<StrAttr>:$module, AnyRankedTensor:$ids,
                       AnyRankedTensor:$weight, I64Attr:$vocab_size);
  let assemblyFormat = [{
    $ids `,` $weight `on` $mesh `mesh_axes` `=` $mesh_axes
    `vocab_size` `=` $vocab_size attr-dict `:` `(` type($ids) `,`
    type($weight) `)` `->` type($result)
  }];
}

def TP_ShardedTargetLogitOp : TP_ShardedLookupOp<"sharded_target_logit"> {
  let summary = "Each row's logit at its target, on this rank's classes";
  let description = [{
    `logits` `[N, C_local]` holds this rank's chunk of `num_classes` classes,
    split over the ranks of `mesh_axes` (torch.chunk sizes, in rank order);
    `targets` `[N]` are global class ids. Row `i` of the `[N, 1]` result is
    `logits[i, targets[i] - offset]` when this rank holds class
    `targets[i]`, zero otherwise: `Partial(sum)` over `mesh_axes`. The local
    form of `model.target_logit` under `loss_parallel`.

    ```
    num_classes = 4, 2 ranks, targets = [1 2]:
      rank0 (classes 0-1): [l01; 0]   rank1 (classes 2-3): [0; l12]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, TP_MeshAxesAttr:$mesh_axes,
                       OptionalAttr<StrAttr>:$module, AnyRankedTensor:$logits,
                       AnyRankedTensor:$targets, I64Attr:$num_classes);
  let assemblyFormat = [{
    $logits `,` $targets `on` $mesh `mesh_axes` `=` $mesh_axes
    `num_classes` `=` $num_classes attr-dict `:` `(` type($logits) `,`
    type($targets) `)` `->` type($result)
  }];
}

def TP_ShardedEmbeddingGradOp : TP_ShardedLookupOp<"sharded_embedding_grad"> {
  let summary = "Gradient of this rank's rows of a vocabulary-sharded table";
  let description = [{
    The backward of `tp.sharded_embedding`: `grad` `[..., D]` is the whole
    gradient of the lookup, `ids` the global ids; `weight` is this rank's
    chunk of the `vocab_size` rows (only its shape is read). Row `r` of the
    result sums the rows of `grad` whose id is `offset + r`; ids this rank
    does not hold contribute nothing. The result is `Shard(0)` of the
    table's gradient over `mesh_axes`.

    ```
    vocab_size = 4, 2 ranks, ids = [0 3], grad = [g0; g1]:
      rank0 (rows 0-1): [g0; 0]   rank1 (rows 2-3): [0; g1]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, TP_MeshAxesAttr:$mesh_axes,
                       OptionalAttr<StrAttr>:$module, AnyRankedTensor:$grad,
                       AnyRankedTensor:$ids, AnyRankedTensor:$weight,
                       I64Attr:$vocab_size);
  let assemblyFormat = [{
    $grad `,` $ids `,` $weight `on` $mesh `mesh_axes` `=` $mesh_axes
    `vocab_size` `=` $vocab_size attr-dict `:` `(` type($grad) `,`
    type($ids) `,` type($weight) `)` `->` type($result)
  }];
}

def TP_ShardedTargetLogitGradOp
    : TP_ShardedLookupOp<"sharded_target_logit_grad"> {
  let summary = "Gradient of this rank's classes of a target logit";
  let description = [{
    The backward of `tp.sharded_target_logit`: `grad` `[N, 1]`, `logits`
    `[N, C_local]` this rank's chunk of `num_classes` classes (only its
    shape is read), `targets` `[N]` global class ids. Element
    `(i, targets[i] - offset)` is `grad[i]` where this rank holds class
    `targets[i]`, everything else is zero: `Shard(1)` of the gradient of
    the logits over `mesh_axes`.

    ```
    num_classes = 4, 2 ranks, targets = [1 2], grad = [a; b]:
      rank0 (classes 0-1): [0 a; 0 0]   rank1 (classes 2-3): [0 0; b 0]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, TP_MeshAxesAttr:$mesh_axes,
                       OptionalAttr<StrAttr>:$module, AnyRankedTensor:$grad,
                       AnyRankedTensor:$logits, AnyRankedTensor:$targets,
                       I64Attr:$num_classes);
  let assemblyFormat = [{
    $grad `,` $logits `,` $targets `on` $mesh `mesh_axes` `=` $mesh_axes
    `num_classes` `=` $num_classes attr-dict `:` `(` type($grad) `,`
    type($logits) `,` type($targets) `)` `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Dropout in training on a sharded tensor (local, made by tp-partition)
//===----------------------------------------------------------------------===//

// A training dropout's mask is keyed by each element's index in the global
// tensor, so a rank holding a shard needs the global shape and where its
// shard lies. Those follow from the global shape, the shard dim of each
// mesh axis and the rank's mesh coordinates (nested torch.chunk pieces in
// mesh order, as tp-partition cuts), so the op carries the first two and
// one program serves every rank.
class TP_ShardedDropoutOpBase<string mnemonic>
    : TP_MeshUserOp<mnemonic, [Pure, AllTypesMatch<["input", "result"]>]> {
  let arguments = (ins FlatSymbolRefAttr:$mesh,
                       DenseI64ArrayAttr:$shard_dims, StrAttr:$fqn,
                       AnyRankedTensor:$input, DenseI64ArrayAttr:$global_shape,
                       F64Attr:$p);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $fqn `(` $input `)` `on` $mesh `shard_dims` `=` $shard_dims
    `global_shape` `=` $global_shape attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def TP_ShardedDropoutOp : TP_ShardedDropoutOpBase<"sharded_dropout"> {
  let summary = "Dropout in training on this rank's shard";
  let description = [{
    The local form of `model.dropout` with `train` on a tensor sharded over
    some mesh axes: `input` is this rank's piece of a tensor of
    `global_shape`, where mesh axis `a` shards dim `shard_dims[a]` (-1: the
    axis shards nothing; a dim sharded by several axes is split by each in
    mesh order). The result is `input` times this rank's slice of the
    global mask of `fqn` (see `model.dropout`), so the pieces of all ranks
    form the unsharded result. No communication.

    ```
    global [4] mask [1 0 1 1] / (1 - p), shard_dims = [0], 2 ranks:
      rank0: [x0 x1] -> [x0 0] / (1 - p)   rank1: [x2 x3] -> [x2 x3] / (1 - p)
    ```
  }];
}

def TP_ShardedDropoutGradOp : TP_ShardedDropoutOpBase<"sharded_dropout_grad"> {
  let summary = "Gradient of a dropout in training on this rank's shard";
  let description = [{
    The local form of `model.dropout_grad`, as `tp.sharded_dropout` is of
    the forward: `input` is this rank's piece of the gradient, multiplied
    by the same slice of the same mask.
  }];
}

#endif // TP_DIALECT_TP_IR_TPOPS_TD
