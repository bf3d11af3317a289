//===- Safetensors.cpp - safetensors reader and writer ----------*- C++ -*-===//
//
// Layout: 8-byte little-endian header length N, N bytes of JSON header, then
// the tensor bytes addressed by each entry's data_offsets.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Safetensors.h"

#include "tp/Support/JSON.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors I/O assumes a little-endian host"
#endif

using namespace mlir::tp::runtime;
namespace json = mlir::tp::json;

namespace {
std::runtime_error fileError(const std::string &path,
                             const std::string &message) {
  return std::runtime_error("safetensors file '" + path + "': " + message);
}

std::runtime_error tensorError(const std::string &path, const std::string &name,
                               const std::string &message) {
  return fileError(path, "tensor '" + name + "': " + message);
}

/// Element sizes of the dtypes the format defines; readableEntry says which
/// are read.
size_t dtypeBytes(const std::string &dtype) {
  static const std::pair<const char *, size_t> table[] = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
  for (const auto &entry : table)
    if (dtype == entry.first)
      return entry.second;
  return 0;
}

/// RAII file descriptor.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

void mlir::tp::runtime::writeSafetensors(
    const std::string &path,
    const std::vector<std::pair<std::string, const Tensor *>> &tensors,
    const std::map<std::string, std::string> &metadata) {
  std::set<std::string> seen;
  std::string header;
  json::Writer w(header);
  w.objectBegin();
  if (!metadata.empty()) {
    w.key("__metadata__");
    w.objectBegin();
    for (const auto &kv : metadata)
      w.member(kv.first, kv.second);
    w.objectEnd();
  }
  uint64_t offset = 0;
  for (const auto &named : tensors) {
    const std::string &name = named.first;
    if (name.empty() || name == "__metadata__" || !named.second)
      throw std::invalid_argument("writeSafetensors '" + path +
                                  "': invalid tensor name or null tensor '" +
                                  name + "'");
    if (!seen.insert(name).second)
      throw std::invalid_argument("writeSafetensors '" + path +
                                  "': duplicate tensor name '" + name + "'");
    const Tensor &t = *named.second;
    w.key(name);
    w.objectBegin();
    w.member("dtype", dtypeName(t.dtype()));
    w.key("shape");
    w.arrayBegin();
    for (int64_t i = 0; i < t.rank(); ++i)
      w.value(t.shape()[i]);
    w.arrayEnd();
    w.key("data_offsets");
    w.arrayBegin();
    w.value(offset);
    w.value(offset + t.bytes());
    w.arrayEnd();
    w.objectEnd();
    offset += t.bytes();
  }
  w.objectEnd();
  // Pad with spaces so that the data starts 8-byte aligned, as the reference
  // implementation does.
  header.append((8 - header.size() % 8) % 8, ' ');

  std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "wb"),
                                              &std::fclose);
  if (!file)
    throw fileError(path,
                    std::string("cannot create: ") + std::strerror(errno));
  errno = 0;
  unsigned char lengthBytes[8];
  uint64_t length = header.size();
  for (int i = 0; i < 8; ++i)
    lengthBytes[i] = static_cast<unsigned char>(length >> (8 * i));
  bool ok =
      std::fwrite(lengthBytes, 1, 8, file.get()) == 8 &&
      std::fwrite(header.data(), 1, header.size(), file.get()) == header.size();
  for (const auto &named : tensors) {
    size_t bytes = named.second->bytes();
    ok = ok && (bytes == 0 || std::fwrite(named.second->raw(), 1, bytes,
                                          file.get()) == bytes);
  }
  int writeErrno = ok ? 0 : errno;
  if (std::fclose(file.release()) != 0) {
    ok = false;
    writeErrno = writeErrno ? writeErrno : errno;
  }
  if (!ok)
    throw fileError(path, std::string("write failed: ") +
                              std::strerror(writeErrno ? writeErrno : EIO));
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

