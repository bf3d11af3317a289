//===- Safetensors.h - safetensors reader and writer ------------*- C++ -*-===//
//
// Parameter files in the safetensors format: a writer, and an mmap-based
// reader that loads whole tensors or just one rank's slice of them.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_SAFETENSORS_H
#define TP_RUNTIME_SAFETENSORS_H

#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tp {
namespace runtime {

/// Writes \p tensors to \p path as safetensors (each in its dtype), in the
/// given order, with optional string \p metadata in "__metadata__". Names must
/// be unique, non-empty and not "__metadata__". Throws std::invalid_argument on
/// bad names and std::runtime_error naming the file if writing fails.
void writeSafetensors(
    const std::string &path,
    const std::vector<std::pair<std::string, const Tensor *>> &tensors,
    const std::map<std::string, std::string> &metadata = {});

/// A read-only, memory-mapped safetensors file.
///
/// open() validates the whole header: a header length within the file, valid
/// JSON, a known dtype, a shape and in-bounds data_offsets whose length equals
/// the element count times the element size, and no two tensors sharing
/// bytes. Every failure throws std::runtime_error naming the file (and the
/// tensor where there is one). F32, BF16, F16, I64 and I32 tensors can be
/// read, exactly, into tensors of that dtype (I64 token ids as PyTorch's
/// LongTensor writes them); others can be listed and inspected. The file must
/// not be truncated while open.
class SafetensorsFile {
public:
  /// Maps and validates \p path.
  static SafetensorsFile open(const std::string &path);

  SafetensorsFile(SafetensorsFile &&other) noexcept;
  SafetensorsFile &operator=(SafetensorsFile &&other) noexcept;
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;
  ~SafetensorsFile();

  /// The path given to open().
  const std::string &path() const { return path_; }
  /// Tensor names in header order.
  const std::vector<std::string> &names() const { return names_; }
  /// Whether a tensor named \p name exists.
  bool contains(const std::string &name) const;
  /// The shape of tensor \p name.
  const std::vector<int64_t> &shape(const std::string &name) const;
  /// The dtype string of tensor \p name as written in the file ("F32").
  const std::string &dtype(const std::string &name) const;
  /// The "__metadata__" entries.
  const std::map<std::string, std::string> &metadata() const {
    return metadata_;
  }

  /// Copies tensor \p name out of the file.
  Tensor read(const std::string &name) const;

  /// Copies `name[..., offset:offset+size, ...]` along \p dim, touching only
  /// the bytes of that slice.
  Tensor readSlice(const std::string &name, int64_t dim, int64_t offset,
                   int64_t size) const;

  /// Copies the box of tensor \p name that starts at \p from (one index
  /// per dim) and spans \p sizes into \p dst, of the tensor's dtype, at
  /// \p at, touching only the bytes of that box. Throws naming the file and
  /// tensor when the box is outside the tensor or \p dst, or the dtypes
  /// differ.
  void copyBox(const std::string &name, const std::vector<int64_t> &from,
               const std::vector<int64_t> &sizes, Tensor &dst,
               const std::vector<int64_t> &at) const;

private:
  struct Entry {
    std::string dtype;
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0; ///< Relative to the start of the data.
  };

  SafetensorsFile() = default;
  void unmap();
  const Entry &entry(const std::string &name) const;
  /// The entry of \p name, if its dtype is readable (stored in \p dtype).
  const Entry &readableEntry(const std::string &name, DType &dtype) const;

  std::string path_;
  void *map_ = nullptr;
  size_t mapSize_ = 0;
  const unsigned char *data_ = nullptr;
  uint64_t dataSize_ = 0;
  std::vector<std::string> names_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::string> metadata_;
};

/// A model's weights: one safetensors file, or a sharded checkpoint as
/// Hugging Face writes it, an index ("model.safetensors.index.json") whose
/// "weight_map" names the file (relative to the index) of each tensor.
/// Every file is mapped and validated when it opens.
class WeightFiles {
public:
  /// Opens \p path: an index when its name ends in ".json", else one
  /// safetensors file. Throws std::runtime_error naming the index or the
  /// file and what is wrong.
  static WeightFiles open(const std::string &path);

  /// The path open() was given.
  const std::string &path() const { return path_; }
  /// The file that holds tensor \p name: the single file, or the one the
  /// index maps it to (null when the index names none).
  const SafetensorsFile *fileOf(const std::string &name) const;

private:
  std::string path_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  /// An index's tensors, by name: their file in files_.
  std::map<std::string, size_t> weightMap_;
  bool indexed_ = false;
};

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_SAFETENSORS_H
