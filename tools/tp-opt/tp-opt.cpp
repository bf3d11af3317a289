//===- tp-opt.cpp - tp pass driver ------------------------------*- C++ -*-===//
//
// mlir-opt for tp: parses model and tp IR, runs tp passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "tp/InitAll.h"

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerInlinerPass();
  mlir::tp::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::tp::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tp: tensor-parallel plan lowering driver\n", registry));
}
