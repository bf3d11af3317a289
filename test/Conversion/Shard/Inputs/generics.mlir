// Generics no model op expresses, kept as model.generic by import-shard:
// 1 + 0.05 * sin(x) (x sharded on its columns), the product of each row (a mulf
// reduction: the columns are gathered first), a contraction with a
// transposed lhs whose k both operands shard (a sum: Partial, one
// all_reduce), and the row products added along a non-trailing dim.
// reference.py's `generics` computes the same in float64.
shard.grid @g(shape = 4)
func.func @generics(%x: tensor<8x32xf32>, %a: tensor<32x8xf32>, %w: tensor<32x8xf32>) -> tensor<8x8xf32> {
  %cols = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %cols : tensor<8x32xf32>
  %as = shard.shard %a to %rows : tensor<32x8xf32>
  %ws = shard.shard %w to %rows : tensor<32x8xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %sn = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
       ins(%xs : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.sin %v : f32
    %k = arith.constant 0.05 : f32
    %one = arith.constant 1.0 : f32
    %m = arith.mulf %r, %k : f32
    %s1 = arith.addf %m, %one : f32
    linalg.yield %s1 : f32
  } -> tensor<8x32xf32>
  %one = arith.constant 1.0 : f32
  %pe = tensor.empty() : tensor<8xf32>
  %pf = linalg.fill ins(%one : f32) outs(%pe : tensor<8xf32>) -> tensor<8xf32>
  %prod = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
       ins(%sn : tensor<8x32xf32>) outs(%pf : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.mulf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %te = tensor.empty() : tensor<8x8xf32>
  %tf = linalg.fill ins(%zero : f32) outs(%te : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%as, %ws : tensor<32x8xf32>, tensor<32x8xf32>) outs(%tf : tensor<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %oe = tensor.empty() : tensor<8x8xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
       ins(%t, %prod : tensor<8x8xf32>, tensor<8xf32>) outs(%oe : tensor<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %out : tensor<8x8xf32>
}
