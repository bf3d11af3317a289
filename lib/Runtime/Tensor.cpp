//===- Tensor.cpp - Owning host tensor for the tp runtime -------*- C++ -*-===//
//
// Shape bookkeeping, slicing and concatenation of runtime tensors.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Tensor.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdexcept>

#include <unistd.h>

using namespace mlir::tp::runtime;

const char *mlir::tp::runtime::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "F32";
  case DType::BF16:
    return "BF16";
  case DType::F16:
    return "F16";
  case DType::I64:
    return "I64";
  case DType::I32:
    return "I32";
  case DType::Bool:
    return "BOOL";
  }
  return "?";
}

size_t mlir::tp::runtime::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::Bool:
    return 1;
  }
  return 0;
}

bool mlir::tp::runtime::parseDType(const std::string &name, DType &dtype) {
  static const std::pair<const char *, DType> names[] = {
      {"F32", DType::F32},   {"float32", DType::F32},   {"f32", DType::F32},
      {"BF16", DType::BF16}, {"bfloat16", DType::BF16}, {"bf16", DType::BF16},
      {"F16", DType::F16},   {"float16", DType::F16},   {"f16", DType::F16},
      {"half", DType::F16},  {"I64", DType::I64},       {"int64", DType::I64},
      {"long", DType::I64},  {"i64", DType::I64},       {"I32", DType::I32},
      {"int32", DType::I32}, {"int", DType::I32},       {"i32", DType::I32},
      {"BOOL", DType::Bool}, {"bool", DType::Bool},     {"i1", DType::Bool}};
  for (const auto &[spelling, value] : names)
    if (name == spelling) {
      dtype = value;
      return true;
    }
  return false;
}

namespace {
uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float floatOf(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
} // namespace

uint16_t mlir::tp::runtime::floatToBF16(float x) {
  uint32_t u = bitsOf(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u); // keep NaN, quiet it
  u += 0x7fffu + ((u >> 16) & 1u);                   // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

float mlir::tp::runtime::bf16ToFloat(uint16_t h) {
  return floatOf(static_cast<uint32_t>(h) << 16);
}

uint16_t mlir::tp::runtime::floatToF16(float x) {
  uint32_t u = bitsOf(x);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t ax = u & 0x7fffffffu;
  if (ax >= 0x7f800000u) // infinity or NaN (NaN keeps a quiet payload)
    return static_cast<uint16_t>(
        sign | 0x7c00u |
        (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0));
  if (ax >= 0x477ff000u) // >= 65520 rounds to infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    // Below the smallest normal 2^-14: a multiple of 2^-24. Scaling by 2^24
    // is exact, and nearbyint rounds to nearest even; 1024 carries into the
    // smallest normal's bit pattern by itself.
    float scaled = floatOf(ax) * 16777216.0f;
    return static_cast<uint16_t>(sign |
                                 static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  uint32_t h = (ax >> 13) - (112u << 10); // re-bias the exponent 127 -> 15
  uint32_t rest = ax & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h; // may carry into the exponent, which is right
  return static_cast<uint16_t>(sign | h);
}

float mlir::tp::runtime::f16ToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f); // exact
    return sign ? -v : v;
  }
  if (exp == 31)
    return floatOf(sign | 0x7f800000u | (mant << 13));
  return floatOf(sign | ((exp + 112u) << 23) | (mant << 13));
}

