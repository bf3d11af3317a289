// RUN: tp-opt %s -split-input-file -verify-diagnostics

// model.generic's verifier: maps, iterators, the init and the body.

func.func @map_count(%x: tensor<4xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'model.generic' op has 1 indexing maps for 2 operands}}
  %r = model.generic %x, %i {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32, %o: f32):
    model.generic_yield %a : f32
  }
  return %r : tensor<4xf32>
}

// -----

func.func @iterator(%x: tensor<4xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'model.generic' op iterator type 'window' is neither "parallel" nor "reduction"}}
  %r = model.generic %x, %i {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["window"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32, %o: f32):
    model.generic_yield %a : f32
  }
  return %r : tensor<4xf32>
}

// -----

func.func @compound_index(%x: tensor<6xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'model.generic' op operand 0 dim 0 is indexed by d0 + d1: model.generic reads a dim at one loop, or at 0 when its size is 1}}
  %r = model.generic %x, %i {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]} : (tensor<6xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    model.generic_yield %s : f32
  }
  return %r : tensor<4xf32>
}

// -----

func.func @init_reduces(%x: tensor<4x8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'model.generic' op the init's indexing map affine_map<(d0, d1) -> (d0, d1)> must name parallel loops, each once}}
  %r = model.generic %x, %i {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "reduction"]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: f32, %o: f32):
    model.generic_yield %a : f32
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @block_args(%x: tensor<4xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'model.generic' op body argument 0 is 'f16', operand 0's elements are 'f32'}}
  %r = model.generic %x, %i {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: f16, %o: f32):
    %e = arith.extf %a : f16 to f32
    model.generic_yield %e : f32
  }
  return %r : tensor<4xf32>
}

// -----

func.func @result_type(%x: tensor<4xf32>, %i: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @below {{'model.generic' op result type 'tensor<4xbf16>' differs from the init's 'tensor<4xf32>'}}
  %r = model.generic %x, %i {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16> {
  ^bb0(%a: f32, %o: f32):
    model.generic_yield %a : f32
  }
  return %r : tensor<4xbf16>
}