SafetensorsFile SafetensorsFile::open(const std::string &path) {
  SafetensorsFile f;
  f.path_ = path;
  Fd fd;
  fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd.fd < 0)
    throw fileError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw fileError(path, "not a regular file");
  uint64_t fileSize = static_cast<uint64_t>(st.st_size);
  if (fileSize < 8)
    throw fileError(path, "file of " + std::to_string(fileSize) +
                              " bytes is too short for a header length");
  void *map = ::mmap(nullptr, fileSize, PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (map == MAP_FAILED)
    throw fileError(path, std::string("mmap failed: ") + std::strerror(errno));
  f.map_ = map;
  f.mapSize_ = fileSize;
  const unsigned char *bytes = static_cast<const unsigned char *>(map);

  uint64_t headerSize = 0;
  for (int i = 0; i < 8; ++i)
    headerSize |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  if (headerSize > fileSize - 8)
    throw fileError(path, "header length " + std::to_string(headerSize) +
                              " exceeds the " + std::to_string(fileSize - 8) +
                              " bytes after it");
  f.data_ = bytes + 8 + headerSize;
  f.dataSize_ = fileSize - 8 - headerSize;

  json::ParseResult parsed = json::parse(
      std::string_view(reinterpret_cast<const char *>(bytes + 8), headerSize));
  if (!parsed)
    throw fileError(path,
                    std::string(parsed.error->kind == json::ParseError::TooDeep
                                    ? "header: invalid JSON (nesting too "
                                      "deep): "
                                    : "header: invalid JSON: ") +
                        parsed.error->message);
  const json::Object *header = parsed.value.getAsObject();
  if (!header)
    throw fileError(path, "header is not a JSON object");

  for (const auto &member : *header) {
    const std::string &name = member.first;
    const json::Value &v = member.second;
    if (name == "__metadata__") {
      const json::Object *metadata = v.getAsObject();
      if (!metadata)
        throw fileError(path, "__metadata__ is not an object");
      for (const auto &kv : *metadata) {
        const std::string *value = kv.second.getAsString();
        if (!value)
          throw fileError(path, "__metadata__ entry '" + kv.first +
                                    "' is not a string");
        f.metadata_[kv.first] = *value;
      }
      continue;
    }
    const json::Object *entry = v.getAsObject();
    if (!entry)
      throw tensorError(path, name, "entry is not an object");
    const std::string *dtype = entry->getString("dtype");
    const json::Array *shape = entry->getArray("shape");
    const json::Array *offsets = entry->getArray("data_offsets");
    if (!dtype)
      throw tensorError(path, name, "missing or non-string dtype");
    if (!shape)
      throw tensorError(path, name, "missing or non-array shape");
    if (!offsets || offsets->size() != 2)
      throw tensorError(path, name, "data_offsets must be [begin, end]");
    size_t elemSize = dtypeBytes(*dtype);
    if (elemSize == 0)
      throw tensorError(path, name, "unknown dtype '" + *dtype + "'");

    // Sizes and offsets must be written as integers: 2.0 is not one here.
    auto nonNegative = [](const json::Value &x) -> std::optional<int64_t> {
      std::optional<int64_t> i = x.getAsInteger();
      if (!x.isIntegerLiteral() || *i < 0)
        return std::nullopt;
      return i;
    };
    Entry e;
    e.dtype = *dtype;
    uint64_t numel = 1;
    for (const json::Value &extent : *shape) {
      std::optional<int64_t> size = nonNegative(extent);
      if (!size)
        throw tensorError(path, name,
                          "shape entries must be non-negative integers");
      uint64_t x = static_cast<uint64_t>(*size);
      if (x != 0 && numel > (std::numeric_limits<uint64_t>::max() / 8) / x)
        throw tensorError(path, name, "element count overflows");
      numel *= x;
      e.shape.push_back(*size);
    }
    std::optional<int64_t> begin = nonNegative((*offsets)[0]);
    std::optional<int64_t> end = nonNegative((*offsets)[1]);
    if (!begin || !end)
      throw tensorError(path, name,
                        "data_offsets must be non-negative integers");
    e.begin = static_cast<uint64_t>(*begin);
    e.end = static_cast<uint64_t>(*end);
    if (e.begin > e.end || e.end > f.dataSize_)
      throw tensorError(path, name,
                        "data_offsets [" + std::to_string(e.begin) + ", " +
                            std::to_string(e.end) + ") outside the " +
                            std::to_string(f.dataSize_) + " data bytes");
    if (e.end - e.begin != numel * elemSize)
      throw tensorError(path, name,
                        "data_offsets span " + std::to_string(e.end - e.begin) +
                            " bytes but shape [" + shapeToString(e.shape) +
                            "] of " + e.dtype + " needs " +
                            std::to_string(numel * elemSize));
    f.names_.push_back(name);
    f.entries_.emplace(name, std::move(e));
  }

  // Tensors must not share bytes; empty tensors occupy none.
  std::vector<const std::pair<const std::string, Entry> *> byOffset;
  for (const auto &kv : f.entries_)
    if (kv.second.end > kv.second.begin)
      byOffset.push_back(&kv);
  std::sort(byOffset.begin(), byOffset.end(),
            [](auto *a, auto *b) { return a->second.begin < b->second.begin; });
  for (size_t i = 1; i < byOffset.size(); ++i)
    if (byOffset[i]->second.begin < byOffset[i - 1]->second.end)
      throw tensorError(path, byOffset[i]->first,
                        "data overlaps tensor '" + byOffset[i - 1]->first +
                            "'");
  return f;
}

