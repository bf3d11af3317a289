// RUN: tp-opt %s --split-input-file --verify-diagnostics --convert-model-to-linalg

// Optimizer state, step and dropout seed become arguments and results: not
// of a function with callers.
// expected-error @+1 {{@adam has callers: its optimizer state, step and dropout seed cannot become arguments}}
func.func @adam(%p: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %u = model.adamw_update "w"(%p, %g) {lr = 1.000000e-03 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %u : tensor<4xf32>
}
func.func @adam_caller(%p: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %u = call @adam(%p, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %u : tensor<4xf32>
}

// -----

// The updated optimizer state is returned next to the results: not from a
// function of several blocks (a value of one block need not dominate the
// return of another).
// expected-error @+1 {{@adam_blocks has 3 blocks: the optimizer's updated state is returned from a function of one block only}}
func.func @adam_blocks(%p: tensor<4xf32>, %g: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  %u = model.adamw_update "w"(%p, %g) {lr = 1.000000e-03 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %u : tensor<4xf32>
^b:
  return %p : tensor<4xf32>
}

// -----

// expected-error @+1 {{@drop has callers: its optimizer state, step and dropout seed cannot become arguments}}
func.func @drop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = model.dropout "drop"(%x) {p = 1.000000e-01 : f64, train} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @drop_caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @drop(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Element types: f32, f16, bf16 values, i32/i64 ids.
func.func @f64(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  // expected-error @+1 {{'model.relu' op has operand #0 of element type 'f64': the export handles f32, f16 and bf16 values, i32/i64 ids and i1 masks}}
  %y = model.relu %x : (tensor<4x8xf64>) -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}

// -----

func.func @bf16_update(%p: tensor<4xbf16>, %g: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{'model.sgd_update' op updates a 16-bit parameter: the export handles f32 optimizer updates only}}
  %u = model.sgd_update "w"(%p, %g) {lr = 1.000000e-01 : f64} : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return %u : tensor<4xbf16>
}

// -----

// A distributed program must be partitioned first.
tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
func.func @dtensor(%x: !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> {
  // expected-error @+1 {{'model.relu' op has a distributed tensor operand #0 ('!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>'): convert-model-to-linalg exports per-rank programs; run tp-partition first}}
  %y = model.relu %x : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  return %y : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
}

// -----

// Parameters become arguments: a function with callers cannot take them.
// expected-error @+1 {{@layer reads parameters and has callers: its parameters cannot become arguments}}
func.func @layer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = model.param "w" : tensor<4xf32>
  %y = model.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @layer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @param_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = model.param "w" : tensor<4xf32>
  // expected-error @+1 {{'model.param' op reads parameter 'w' as 'tensor<1x4xf32>', another model.param reads it as 'tensor<4xf32>'}}
  %w2 = model.param "w" : tensor<1x4xf32>
  %y = model.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %z = model.mul %y, %w2 : (tensor<4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %r = model.reshape %z : (tensor<1x4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// 2^62 x 4 elements: the count a mean divides by wraps around to 0.
func.func @count_overflow(%x: tensor<4611686018427387904x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'model.mean' op has operand #0 of type 'tensor<4611686018427387904x4xf32>': its element count overflows int64}}
  %m = model.mean %x : (tensor<4611686018427387904x4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// A plan set but not lowered: the export would be the unparallelized model
// with tp.plan still attached (which upstream mlir-opt cannot parse).
// expected-error @+1 {{convert-model-to-linalg: the module holds a plan that is not lowered (no tp.spmd function); run tp-pipeline first}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["fc"], styles = [#tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @forward(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
    %w = model.param "fc.weight" : tensor<4x8xf32>
    %y = model.linear "fc"(%x, %w) : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}

// -----

// Styles attached (tp-apply-plan) but not lowered: refused the same way.
module {
  tp.mesh @mesh(shape = 2)
  func.func @forward(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
    %w = model.param "fc.weight" : tensor<4x8xf32>
    // expected-error @+1 {{convert-model-to-linalg: the module holds a plan that is not lowered (no tp.spmd function); run tp-pipeline first}}
    %y = model.linear "fc"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
}
