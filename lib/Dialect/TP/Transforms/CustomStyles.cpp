//===- CustomStyles.cpp - the registry of user-defined styles ---*- C++ -*-===//
//
// Name -> CustomStyle, filled by embedders at start-up.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::tp;

static llvm::StringMap<CustomStyle> &registry() {
  static llvm::StringMap<CustomStyle> styles;
  return styles;
}

void mlir::tp::registerParallelStyle(StringRef name, CustomStyle style) {
  registry()[name] = std::move(style);
}

const CustomStyle *mlir::tp::lookupParallelStyle(StringRef name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}