SafetensorsFile::SafetensorsFile(SafetensorsFile &&other) noexcept {
  *this = std::move(other);
}

SafetensorsFile &SafetensorsFile::operator=(SafetensorsFile &&other) noexcept {
  if (this == &other)
    return *this;
  unmap();
  path_ = std::move(other.path_);
  map_ = other.map_;
  mapSize_ = other.mapSize_;
  data_ = other.data_;
  dataSize_ = other.dataSize_;
  names_ = std::move(other.names_);
  entries_ = std::move(other.entries_);
  metadata_ = std::move(other.metadata_);
  other.map_ = nullptr;
  other.mapSize_ = 0;
  other.data_ = nullptr;
  other.dataSize_ = 0;
  return *this;
}

SafetensorsFile::~SafetensorsFile() { unmap(); }

void SafetensorsFile::unmap() {
  if (map_)
    ::munmap(map_, mapSize_);
  map_ = nullptr;
}

bool SafetensorsFile::contains(const std::string &name) const {
  return entries_.count(name) != 0;
}

const SafetensorsFile::Entry &
SafetensorsFile::entry(const std::string &name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw tensorError(path_, name, "no such tensor");
  return it->second;
}

const SafetensorsFile::Entry &
SafetensorsFile::readableEntry(const std::string &name, DType &dtype) const {
  const Entry &e = entry(name);
  if (e.dtype != "F32" && e.dtype != "BF16" && e.dtype != "F16" &&
      e.dtype != "I64" && e.dtype != "I32" && e.dtype != "BOOL")
    throw tensorError(path_, name,
                      "unsupported dtype " + e.dtype +
                          " (F32, BF16, F16, I64, I32 and BOOL are read)");
  parseDType(e.dtype, dtype);
  return e;
}

const std::vector<int64_t> &
SafetensorsFile::shape(const std::string &name) const {
  return entry(name).shape;
}

const std::string &SafetensorsFile::dtype(const std::string &name) const {
  return entry(name).dtype;
}

Tensor SafetensorsFile::read(const std::string &name) const {
  DType dtype;
  const Entry &e = readableEntry(name, dtype);
  Tensor t(e.shape, dtype);
  if (t.bytes())
    std::memcpy(t.raw(), data_ + e.begin, t.bytes());
  return t;
}

