//===- TPDialect.cpp - tp dialect registration ------------------*- C++ -*-===//
//
// Registers the tp dialect's attributes, types and operations, and verifies
// the tp attributes other dialects' ops carry.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

/// `tp.result_types` and `tp.arg_types` (set by tp-partition, read by
/// runtimes to reassemble results and to cut each rank's inputs): an array
/// of one tensor or dtensor type per function result or argument.
LogicalResult TPDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  bool results = attr.getName() == "tp.result_types";
  if (!results && attr.getName() != "tp.arg_types")
    return success();
  StringRef name = attr.getName().getValue();
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return op->emitOpError() << "'" << name << "' belongs on a function";
  auto types = dyn_cast<ArrayAttr>(attr.getValue());
  if (!types)
    return op->emitOpError() << "'" << name << "' must be an array of types";
  unsigned expected = results ? fn.getNumResults() : fn.getNumArguments();
  if (types.size() != expected)
    return op->emitOpError() << "'" << name << "' has " << types.size()
                             << " types but the function has " << expected
                             << (results ? " results" : " arguments");
  for (auto [i, t] : llvm::enumerate(types)) {
    auto type = dyn_cast<TypeAttr>(t);
    if (!type || !isTensorLike(type.getValue()))
      return op->emitOpError() << "'" << name << "' entry " << i
                               << " must be a ranked tensor or dtensor type, "
                                  "got "
                               << t;
  }
  return success();
}

/// `tp.local` (a unit attribute on a function result, set by
/// tp-lower-styles): PyTorch would return this distributed result as each
/// rank's local tensor (use_local_output) rather than as a DTensor.
LogicalResult TPDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  if (attr.getName() != "tp.local")
    return success();
  if (!isa<FunctionOpInterface>(op))
    return op->emitOpError("'tp.local' belongs on a function result");
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitOpError() << "'tp.local' on result " << resultIndex
                             << " must be a unit attribute";
  return success();
}
