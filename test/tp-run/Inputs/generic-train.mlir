// A loss through model.generic (the gradient test's model,
// unittests/Executor/GradientTest.cpp kGeneric): generic-ops.test trains
// it under a Colwise fc on 2 ranks, equal to one rank.
func.func @forward(%x: tensor<3x4xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<5x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %scale = model.param "scale" : tensor<1x5xf32>
  %e0 = model.full 0.0 : tensor<3x5xf32>
  %e = model.generic %h, %scale, %e0 {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<3x5xf32>, tensor<1x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %t = math.tanh %a : f32
    %m = arith.mulf %t, %s : f32
    %ex = math.exp %m : f32
    %lg = math.log %ex : f32
    %one = arith.constant 1.0 : f32
    %pos = arith.addf %ex, %one : f32
    %sq = math.sqrt %pos : f32
    %d = arith.divf %lg, %sq : f32
    %sn = math.sin %a : f32
    %cs = math.cos %s : f32
    %at = math.atan %m : f32
    %mx = arith.maximumf %sn, %cs : f32
    %gt = arith.cmpf ogt, %a, %s : f32
    %sel = arith.select %gt, %at, %mx : f32
    %p = math.powf %pos, %s : f32
    %r0 = arith.addf %d, %sel : f32
    %r = arith.subf %r0, %p : f32
    model.generic_yield %r : f32
  }
  %b = model.param "b" : tensor<3xf32>
  %init = model.mul %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %sum = model.generic %e, %h, %init {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %x2 = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %x2 : f32
    model.generic_yield %r : f32
  }
  %t0 = model.full 0.0 : tensor<5x3xf32>
  %tr = model.generic %e, %t0 {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<3x5xf32>, tensor<5x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%a: f32, %out: f32):
    model.generic_yield %a : f32
  }
  %sq = model.mul %tr, %tr : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %l1 = model.mean %sq : (tensor<5x3xf32>) -> tensor<f32>
  %s2 = model.mul %sum, %sum : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l2 = model.mean %s2 : (tensor<3xf32>) -> tensor<f32>
  %l = model.add %l1, %l2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