namespace {
/// The f32 value of an integer, as C++ converts it (round to nearest).
template <typename I> void intsToFloat(const void *src, float *dst, size_t n) {
  const auto *in = static_cast<const I *>(src);
  for (size_t i = 0; i < n; ++i)
    dst[i] = static_cast<float>(in[i]);
}

/// Formats an f32 value exactly enough to name it in an error ("1.5",
/// "2147483648", "nan").
std::string floatString(double v) {
  char buf[64];
  bool integral = std::isfinite(v) && std::floor(v) == v;
  std::snprintf(buf, sizeof buf, integral ? "%.0f" : "%.9g", v);
  return buf;
}

/// Whether the finite integer \p v lies in [lo, hi], checked in double
/// (which holds every f32 and the int32 bounds exactly; for int64 the upper
/// bound 2^63 - 1 rounds to 2^63, hence the strict test).
template <typename I> bool inIntRange(double v) {
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  constexpr double hiExclusive =
      -static_cast<double>(std::numeric_limits<I>::min());
  return v >= lo && v < hiExclusive;
}

/// Throws unless \p v (element \p i) is an integer that \p I holds.
template <typename I> I checkedInt(double v, size_t i, DType to) {
  if (!std::isfinite(v) || std::floor(v) != v || !inIntRange<I>(v))
    throw std::invalid_argument(
        std::string("cannot convert element ") + std::to_string(i) + " (" +
        floatString(v) + ") to " + dtypeName(to) + ": " +
        (std::isfinite(v) && std::floor(v) == v ? "out of range"
                                                : "not an integer"));
  return static_cast<I>(v);
}

template <typename I>
void floatsToInt(const float *src, void *dst, size_t n, DType to) {
  auto *out = static_cast<I *>(dst);
  for (size_t i = 0; i < n; ++i)
    out[i] = checkedInt<I>(src[i], i, to);
}
} // namespace

void mlir::tp::runtime::toFloat(const void *src, DType dtype, float *dst,
                                size_t n) {
  const auto *h = static_cast<const uint16_t *>(src);
  switch (dtype) {
  case DType::F32:
    if (n)
      std::memmove(dst, src, n * sizeof(float));
    return;
  case DType::BF16:
    for (size_t i = 0; i < n; ++i)
      dst[i] = bf16ToFloat(h[i]);
    return;
  case DType::F16:
    for (size_t i = 0; i < n; ++i)
      dst[i] = f16ToFloat(h[i]);
    return;
  case DType::I64:
    intsToFloat<int64_t>(src, dst, n);
    return;
  case DType::I32:
    intsToFloat<int32_t>(src, dst, n);
    return;
  case DType::Bool:
    intsToFloat<uint8_t>(src, dst, n);
    return;
  }
}

void mlir::tp::runtime::fromFloat(const float *src, DType dtype, void *dst,
                                  size_t n) {
  auto *h = static_cast<uint16_t *>(dst);
  switch (dtype) {
  case DType::F32:
    if (n)
      std::memmove(dst, src, n * sizeof(float));
    return;
  case DType::BF16:
    for (size_t i = 0; i < n; ++i)
      h[i] = floatToBF16(src[i]);
    return;
  case DType::F16:
    for (size_t i = 0; i < n; ++i)
      h[i] = floatToF16(src[i]);
    return;
  case DType::I64:
    floatsToInt<int64_t>(src, dst, n, dtype);
    return;
  case DType::I32:
    floatsToInt<int32_t>(src, dst, n, dtype);
    return;
  case DType::Bool: {
    // Nonzero is true, NaN too (PyTorch's `.bool()`).
    auto *out = static_cast<uint8_t *>(dst);
    for (size_t i = 0; i < n; ++i)
      out[i] = src[i] != 0.0f;
    return;
  }
  }
}

int64_t mlir::tp::runtime::shapeNumel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e < 0)
      throw std::invalid_argument("negative extent in shape " +
                                  shapeToString(shape));
    if (e != 0 && n > std::numeric_limits<int64_t>::max() / e)
      throw std::invalid_argument("element count of shape " +
                                  shapeToString(shape) + " overflows");
    n *= e;
  }
  return n;
}

int64_t mlir::tp::runtime::hostMemoryBytes() {
  static const int64_t bytes = [] {
    long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
      return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(pages) * pageSize;
  }();
  return bytes;
}

void mlir::tp::runtime::keepFreedTensorMemory() {
#ifdef __GLIBC__
  // The largest mmap threshold glibc accepts (setting it also stops glibc
  // from adjusting it), a trim threshold no heap top reaches, and a top pad
  // of a whole thread heap (64 MiB), below which glibc does not unmap an
  // emptied thread heap either.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

std::string
mlir::tp::runtime::shapeToString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

int64_t mlir::tp::runtime::normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    throw std::out_of_range("dimension " + std::to_string(dim) +
                            " out of range for rank " + std::to_string(rank));
  return dim < 0 ? dim + rank : dim;
}

