//===- Passes.td - conversions out of tp's dialects --------*- tablegen -*-===//
//
// Passes that export tp programs to upstream MLIR dialects.
//
//===----------------------------------------------------------------------===//

#ifndef TP_CONVERSION_MODELTOLINALG_PASSES_TD
#define TP_CONVERSION_MODELTOLINALG_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertModelToLinalgPass
    : Pass<"convert-model-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Rewrite every model op to linalg, tensor, arith and math";
  let description = [{
    Exports the `model` dialect to upstream MLIR on tensors, with the
    numerics of tp's CPU kernels: gelu in the erf form, layer_norm's mean
    and biased variance and rms_norm's mean square accumulated in f64,
    softmax and attention max-subtracted with their exponential sums in
    f64, attention scaled by `1/sqrt(head_dim)` after the dot product,
    causal and grouped-query, rotary on interleaved pairs with f32 angles,
    cross entropy's row log-sum-exp and mean in f64, embedding as a gather.

    Composite `model.module` ops are inlined. Each function's
    `model.param "fqn"` ops become new leading function arguments, one per
    FQN in order of first use, each with the argument attribute
    `tp.param = "fqn"` (and `tp.frozen` where the parameter is frozen);
    the function's own inputs follow, their `model.name` renamed
    `tp.input`. A function with callers cannot change its signature and is
    an error. Afterwards no `model` op or `model.*` attribute is left: a
    one-rank program parses and verifies in a plain `mlir-opt`. tp ops of
    a partitioned program (collectives, `tp.chunk`, ...) are left as they
    are.

    The training step's backward ops and optimizer updates convert as
    well. The state tp's executor keeps between steps becomes explicit:
    after the inputs, one argument `{tp.state = "fqn.exp_avg"}` (AdamW's
    `exp_avg`, `exp_avg_sq`; SGD's `momentum_buffer`) per state tensor of
    each update in program order, then the step number `tensor<i64>
    {tp.step}` (from 1); the updated state is returned after the function's
    results, with the same `tp.state` names. A dropout in training (and
    its gradient) draws the runtime's mask from the step and the run's seed,
    an argument `tensor<i64> {tp.seed}` after the step. An f16/bf16 op is
    computed as tp's executor does: operands widened to f32, the kernel in
    f32, the result rounded once. An op the pass cannot convert (a
    `!tp.dtensor` operand, an element type other than f32/f16/bf16 for
    values or i32/i64 for ids, a 16-bit optimizer update) is an error naming
    the op.

    ```mlir
    // before
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    // after: %w is the argument {tp.param = "net1.weight"}
    %e = tensor.empty() : tensor<4x16xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %y = linalg.generic ... ins(%x, %w ...) outs(%z ...)  // sum_i x[r, i] * w[o, i]
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // TP_CONVERSION_MODELTOLINALG_PASSES_TD
