//===- Passes.h - conversions out of tp's dialects --------------*- C++ -*-===//
//
// The passes that export tp programs to upstream MLIR dialects, and the
// functions behind them that other compilers can call directly.
//
//===----------------------------------------------------------------------===//

#ifndef TP_CONVERSION_MODELTOLINALG_PASSES_H
#define TP_CONVERSION_MODELTOLINALG_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tp {

#define GEN_PASS_DECL
#include "tp/Conversion/ModelToLinalg/Passes.h.inc"

/// The argument attribute naming the parameter (its FQN) a converted
/// function's argument carries.
inline constexpr llvm::StringLiteral kParamArgAttr = "tp.param";
/// The unit argument attribute of a frozen parameter's argument.
inline constexpr llvm::StringLiteral kFrozenArgAttr = "tp.frozen";
/// The argument attribute that keeps an input's `model.name`.
inline constexpr llvm::StringLiteral kInputArgAttr = "tp.input";

/// The argument (and result) attribute naming an optimizer state tensor
/// (`"fqn.exp_avg"`, `"fqn.exp_avg_sq"`, `"fqn.momentum_buffer"`).
inline constexpr llvm::StringLiteral kStateArgAttr = "tp.state";
/// The unit attribute of the step-number argument (rank-0 i64, from 1).
inline constexpr llvm::StringLiteral kStepArgAttr = "tp.step";
/// The unit attribute of the dropout seed argument (rank-0 i64, the bits of
/// tp-run's --seed).
inline constexpr llvm::StringLiteral kSeedArgAttr = "tp.seed";

/// Rewrites every model op of `module` to linalg, tensor, arith and math on
/// tensors (see the convert-model-to-linalg pass); emits an error naming the
/// op and fails on the first op it cannot convert.
LogicalResult convertModelToLinalg(ModuleOp module);

/// The conversion patterns of the model ops that need nothing of a training
/// step's arguments: the forward ops, the backward ops and clipping (one
/// OpConversionPattern each), and the widening of 16-bit ops to f32
/// kernels. For an embedder's own DialectConversion on a per-rank model
/// whose parameters are already values; dropout in training and the
/// optimizer updates read the step's seed and state, so only
/// convertModelToLinalg converts them.
void populateModelToLinalgPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "tp/Conversion/ModelToLinalg/Passes.h.inc"

} // namespace mlir::tp

#endif // TP_CONVERSION_MODELTOLINALG_PASSES_H
