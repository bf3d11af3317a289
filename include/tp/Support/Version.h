//===- Version.h - tp's version ---------------------------------*- C++ -*-===//
//
// The project's version (CMake's project(VERSION)), for --version and for
// embedders that check what they link.
//
//===----------------------------------------------------------------------===//

#ifndef TP_SUPPORT_VERSION_H
#define TP_SUPPORT_VERSION_H

namespace mlir::tp {

/// tp's version, "MAJOR.MINOR.PATCH".
const char *getVersion();

} // namespace mlir::tp

#endif // TP_SUPPORT_VERSION_H
