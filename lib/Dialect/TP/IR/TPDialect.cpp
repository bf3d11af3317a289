//===- TPDialect.cpp - tp dialect registration ------------------*- C++ -*-===//
//
// Registers the tp dialect's attributes, types and operations.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPDialect.h"
#include "tp/Dialect/TP/IR/TPOps.h"

using namespace mlir;
using namespace mlir::tp;

#include "tp/Dialect/TP/IR/TPDialect.cpp.inc"

void TPDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tp/Dialect/TP/IR/TPOps.cpp.inc"
      >();
}