namespace {
/// Floats of storage for \p numel elements of \p dtype.
size_t storageFloats(int64_t numel, DType dtype) {
  return (static_cast<size_t>(numel) * dtypeSize(dtype) + 3) / 4;
}
} // namespace

Tensor::Tensor() : shape_{0} {}

Tensor::Tensor(std::vector<int64_t> shape, DType dtype)
    : shape_(std::move(shape)), numel_(shapeNumel(shape_)), dtype_(dtype),
      storage_(storageFloats(numel_, dtype), 0.0f) {}

void Tensor::throwWrongDType(DType wanted) const {
  std::string want = dtypeName(wanted);
  for (char &c : want)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  throw std::invalid_argument(
      std::string("a ") + dtypeName(dtype_) + " tensor of shape " +
      shapeString() + " was used where " + want + " elements are needed");
}

void Tensor::checkIndex(int64_t i) const {
  if (i < 0 || i >= numel_)
    throw std::out_of_range("element " + std::to_string(i) +
                            " out of range for a tensor of " +
                            std::to_string(numel_) + " elements");
}

Tensor Tensor::uninitialized(std::vector<int64_t> shape, DType dtype) {
  Tensor t;
  t.shape_ = std::move(shape);
  t.numel_ = shapeNumel(t.shape_);
  t.dtype_ = dtype;
  t.storage_.resize(storageFloats(t.numel_, dtype));
  return t;
}

Tensor Tensor::fromData(std::vector<int64_t> shape,
                        const std::vector<float> &data) {
  int64_t n = shapeNumel(shape);
  if (static_cast<int64_t>(data.size()) != n)
    throw std::invalid_argument("tensor data has " +
                                std::to_string(data.size()) +
                                " elements but shape " + shapeToString(shape) +
                                " needs " + std::to_string(n));
  Tensor t;
  t.shape_ = std::move(shape);
  t.numel_ = n;
  t.storage_.assign(data.begin(), data.end());
  return t;
}

Tensor Tensor::fromInts(std::vector<int64_t> shape,
                        const std::vector<int64_t> &values, DType dtype) {
  if (!isIntegerDType(dtype))
    throw std::invalid_argument(std::string("Tensor::fromInts: ") +
                                dtypeName(dtype) + " is not an integer dtype");
  int64_t n = shapeNumel(shape);
  if (static_cast<int64_t>(values.size()) != n)
    throw std::invalid_argument("tensor data has " +
                                std::to_string(values.size()) +
                                " elements but shape " + shapeToString(shape) +
                                " needs " + std::to_string(n));
  Tensor t(std::move(shape), DType::I64);
  if (n)
    std::memcpy(t.raw(), values.data(), t.bytes());
  return std::move(t).to(dtype);
}

Tensor Tensor::full(std::vector<int64_t> shape, float value) {
  Tensor t(std::move(shape));
  std::fill(t.storage_.begin(), t.storage_.end(), value);
  return t;
}

Tensor Tensor::scalar(float value) { return fromData({}, {value}); }

int64_t Tensor::dim(int64_t i) const { return shape_[normalizeDim(i, rank())]; }

Tensor Tensor::to(DType dtype) && {
  if (dtype == dtype_)
    return std::move(*this);
  return static_cast<const Tensor &>(*this).to(dtype);
}

