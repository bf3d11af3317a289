// model.generic, linalg.generic's semantics on model tensors, under a
// Colwise fc whose 8 output features the plan shards: an element-wise body
// with a broadcast row (the features pass their shard), a sum and a max
// over the sharded features into nonzero inits (Partial results, the init
// counted once), a transpose, and a reduction over the rows whose body is
// not one combination of the result (its loop is replicated). runner.test
// runs it through tp-run and upstream MLIR, test/tp-run/generic-ops.test
// under the plan on 2 and 4 ranks.
func.func @forward(%x: tensor<4x8xf32> {model.name = "x"}) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<8xf32>) {
  %w = model.param "fc.weight" : tensor<8x8xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %scale = model.param "scale" : tensor<1x8xf32>
  %e0 = model.full 0.0 : tensor<4x8xf32>
  %e = model.generic %h, %scale, %e0 {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %t = math.tanh %a : f32
    %m = arith.mulf %t, %s : f32
    %c = arith.constant 0.5 : f32
    %r = arith.addf %m, %c : f32
    model.generic_yield %r : f32
  }
  %init = model.full 0.25 : tensor<4xf32>
  %sum = model.generic %e, %init {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32, %acc: f32):
    %x2 = math.exp %a : f32
    %r = arith.addf %acc, %x2 : f32
    model.generic_yield %r : f32
  }
  %floor = model.full 1.5 : tensor<4xf32>
  %max = model.generic %h, %floor {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    model.generic_yield %r : f32
  }
  %both = model.add %sum, %max : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t0 = model.full 0.0 : tensor<8x4xf32>
  %tr = model.generic %e, %t0 {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: f32, %out: f32):
    model.generic_yield %a : f32
  }
  %c0 = model.full 1.0 : tensor<8xf32>
  %decay = model.generic %h, %c0 {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: f32, %acc: f32):
    %half = arith.constant 0.5 : f32
    %d = arith.mulf %acc, %half : f32
    %pos = arith.cmpf ogt, %a, %d : f32
    %r = arith.select %pos, %a, %d : f32
    model.generic_yield %r : f32
  }
  return %e, %both, %tr, %decay : tensor<4x8xf32>, tensor<4xf32>, tensor<8x4xf32>, tensor<8xf32>
}
