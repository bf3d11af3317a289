//===- InputLimits.h - bounded reading of user input files ------*- C++ -*-===//
//
// The files tp's tools take from users (model IR, tp-model configs, plan
// files) are read through these helpers, so that a file above its documented
// size limit, or an endless one (/dev/zero, a pipe that never closes), fails
// before it fills memory (tp/Support/JSON.h then bounds the nesting of the
// JSON ones); and a write error on an output stream becomes an error message
// instead of LLVM's fatal "IO failure on output stream".
//
//===----------------------------------------------------------------------===//

#ifndef TP_SUPPORT_INPUTLIMITS_H
#define TP_SUPPORT_INPUTLIMITS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>

namespace mlir::tp {

/// The largest JSON file (tp-model config, plan file) the tools read: 16 MiB.
inline constexpr uint64_t kMaxJSONFileBytes = uint64_t(16) << 20;
/// The largest model IR file tp-run and tp-opt read: 256 MiB (parameters
/// are not in the IR, so a model is far smaller).
inline constexpr uint64_t kMaxModelFileBytes = uint64_t(256) << 20;

/// Reads `path` ("-": stdin) whole, reading at most `maxBytes` + 1 bytes.
/// The error says why (the system's message, "is a directory", or that the
/// file holds more than `maxBytes` bytes); callers name the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFileBounded(llvm::StringRef path, uint64_t maxBytes);

/// Flushes `os` (an output file or stdout) and turns a write error into an
/// error naming `name` ("cannot write 'NAME': No space left on device"). The
/// stream's error is cleared, so that destroying it does not abort.
llvm::Error finishOutput(llvm::raw_fd_ostream &os, llvm::StringRef name);

} // namespace mlir::tp

#endif // TP_SUPPORT_INPUTLIMITS_H