Tensor Tensor::to(DType dtype) const & {
  if (dtype == dtype_)
    return *this;
  Tensor out = uninitialized(shape_, dtype);
  if (dtype_ == DType::I64 && dtype == DType::I32) {
    const int64_t *in = dataI64();
    int32_t *o = out.dataI32();
    for (int64_t i = 0; i < numel_; ++i) {
      if (in[i] < std::numeric_limits<int32_t>::min() ||
          in[i] > std::numeric_limits<int32_t>::max())
        throw std::invalid_argument(
            "cannot convert element " + std::to_string(i) + " (" +
            std::to_string(in[i]) + ") to I32: out of range");
      o[i] = static_cast<int32_t>(in[i]);
    }
  } else if (dtype_ == DType::I32 && dtype == DType::I64) {
    std::copy_n(dataI32(), numel_, out.dataI64());
  } else if (dtype == DType::Bool && isIntegerDType(dtype_)) {
    // Exactly: a large id is nonzero whatever f32 would round it to.
    uint8_t *o = out.dataBool();
    for (int64_t k = 0; k < numel_; ++k)
      o[k] = dtype_ == DType::I64 ? dataI64()[k] != 0 : dataI32()[k] != 0;
  } else if (dtype_ == DType::F32) {
    fromFloat(storage_.data(), dtype, out.raw(), numel_);
  } else if (dtype == DType::F32) {
    toFloat(raw(), dtype_, out.storage_.data(), numel_);
  } else {
    ScratchVector<float> wide(numel_);
    toFloat(raw(), dtype_, wide.data(), numel_);
    fromFloat(wide.data(), dtype, out.raw(), numel_);
  }
  return out;
}

float Tensor::at(int64_t i) const {
  checkIndex(i);
  const auto *h = static_cast<const uint16_t *>(raw());
  switch (dtype_) {
  case DType::F32:
    return storage_[i];
  case DType::BF16:
    return bf16ToFloat(h[i]);
  case DType::F16:
    return f16ToFloat(h[i]);
  case DType::I64:
    return static_cast<float>(dataI64()[i]);
  case DType::I32:
    return static_cast<float>(dataI32()[i]);
  case DType::Bool:
    return static_cast<float>(dataBool()[i]);
  }
  return 0.0f;
}

int64_t Tensor::atInt(int64_t i) const {
  checkIndex(i);
  if (dtype_ == DType::I64)
    return dataI64()[i];
  if (dtype_ == DType::I32)
    return dataI32()[i];
  if (dtype_ == DType::Bool)
    return dataBool()[i];
  return checkedInt<int64_t>(at(i), static_cast<size_t>(i), DType::I64);
}

Tensor Tensor::reshaped(std::vector<int64_t> newShape) const & {
  return Tensor(*this).reshaped(std::move(newShape));
}

Tensor Tensor::reshaped(std::vector<int64_t> newShape) && {
  if (shapeNumel(newShape) != numel())
    throw std::invalid_argument("cannot reshape tensor of shape " +
                                shapeString() + " into " +
                                shapeToString(newShape));
  Tensor t = std::move(*this);
  t.shape_ = std::move(newShape);
  return t;
}

std::string Tensor::shapeString() const { return shapeToString(shape_); }

bool Tensor::operator==(const Tensor &other) const {
  if (shape_ != other.shape_ || dtype_ != other.dtype_)
    return false;
  if (dtype_ == DType::F32)
    return storage_ == other.storage_;
  if (isIntegerDType(dtype_))
    return numel_ == 0 || std::memcmp(raw(), other.raw(), bytes()) == 0;
  for (int64_t i = 0; i < numel_; ++i)
    if (at(i) != other.at(i))
      return false;
  return true;
}

DimSplit mlir::tp::runtime::splitAround(const std::vector<int64_t> &shape,
                                        int64_t dim) {
  DimSplit s;
  for (int64_t i = 0; i < dim; ++i)
    s.outer *= shape[i];
  s.extent = shape[dim];
  for (size_t i = dim + 1; i < shape.size(); ++i)
    s.inner *= shape[i];
  return s;
}

std::vector<int64_t>
mlir::tp::runtime::sliceShape(const std::vector<int64_t> &shape, int64_t &dim,
                              int64_t start, int64_t size) {
  dim = normalizeDim(dim, static_cast<int64_t>(shape.size()));
  int64_t extent = shape[dim];
  if (start < 0 || size < 0 || start > extent || size > extent - start)
    throw std::invalid_argument(
        "slice of size " + std::to_string(size) + " at " +
        std::to_string(start) + " out of range for dimension " +
        std::to_string(dim) + " of shape " + shapeToString(shape));
  std::vector<int64_t> out = shape;
  out[dim] = size;
  return out;
}

