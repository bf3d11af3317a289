// What convert-tp-to-shard refuses, each with an error naming the op.
// RUN: tp-opt %s --convert-tp-to-shard --split-input-file -verify-diagnostics

tp.mesh @mesh(shape = 2x2)
func.func @nested_uneven_gather(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{tp.all_gather of uneven pieces of a dim also split on other mesh axes has no shard form: shard.all_gather concatenates equal pieces}}
  %g = tp.all_gather %x on @mesh mesh_axes = [1] gather_axis = 0 {global_size = 10 : i64, outer_axes = array<i64: 0>} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %g : tensor<?x8xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @dynamic_reduce_scatter(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{tp.reduce_scatter of a dynamic input has no shard form: shard.reduce_scatter scatters equal pieces of a static shape}}
  %r = tp.reduce_scatter %x on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @dynamic_all_to_all(%x: tensor<?x8xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{tp.all_to_all of uneven (dynamic) pieces has no shard form: upstream collectives move equal pieces of static shape}}
  %r = tp.all_to_all %x on @mesh mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<?x8xf32> -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// -----

tp.mesh @mesh(shape = 2)
func.func @dropout(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{tp.sharded_dropout has no upstream form: its mask is tp's runtime generator keyed by the module name and the global index, which no upstream op computes}}
  %d = tp.sharded_dropout "drop"(%x) on @mesh shard_dims = [1] global_shape = [4, 16] {p = 5.000000e-01 : f64} : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

tp.mesh @mesh(shape = 2)
func.func @not_partitioned(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{tp.distribute in a program that is not partitioned: convert-tp-to-shard needs tp-partition's output (run tp-pipeline first)}}
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  %l = tp.to_local %d : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> -> tensor<2x8xf32>
  %c = tensor.empty() : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{convert-tp-to-shard: the module holds a plan that is not lowered (no tp.spmd function); run tp-pipeline first}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2)
  func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
