//===- CAPISupport.h - error messages of tp's C API -------------*- C++ -*-===//
//
// How a C API call hands its failure to the caller: as a malloc'd message
// (tpFreeString frees it), built from an exception's text or from the MLIR
// diagnostics the call emitted.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_CAPI_CAPISUPPORT_H
#define TP_LIB_CAPI_CAPISUPPORT_H

#include "mlir-c/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace mlir::tp::capi {

/// A malloc'd, NUL-terminated copy of \p text (null if out of memory).
inline char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

/// Sets *\p errorMessage (when the caller asked for it) to \p text.
inline void setError(char **errorMessage, const std::string &text) {
  if (errorMessage)
    *errorMessage = copyString(text);
}

/// Collects the error diagnostics (with their notes) emitted in
/// \p context while it lives, instead of passing them to the context's
/// handlers: they become the message of the call that failed. Warnings and
/// remarks still go to those handlers.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          append(diag, "error");
          for (Diagnostic &note : diag.getNotes())
            append(note, "note");
          return success();
        }) {}

  /// Sets *\p errorMessage to the collected errors, or to \p fallback when
  /// none was emitted, and returns failure.
  MlirLogicalResult fail(char **errorMessage, const std::string &fallback) {
    setError(errorMessage, text.empty() ? fallback : text);
    return mlirLogicalResultFailure();
  }

private:
  void append(Diagnostic &diag, const char *severity) {
    llvm::raw_string_ostream os(text);
    if (!text.empty())
      os << "\n";
    os << diag.getLocation() << ": " << severity << ": " << diag.str();
  }

  std::string text;
  ScopedDiagnosticHandler handler;
};

} // namespace mlir::tp::capi

#endif // TP_LIB_CAPI_CAPISUPPORT_H
