// A baseline input of the upstream-shard study at 1/64 of its size (x 2x8x16, hidden 64), small enough for reference.py.
shard.grid @tp(shape = 4)
#xmap  = affine_map<(b, s, k, n) -> (b, s, k)>
#wmap  = affine_map<(b, s, k, n) -> (k, n)>
#omap  = affine_map<(b, s, k, n) -> (b, s, n)>
func.func @sp(%x: tensor<2x8x16xf32>, %w1: tensor<16x64xf32>,
               %w2: tensor<64x16xf32>) -> tensor<2x8x16xf32> {
  %seq = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %rep = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %col = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %row = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %xs  = shard.shard %x to %seq : tensor<2x8x16xf32>
  %xr  = shard.shard %xs to %rep annotate_for_users : tensor<2x8x16xf32>
  %w1s = shard.shard %w1 to %col : tensor<16x64xf32>
  %w2s = shard.shard %w2 to %row : tensor<64x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x8x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %h = linalg.generic {indexing_maps = [#xmap, #wmap, #omap],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
       ins(%xr, %w1s : tensor<2x8x16xf32>, tensor<16x64xf32>)
       outs(%f1 : tensor<2x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x64xf32>
  %hcol = shard.sharding @tp split_axes = [[], [], [0]] : !shard.sharding
  %hs = shard.shard %h to %hcol : tensor<2x8x64xf32>
  %hu = shard.shard %hs to %hcol annotate_for_users : tensor<2x8x64xf32>
  %w2u = shard.shard %w2s to %row annotate_for_users : tensor<64x16xf32>
  %e3 = tensor.empty() : tensor<2x8x16xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %y = linalg.generic {indexing_maps = [#xmap, #wmap, #omap],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
       ins(%hu, %w2u : tensor<2x8x64xf32>, tensor<64x16xf32>)
       outs(%f3 : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  %yr = shard.shard %y to %rep : tensor<2x8x16xf32>
  %ys = shard.shard %yr to %seq annotate_for_users : tensor<2x8x16xf32>
  return %ys : tensor<2x8x16xf32>
}
