// A baseline input of the upstream-shard study at 1/64 of its size (x 2x8x16, hidden 64), small enough for reference.py.
shard.grid @tp(shape = 4)

#xmap  = affine_map<(b, s, k, n) -> (b, s, k)>
#wmap  = affine_map<(b, s, k, n) -> (k, n)>
#omap  = affine_map<(b, s, k, n) -> (b, s, n)>
#id3   = affine_map<(b, s, n) -> (b, s, n)>

func.func @mlp(%x: tensor<2x8x16xf32>, %w1: tensor<16x64xf32>,
               %w2: tensor<64x16xf32>) -> tensor<2x8x16xf32> {
  %rep = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %col = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %row = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %xs  = shard.shard %x to %rep : tensor<2x8x16xf32>
  %w1s = shard.shard %w1 to %col : tensor<16x64xf32>
  %w2s = shard.shard %w2 to %row : tensor<64x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x8x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %h = linalg.generic {indexing_maps = [#xmap, #wmap, #omap],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
       ins(%xs, %w1s : tensor<2x8x16xf32>, tensor<16x64xf32>)
       outs(%f1 : tensor<2x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x64xf32>
  %e2 = tensor.empty() : tensor<2x8x64xf32>
  %g = linalg.generic {indexing_maps = [#id3, #id3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
       ins(%h : tensor<2x8x64xf32>) outs(%e2 : tensor<2x8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    // gelu tanh approximation: 0.5*a*(1+tanh(0.79788456*(a+0.044715*a^3)))
    %c05 = arith.constant 0.5 : f32
    %c1 = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608 : f32
    %k1 = arith.constant 0.044715 : f32
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %k1, %a3 : f32
    %t1 = arith.addf %a, %t0 : f32
    %t2 = arith.mulf %k0, %t1 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %c1, %t3 : f32
    %t5 = arith.mulf %c05, %a : f32
    %r = arith.mulf %t5, %t4 : f32
    linalg.yield %r : f32
  } -> tensor<2x8x64xf32>
  %e3 = tensor.empty() : tensor<2x8x16xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %y = linalg.generic {indexing_maps = [#xmap, #wmap, #omap],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
       ins(%g, %w2s : tensor<2x8x64xf32>, tensor<64x16xf32>)
       outs(%f3 : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  %ys = shard.shard %y to %rep : tensor<2x8x16xf32>
  return %ys : tensor<2x8x16xf32>
}
