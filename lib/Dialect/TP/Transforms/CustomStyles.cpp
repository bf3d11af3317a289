//===- CustomStyles.cpp - the registry of user-defined styles ---*- C++ -*-===//
//
// Name -> CustomStyle, filled by embedders at start-up or by style plugins
// the tools load.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/CustomStyles.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/DynamicLibrary.h"

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

llvm::Error mlir::tp::loadStylePlugin(StringRef path) {
  std::string error;
  llvm::sys::DynamicLibrary library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(path.str().c_str(),
                                                     &error);
  if (!library.isValid())
    return llvm::createStringError("cannot load style plugin '" + path +
                                   "': " + error);
  void *entry = library.getAddressOfSymbol(kStylePluginEntryPoint);
  if (!entry)
    return llvm::createStringError(
        "style plugin '" + path + "' has no " + kStylePluginEntryPoint +
        " (declare it extern \"C\" void " + kStylePluginEntryPoint + "())");
  reinterpret_cast<void (*)()>(entry)();
  return llvm::Error::success();
}