void SafetensorsFile::copyBox(const std::string &name,
                              const std::vector<int64_t> &from,
                              const std::vector<int64_t> &sizes, Tensor &dst,
                              const std::vector<int64_t> &at) const {
  DType dtype;
  const Entry &e = readableEntry(name, dtype);
  size_t rank = e.shape.size();
  auto boxText = [&] {
    std::string text = "box at [";
    for (size_t d = 0; d < from.size(); ++d)
      text += (d ? ", " : "") + std::to_string(from[d]);
    return text + "] of size [" + shapeToString(sizes) + "]";
  };
  if (from.size() != rank || sizes.size() != rank || at.size() != rank ||
      static_cast<size_t>(dst.rank()) != rank)
    throw tensorError(path_, name,
                      boxText() + " does not match the rank of shape [" +
                          shapeToString(e.shape) + "]");
  if (dtype != dst.dtype())
    throw tensorError(path_, name,
                      std::string("holds ") + dtypeName(dtype) +
                          ", copied into a " + dtypeName(dst.dtype()) +
                          " tensor");
  for (size_t d = 0; d < rank; ++d)
    if (from[d] < 0 || sizes[d] < 0 || from[d] > e.shape[d] ||
        sizes[d] > e.shape[d] - from[d] || at[d] < 0 ||
        at[d] > dst.shape()[d] || sizes[d] > dst.shape()[d] - at[d])
      throw tensorError(path_, name,
                        boxText() + " is outside shape [" +
                            shapeToString(e.shape) + "] or its destination [" +
                            shapeToString(dst.shape()) + "]");
  if (shapeNumel(sizes) == 0)
    return;
  size_t es = dtypeSize(dtype);
  // Contiguous runs along the last dim (one element for a scalar).
  int64_t run = rank ? sizes.back() : 1;
  std::vector<int64_t> index(rank, 0); // within the box, last dim fixed at 0
  const unsigned char *src = data_ + e.begin;
  auto *out = static_cast<unsigned char *>(dst.raw());
  while (true) {
    int64_t s = 0, t = 0;
    for (size_t d = 0; d < rank; ++d) {
      s = s * e.shape[d] + from[d] + index[d];
      t = t * dst.shape()[d] + at[d] + index[d];
    }
    std::memcpy(out + t * es, src + s * es, static_cast<size_t>(run) * es);
    // The next run: an odometer over every dim but the last.
    int64_t d = static_cast<int64_t>(rank) - 2;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

Tensor SafetensorsFile::readSlice(const std::string &name, int64_t dim,
                                  int64_t offset, int64_t size) const {
  DType dtype;
  const Entry &e = readableEntry(name, dtype);
  int64_t rank = static_cast<int64_t>(e.shape.size());
  if (dim < -rank || dim >= rank)
    throw tensorError(path_, name,
                      "slice dimension " + std::to_string(dim) +
                          " out of range for shape [" + shapeToString(e.shape) +
                          "]");
  if (dim < 0)
    dim += rank;
  int64_t extent = e.shape[dim];
  if (offset < 0 || size < 0 || offset > extent || size > extent - offset)
    throw tensorError(path_, name,
                      "slice of size " + std::to_string(size) + " at " +
                          std::to_string(offset) +
                          " out of range for dimension " + std::to_string(dim) +
                          " of shape [" + shapeToString(e.shape) + "]");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i)
    outer *= e.shape[i];
  for (int64_t i = dim + 1; i < rank; ++i)
    inner *= e.shape[i];
  std::vector<int64_t> shape = e.shape;
  shape[dim] = size;
  Tensor t(shape, dtype);
  size_t es = dtypeSize(dtype);
  size_t run = static_cast<size_t>(size * inner) * es;
  if (run == 0)
    return t;
  const unsigned char *src = data_ + e.begin;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(static_cast<unsigned char *>(t.raw()) + o * run,
                src + ((o * extent + offset) * inner) * es, run);
  return t;
}

//===----------------------------------------------------------------------===//
// WeightFiles
//===----------------------------------------------------------------------===//

/// The largest index file read (a model's index is far smaller).
static constexpr uintmax_t kMaxIndexBytes = uintmax_t(64) << 20;

WeightFiles WeightFiles::open(const std::string &path) {
  WeightFiles w;
  w.path_ = path;
  bool index =
      path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (!index) {
    w.files_.push_back(
        std::make_unique<SafetensorsFile>(SafetensorsFile::open(path)));
    return w;
  }
  w.indexed_ = true;
  auto fail = [&](const std::string &what) -> std::runtime_error {
    return std::runtime_error("weights index '" + path + "': " + what);
  };
  std::error_code ec;
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec)
    throw fail("cannot open: " + ec.message());
  if (size > kMaxIndexBytes)
    throw fail("larger than " + std::to_string(kMaxIndexBytes) + " bytes");
  std::ifstream is(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(is)),
                   std::istreambuf_iterator<char>());
  if (!is && !is.eof())
    throw fail("cannot read it");
  json::ParseResult parsed = json::parse(text);
  if (!parsed)
    throw fail("not JSON: " + parsed.error->message);
  const json::Object *root = parsed.value.getAsObject();
  const json::Object *map = root ? root->getObject("weight_map") : nullptr;
  if (!map)
    throw fail("no \"weight_map\" object (the index of a sharded "
               "checkpoint maps each tensor to its file)");
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::map<std::string, size_t> fileIndex;
  for (const auto &[name, value] : *map) {
    const std::string *file = value.getAsString();
    if (!file || file->empty())
      throw fail("tensor '" + name + "' maps to no file name");
    std::filesystem::path rel(*file);
    if (rel.is_absolute() ||
        std::any_of(rel.begin(), rel.end(),
                    [](const std::filesystem::path &c) { return c == ".."; }))
      throw fail("tensor '" + name + "' maps to '" + *file +
                 "', outside the index's directory");
    auto [it, added] = fileIndex.emplace(*file, w.files_.size());
    if (added)
      w.files_.push_back(std::make_unique<SafetensorsFile>(
          SafetensorsFile::open((dir / rel).string())));
    w.weightMap_[name] = it->second;
  }
  return w;
}

const SafetensorsFile *WeightFiles::fileOf(const std::string &name) const {
  if (!indexed_)
    return files_.front().get();
  auto it = weightMap_.find(name);
  return it == weightMap_.end() ? nullptr : files_[it->second].get();
}
