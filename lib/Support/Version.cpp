//===- Version.cpp - tp's version -----------------------------------------===//

#include "tp/Support/Version.h"

#ifndef TP_VERSION
#error "TP_VERSION is set by CMake (the project's version)"
#endif

const char *mlir::tp::getVersion() { return TP_VERSION; }
