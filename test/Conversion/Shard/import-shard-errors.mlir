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
func.func @sin(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{element-wise linalg.generic: its body op 'math.sin' has no element-wise model op}}
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
       ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sin %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @transposed_lhs(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  // expected-error @+1 {{linalg.generic is not a matmul model.matmul expresses: the lhs map is not [..., m, k]}}
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%a, %b : tensor<16x8xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) {
  ^bb0(%x: f32, %w: f32, %c: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
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
func.func @pad(%a: tensor<8xf32>) -> tensor<10xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{tensor.pad is still read after import-shard raised the linalg computation: no model op expresses it}}
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<10xf32>
  return %p : tensor<10xf32>
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

shard.grid @g(shape = 4)
func.func @broadcast_only(%b: tensor<32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  // expected-error @+1 {{element-wise linalg.generic yields 'tensor<32xf32>', not its result type 'tensor<8x32xf32>': no model op broadcasts a value to a shape}}
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
       ins(%b : tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @product(%x: tensor<8x32xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-error @+1 {{linalg.generic is not a reduction a model op expresses: its body combines with 'arith.mulf', not addf or maximumf}}
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
       ins(%x : tensor<8x32xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.mulf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %p : tensor<8xf32>
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