Tensor mlir::tp::runtime::sliceDim(const Tensor &x, int64_t dim, int64_t start,
                                   int64_t size) {
  std::vector<int64_t> shape = sliceShape(x.shape(), dim, start, size);
  int64_t extent = x.shape()[dim];
  Tensor out(shape, x.dtype());
  DimSplit s = splitAround(x.shape(), dim);
  size_t elt = dtypeSize(x.dtype());
  size_t run = static_cast<size_t>(size * s.inner) * elt;
  if (run == 0)
    return out;
  auto *dst = static_cast<char *>(out.raw());
  const auto *src = static_cast<const char *>(x.raw());
  for (int64_t o = 0; o < s.outer; ++o)
    std::memcpy(dst + o * run, src + (o * extent + start) * s.inner * elt, run);
  return out;
}

Tensor mlir::tp::runtime::concatDim(const std::vector<Tensor> &parts,
                                    int64_t dim) {
  std::vector<const Tensor *> pointers;
  pointers.reserve(parts.size());
  for (const Tensor &p : parts)
    pointers.push_back(&p);
  return concatDimOf(pointers, dim);
}

namespace {
/// The tensor a pointer of concatDim's parts points to, with what
/// concatShape reads of it.
struct PartRef {
  const Tensor *t;
  const std::vector<int64_t> &shape() const { return t->shape(); }
  int64_t rank() const { return t->rank(); }
  DType dtype() const { return t->dtype(); }
  std::string shapeString() const { return t->shapeString(); }
};
} // namespace

Tensor mlir::tp::runtime::concatDimOf(const std::vector<const Tensor *> &parts,
                                      int64_t dim) {
  std::vector<PartRef> refs;
  refs.reserve(parts.size());
  for (const Tensor *p : parts)
    refs.push_back({p});
  std::vector<int64_t> shape = concatShape(refs, dim);
  const Tensor &first = *parts.front();
  Tensor out = Tensor::uninitialized(shape, first.dtype());
  DimSplit s = splitAround(shape, dim);
  size_t elt = dtypeSize(first.dtype());
  int64_t rowOut = s.extent * s.inner * elt;
  int64_t col = 0;
  auto *dst = static_cast<char *>(out.raw());
  for (const Tensor *p : parts) {
    int64_t run = p->shape()[dim] * s.inner * elt;
    const auto *src = static_cast<const char *>(p->raw());
    if (run != 0)
      for (int64_t o = 0; o < s.outer; ++o)
        std::memcpy(dst + o * rowOut + col, src + o * run, run);
    col += run;
  }
  return out;
}

Chunk mlir::tp::runtime::chunkOf(int64_t n, int64_t k, int64_t i) {
  if (n < 0 || k <= 0 || i < 0 || i >= k)
    throw std::invalid_argument("chunkOf(" + std::to_string(n) + ", " +
                                std::to_string(k) + ", " + std::to_string(i) +
                                "): need n >= 0, k > 0 and 0 <= i < k");
  int64_t chunk = n / k + (n % k != 0);
  int64_t begin = std::min(n, i * chunk);
  int64_t end = std::min(n, begin + chunk);
  return Chunk{begin, end - begin};
}

void mlir::tp::runtime::placementBox(const std::vector<int64_t> &globalShape,
                                     const std::vector<std::string> &placements,
                                     const std::vector<int64_t> &meshShape,
                                     const std::vector<int64_t> &coords,
                                     std::vector<int64_t> &offsets,
                                     std::vector<int64_t> &sizes) {
  offsets.assign(globalShape.size(), 0);
  sizes = globalShape;
  for (char kind : {'S', 'I'})
    for (size_t a = 0; a < placements.size() && a < meshShape.size(); ++a) {
      if (placements[a].empty() || placements[a][0] != kind)
        continue;
      size_t d = std::stoull(placements[a].substr(1));
      if (d >= sizes.size())
        throw std::runtime_error("placement " + placements[a] + " splits dim " +
                                 std::to_string(d) + " of a tensor of rank " +
                                 std::to_string(sizes.size()));
      Chunk c = chunkOf(sizes[d], meshShape[a], coords[a]);
      offsets[d] += c.offset;
      sizes[d] = c.size;
    }
}
