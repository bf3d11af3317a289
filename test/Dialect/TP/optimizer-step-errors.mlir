// RUN: tp-opt %s -split-input-file -tp-optimizer-step -verify-diagnostics

// tp-optimizer-step refuses what it cannot update.

// expected-error @below {{tp-optimizer-step: @no_gradients returns no gradient (tp.grad_of); run tp-differentiate first}}
func.func @no_gradients(%x: tensor<2x4xf32>) -> tensor<f32> {
  %l = model.mean %x : (tensor<2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A tied parameter read in two placements would need two updates.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @two_placements(%g: tensor<4x4xf32>) -> (tensor<f32>, tensor<4x4xf32> {tp.grad_of = "w"}) {
  %w = model.param "w" : tensor<4x4xf32>
  %a = tp.distribute %w : tensor<4x4xf32> -> !tp.dtensor<4x4xf32, @mesh, [#tp.shard<0>]>
  // expected-error @below {{tp-optimizer-step: parameter 'w' is read as '!tp.dtensor<4x4xf32, @mesh, [#tp.shard<0>]>' and as '!tp.dtensor<4x4xf32, @mesh, [#tp.shard<1>]>'; the optimizer updates one placement of a parameter (place tied weights alike)}}
  %w2 = model.param "w" : tensor<4x4xf32>
  %b = tp.distribute %w2 : tensor<4x4xf32> -> !tp.dtensor<4x4xf32, @mesh, [#tp.shard<1>]>
  %l = model.mean %g : (tensor<4x4xf32>) -> tensor<f32>
  return %l, %g : tensor<f32>, tensor<4x4xf32>
}

// -----

// expected-error @below {{tp-optimizer-step: result 1 is the gradient of 'v', which @unknown_param does not read}}
func.func @unknown_param(%g: tensor<4x4xf32>) -> (tensor<f32>, tensor<4x4xf32> {tp.grad_of = "v"}) {
  %l = model.mean %g : (tensor<4x4xf32>) -> tensor<f32>
  return %l, %g : tensor<f32>, tensor<4x4xf32>
}
