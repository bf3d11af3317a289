// RUN: tp-opt %s -split-input-file -tp-apply-plan -tp-lower-styles -tp-optimize -tp-lower-redistribute -verify-diagnostics

// Diagnostics for plans whose layouts cannot be applied: each names the
// style, the module and the offending layout, or (for a redistribution that
// cannot be lowered) the placements, the mesh axis and the module.

// A shard dim out of range for the tensor it applies to.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<output_layouts = #tp.shard<5>>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    // expected-error @+1 {{ColwiseParallel on 'net1': output_layouts Shard(5) is out of range for output 0 of rank 2}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// A Partial target of a Shard: Colwise's natural output is Shard(-1).
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.colwise<output_layouts = #tp.partial<sum>>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    // expected-error @+1 {{cannot redistribute Shard(1) to Partial() on mesh axis tp (in 'net1'): DTensor does not support Shard -> Partial; redistribute to Replicate() first}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// ... and a module input declared Shard(0) and desired Partial(max).
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["block"], styles = [#tp.prepare_module_input<input_layouts = [#tp.shard<0>], desired_input_layouts = [#tp.partial<max>]>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error @+1 {{cannot redistribute Shard(0) to Partial(max) on mesh axis tp (in 'block'): DTensor does not support Shard -> Partial; redistribute to Replicate() first}}
    %y = model.module "block"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }
}

// -----

// A Partial desired from Replicate is possible: no error.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.prepare_module_input<input_layouts = [#tp.replicate], desired_input_layouts = [#tp.partial<max>]>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// A negative shard dim below -rank.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.rowwise<input_layouts = #tp.shard<-3>>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    // expected-error @+1 {{RowwiseParallel on 'net1': input_layouts Shard(-3) is out of range for input 0 of rank 2}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// Rowwise may keep its natural Partial(sum) output: no error, no collective.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.rowwise<output_layouts = #tp.partial<sum>>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}
