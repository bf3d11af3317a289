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

/// `tp.result_types` (set by tp-partition, read by runtimes to reassemble
/// results): an array of one tensor or dtensor type per function result.
LogicalResult TPDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() != "tp.result_types")
    return success();
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return op->emitOpError("'tp.result_types' belongs on a function");
  auto types = dyn_cast<ArrayAttr>(attr.getValue());
  if (!types)
    return op->emitOpError("'tp.result_types' must be an array of types");
  if (types.size() != fn.getNumResults())
    return op->emitOpError() << "'tp.result_types' has " << types.size()
                             << " types but the function has "
                             << fn.getNumResults() << " results";
  for (auto [i, t] : llvm::enumerate(types)) {
    auto type = dyn_cast<TypeAttr>(t);
    if (!type || !isTensorLike(type.getValue()))
      return op->emitOpError() << "'tp.result_types' entry " << i
                               << " must be a ranked tensor or dtensor type, "
                                  "got "
                               << t;
  }
  return success();
}
