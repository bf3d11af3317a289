// gen_mlp.py -n 2 --variant dptp --batch 4 --seq 8 --hidden 16 --tp 2 --dp 2 (the upstream-shard study's generator): batch on grid axis 0, Megatron on axis 1.
shard.grid @grid(shape = 2x2)
#xmap = affine_map<(b, s, k, n) -> (b, s, k)>
#wmap = affine_map<(b, s, k, n) -> (k, n)>
#omap = affine_map<(b, s, k, n) -> (b, s, n)>
#id3 = affine_map<(b, s, n) -> (b, s, n)>

func.func @mlp_2(%x: tensor<4x8x16xf32>, %w1_0: tensor<16x64xf32>, %w2_0: tensor<64x16xf32>, %w1_1: tensor<16x64xf32>, %w2_1: tensor<64x16xf32>) -> tensor<4x8x16xf32> {
  %s_act = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %s_col = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %s_row = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %s_hid = shard.sharding @grid split_axes = [[0], [], [1]] : !shard.sharding
  %s_rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %zero = arith.constant 0.0 : f32
  %x_in = shard.shard %x to %s_act : tensor<4x8x16xf32>
  // ---- layer 0
  %w1s_0 = shard.shard %w1_0 to %s_col : tensor<16x64xf32>
  %w2s_0 = shard.shard %w2_0 to %s_row : tensor<64x16xf32>
  %e1_0 = tensor.empty() : tensor<4x8x64xf32>
  %f1_0 = linalg.fill ins(%zero : f32) outs(%e1_0 : tensor<4x8x64xf32>) -> tensor<4x8x64xf32>
  %h_0 = linalg.generic {indexing_maps = [#xmap, #wmap, #omap], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%x_in, %w1s_0 : tensor<4x8x16xf32>, tensor<16x64xf32>) outs(%f1_0 : tensor<4x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x64xf32>
  %e2_0 = tensor.empty() : tensor<4x8x64xf32>
  %g_0 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h_0 : tensor<4x8x64xf32>) outs(%e2_0 : tensor<4x8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
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
  } -> tensor<4x8x64xf32>
  %e3_0 = tensor.empty() : tensor<4x8x16xf32>
  %f3_0 = linalg.fill ins(%zero : f32) outs(%e3_0 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %y_0 = linalg.generic {indexing_maps = [#xmap, #wmap, #omap], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%g_0, %w2s_0 : tensor<4x8x64xf32>, tensor<64x16xf32>) outs(%f3_0 : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x16xf32>
  %ys_0 = shard.shard %y_0 to %s_act : tensor<4x8x16xf32>
  // ---- layer 1
  %w1s_1 = shard.shard %w1_1 to %s_col : tensor<16x64xf32>
  %w2s_1 = shard.shard %w2_1 to %s_row : tensor<64x16xf32>
  %e1_1 = tensor.empty() : tensor<4x8x64xf32>
  %f1_1 = linalg.fill ins(%zero : f32) outs(%e1_1 : tensor<4x8x64xf32>) -> tensor<4x8x64xf32>
  %h_1 = linalg.generic {indexing_maps = [#xmap, #wmap, #omap], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%ys_0, %w1s_1 : tensor<4x8x16xf32>, tensor<16x64xf32>) outs(%f1_1 : tensor<4x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x64xf32>
  %e2_1 = tensor.empty() : tensor<4x8x64xf32>
  %g_1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h_1 : tensor<4x8x64xf32>) outs(%e2_1 : tensor<4x8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
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
  } -> tensor<4x8x64xf32>
  %e3_1 = tensor.empty() : tensor<4x8x16xf32>
  %f3_1 = linalg.fill ins(%zero : f32) outs(%e3_1 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %y_1 = linalg.generic {indexing_maps = [#xmap, #wmap, #omap], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%g_1, %w2s_1 : tensor<4x8x64xf32>, tensor<64x16xf32>) outs(%f3_1 : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x16xf32>
  %ys_1 = shard.shard %y_1 to %s_act : tensor<4x8x16xf32>
  return %ys_1 : tensor<4x8x16xf32>
}
