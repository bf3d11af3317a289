// RUN: tp-opt %s -split-input-file -tp-propagate -verify-diagnostics -o /dev/null

// Slicing a dim sharded over the mesh gathers it first: said once per
// sliced value, with its size; a linear's output features cut into pieces
// (GPT-2's c_attn split into q, k and v) also say how to shard the weight.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @fused(%x: tensor<2x4x8xf32>, %w: tensor<24x8xf32>) {
  %dw = tp.distribute %w : tensor<24x8xf32> -> !tp.dtensor<24x8xf32, @mesh, [#tp.shard<0>]>
  %h = model.linear "attn.c_attn"(%x, %dw) : (tensor<2x4x8xf32>, !tp.dtensor<24x8xf32, @mesh, [#tp.shard<0>]>) -> tensor<2x4x24xf32>
  // expected-warning @below {{'' slices dim 2, which is sharded over the 2 ranks of mesh axis 'tp': it is gathered first (all_gather of 768 bytes); the output features of 'attn.c_attn' are cut into pieces: "shard_pieces": true on its ColwiseParallel shards each piece's rows of the weight}}
  %q = model.slice %h {dim = 2 : i64, start = 0 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x8xf32>
  %k = model.slice %h {dim = 2 : i64, start = 8 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x8xf32>
  %v = model.slice %h {dim = -1 : i64, start = 16 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// A slice of another dim keeps the shard: nothing to say.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @rows(%x: tensor<4x8xf32>) {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  %r = model.slice %d {dim = 0 : i64, start = 1 : i64, step = 2 : i64} : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>) -> tensor<2x8xf32>
  return
}
