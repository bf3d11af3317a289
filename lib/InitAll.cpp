//===- InitAll.cpp - register every tp dialect and pass ---------*- C++ -*-===//
//
// The single registration entry point used by tp-opt, tp-run and embedders.
//
//===----------------------------------------------------------------------===//

#include "tp/InitAll.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tp/Conversion/ModelToLinalg/Passes.h"
#include "tp/Conversion/Shard/Passes.h"
#include "tp/Dialect/Model/IR/ModelOps.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/StyleDefinition.h"
#include "tp/Executor/Passes.h"

void mlir::tp::registerAllDialects(DialectRegistry &registry) {
  registry
      .insert<TPDialect, model::ModelDialect, func::FuncDialect,
              arith::ArithDialect, math::MathDialect, tensor::TensorDialect>();
  model::registerModelExternalModels(registry);
  registerParallelStyleModels(registry);
}

void mlir::tp::registerAllPasses() {
  registerTPPasses();
  registerTPShardConversions();
  registerTPModelToLinalgPasses();
  registerTPExecutorPasses();
  registerTPPipelines();
}
