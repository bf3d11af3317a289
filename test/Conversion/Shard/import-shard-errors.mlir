// What import-shard refuses, each with an error naming the op and why.
// RUN: tp-opt %s --import-shard --split-input-file -verify-diagnostics

// expected-error @+1 {{shard.grid @g has a dynamic axis size: a tp mesh's sizes are static}}
shard.grid @g(shape = ?x4)

// -----

shard.grid @g(shape = 4)
func.func @halo(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard.sharding with halo sizes: tp shards do not overlap}}
  %s = shard.sharding @g split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @offsets(%x: tensor<14xf32>) -> tensor<14xf32> {
  // expected-error @+1 {{shard.sharding with explicit sharded_dims_offsets: tp's uneven shards are torch.chunk pieces, not given offsets}}
  %s = shard.sharding @g split_axes = [[0]] sharded_dims_offsets = [0, 2, 5, 9, 14] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<14xf32>
  return %xs : tensor<14xf32>
}

// -----

shard.grid @g(shape = 2x2)
func.func @order(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{shard.sharding splits dim 0 over grid axes out of order (1 before 0): tp nests a dim's pieces in mesh-axis order}}
  %s = shard.sharding @g split_axes = [[1, 0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8xf32>
  return %xs : tensor<8xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @window(%x: tensor<10xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %w = tensor.empty() : tensor<3xf32>
  // expected-error @+1 {{linalg.generic has no model op: it reads operand 0 dim 0 at d0 + d1 (a model op reads each dim at one loop)}}
  %y = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
       ins(%x, %w : tensor<10xf32>, tensor<3xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @uninitialized(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  // expected-error @+1 {{linalg.generic reads its init, an uninitialized tensor.empty: nothing to import}}
  %y = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @pad(%a: tensor<8xf32>, %v: f32) -> tensor<10xf32> {
  // expected-error @+1 {{tensor.pad by a value that is not a float constant: no model op expresses it}}
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<8xf32> to tensor<10xf32>
  return %p : tensor<10xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @insert_corner(%a: tensor<2x2xf32>, %d: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{tensor.insert_slice into 2 dims of its destination: model.concat joins along one}}
  %r = tensor.insert_slice %a into %d[1, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @gather(%a: tensor<8xf32>) -> tensor<10xf32> {
  %i = arith.constant dense<1> : tensor<10x1xindex>
  // expected-error @+1 {{tensor.gather is still read after import-shard raised the linalg computation: no model op expresses it}}
  %g = tensor.gather %a[%i] gather_dims([0]) unique : (tensor<8xf32>, tensor<10x1xindex>) -> tensor<10xf32>
  return %g : tensor<10xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @get_sharding(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %as = shard.shard %a to %s : tensor<8xf32>
  %g = shard.get_sharding %as : tensor<8xf32> -> !shard.sharding
  // expected-error @+1 {{shard.shard's sharding is not a shard.sharding op: nothing to import}}
  %bs = shard.shard %b to %g : tensor<8xf32>
  return %bs : tensor<8xf32>
}

// -----

// expected-error @+1 {{shard.grid @g has an axis of size 0: a tp mesh's sizes are positive}}
shard.grid @g(shape = 2x0)

// -----

shard.grid @g(shape = 2)
func.func @in_loop(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %x) -> tensor<4x8xf32> {
    %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
    // expected-error @+1 {{shard.shard inside scf.for: import-shard imports annotations in the function's body only}}
    %b = shard.shard %a to %s : tensor<4x8xf32>
    scf.yield %b : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{shard.shard of 'tensor<?x8xf32>': a tp dtensor's global shape is static}}
  %a = shard.shard %x to %s : tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}

// -----

// An upstream op on tensors cannot take the dtensor an annotation makes.
shard.grid @g(shape = 2)
func.func @arith_user(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<4x8xf32>
  // expected-error @+1 {{arith.addf takes operand 0, which shard.shard annotated: import-shard hands annotated values to tp's model ops only}}
  %c = arith.addf %a, %a : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

module {
  module {
    // expected-error @+1 {{shard.grid in a nested module: import-shard imports the top module's grids and functions}}
    shard.grid @g(shape = 2)
    func.func @nested(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
      %a = shard.shard %x to %s : tensor<4x8xf32>
      return %a : tensor<4x8xf32>
    }
  }
}

// -----

// Two grids of the same shape in one function: tp-shard-pipeline read every
// placement on the first and moved the result's annotation from @b to @a.
shard.grid @a(shape = 2)
shard.grid @b(shape = 2)
func.func @two_grids(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> (tensor<8x16xf32>, tensor<16x32xf32>) {
  // expected-note @+1 {{the first annotation on @a}}
  %rep = shard.sharding @a split_axes = [[]] : !shard.sharding
  // expected-error @+1 {{shard.sharding names grid @b but @two_grids is annotated on grid @a too: tp partitions a function over one mesh}}
  %col = shard.sharding @b split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %rep : tensor<8x16xf32>
  %ws = shard.shard %w to %col : tensor<16x32xf32>
  return %xs, %ws : tensor<8x16xf32>, tensor<16x32xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @index(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{linalg.generic has no model op: its body uses linalg.index (model.generic bodies compute with arith and math ops)}}
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
       ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
