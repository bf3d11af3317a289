//===- InputLimits.cpp - bounded reading of user input files ----*- C++ -*-===//
//
// Reading with a size cap and checked output streams (see InputLimits.h).
//
//===----------------------------------------------------------------------===//

#include "tp/Support/InputLimits.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"

#include <string>

using namespace llvm;

/// `bytes` as "16 MiB" or "1 GiB" when it is a whole number of them.
static std::string bytesText(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

Expected<std::unique_ptr<MemoryBuffer>>
mlir::tp::readFileBounded(StringRef path, uint64_t maxBytes) {
  bool isStdin = path == "-";
  sys::fs::file_t file = sys::fs::getStdinHandle();
  if (!isStdin) {
    Expected<sys::fs::file_t> opened = sys::fs::openNativeFileForRead(path);
    if (!opened)
      return opened.takeError();
    file = *opened;
  }
  scope_exit closeFile([&] {
    if (!isStdin)
      sys::fs::closeFile(file);
  });
  auto tooLarge = [&](const Twine &size) {
    return createStringError(inconvertibleErrorCode(),
                             size + " is more than the limit of " +
                                 bytesText(maxBytes));
  };
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(file, status))
    return errorCodeToError(ec);
  if (status.type() == sys::fs::file_type::directory_file)
    return createStringError(inconvertibleErrorCode(), "is a directory");
  if (status.type() == sys::fs::file_type::regular_file &&
      status.getSize() > maxBytes)
    return tooLarge("its size of " + Twine(status.getSize()) + " bytes");

  // A regular file is read at the size it has now (memory-mapped where LLVM
  // finds that cheaper): no copy, and no more than the limit checked above.
  if (status.type() == sys::fs::file_type::regular_file) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
        MemoryBuffer::getOpenFile(file, path, status.getSize());
    if (!buffer)
      return errorCodeToError(buffer.getError());
    return std::move(*buffer);
  }

  // Devices and pipes have no size: read at most one byte past the limit.
  SmallVector<char, 0> data;
  constexpr size_t chunk = size_t(1) << 16;
  while (true) {
    size_t old = data.size();
    data.resize_for_overwrite(old + chunk);
    Expected<size_t> read = sys::fs::readNativeFile(
        file, MutableArrayRef<char>(data.data() + old, chunk));
    if (!read)
      return read.takeError();
    data.truncate(old + *read);
    if (*read == 0)
      break;
    if (data.size() > maxBytes)
      return tooLarge("its content");
  }
  return MemoryBuffer::getMemBufferCopy(StringRef(data.data(), data.size()),
                                        isStdin ? "<stdin>" : path);
}

Error mlir::tp::finishOutput(raw_fd_ostream &os, StringRef name) {
  os.flush();
  if (!os.has_error())
    return Error::success();
  std::error_code ec = os.error();
  os.clear_error();
  return createStringError(ec, "cannot write '" + name + "': " + ec.message());
}
