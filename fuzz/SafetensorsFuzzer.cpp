//===- SafetensorsFuzzer.cpp - fuzz target: safetensors reader --*- C++ -*-===//
//
// tp-fuzz-safetensors: the input is a whole safetensors file. It is written
// to a scratch file (SafetensorsFile maps a path) and opened; every tensor
// is inspected, read whole and read in slices along each dim, valid and
// not. Errors must be std::runtime_error, never a crash. The runtime has no
// MLIR, and neither has this target. Seeds: fuzz/corpus/safetensors/.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tp/Runtime/Safetensors.h"

#include <cstdio>
#include <stdexcept>

#include <unistd.h>

using mlir::tp::runtime::SafetensorsFile;

/// One scratch file per process, in memory where /dev/shm exists; removed at
/// exit.
static const std::string &scratchPath() {
  static const std::string path = [] {
    const char *tmp = std::getenv("TMPDIR");
    std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                      : tmp                         ? tmp
                                                    : "/tmp";
    return dir + "/tp-fuzz-safetensors-" + std::to_string(getpid()) +
           ".safetensors";
  }();
  static const bool removeAtExit =
      std::atexit([] { std::remove(path.c_str()); }) == 0;
  (void)removeAtExit;
  return path;
}

/// Reads tensor `name` whole and in slices; each call may throw.
static void readTensor(const SafetensorsFile &file, const std::string &name) {
  try {
    (void)file.read(name);
  } catch (const std::runtime_error &) {
  }
  const std::vector<int64_t> &shape = file.shape(name);
  int64_t rank = static_cast<int64_t>(shape.size());
  for (int64_t dim = -1; dim <= rank; ++dim) {
    int64_t extent = dim >= 0 && dim < rank ? shape[dim] : 1;
    // The upper half, an empty slice at the end, and one past the end.
    for (auto [offset, size] :
         {std::pair<int64_t, int64_t>{extent / 2, extent - extent / 2},
          {extent, 0},
          {extent, 1}}) {
      try {
        (void)file.readSlice(name, dim, offset, size);
      } catch (const std::runtime_error &) {
      }
    }
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = scratchPath();
  {
    FILE *out = std::fopen(path.c_str(), "wb");
    if (!out || std::fwrite(data, 1, size, out) != size ||
        std::fclose(out) != 0) {
      std::perror(path.c_str());
      std::abort();
    }
  }
  try {
    SafetensorsFile file = SafetensorsFile::open(path);
    for (const std::string &name : file.names()) {
      if (!file.contains(name))
        std::abort();
      (void)file.dtype(name);
      readTensor(file, name);
    }
    (void)file.metadata();
    try {
      (void)file.shape("no such tensor");
    } catch (const std::runtime_error &) {
    }
  } catch (const std::runtime_error &) {
  }
  return 0;
}
