//===- Tensor.h - Owning host tensor for the tp runtime ---------*- C++ -*-===//
//
// A contiguous row-major host tensor of f32, bf16, f16, i64 or i32
// elements, the conversions between those types, and the slicing,
// concatenation and torch.chunk helpers that sharding arithmetic is built on.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_TENSOR_H
#define TP_RUNTIME_TENSOR_H

#include "tp/Runtime/MemoryMeter.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tp {
namespace runtime {

/// Element type of a runtime tensor: IEEE f32, bfloat16 (8 exponent bits,
/// 7 mantissa bits), IEEE f16 (5 exponent bits, 10 mantissa bits), or
/// two's complement int64 / int32.
///
/// Kernels compute in f32; 16-bit tensors are storage (and wire) formats that
/// are widened to f32 for arithmetic and rounded back. Integer tensors hold
/// token ids and class targets exactly: the kernels that take ids read them
/// as integers, and collectives reduce them in integer arithmetic. Bool holds
/// masks (comparisons' results), one byte per element, 0 or 1. The
/// enumerators' values are part of the collective call descriptors
/// (CollectiveCall::pack), so new ones go at the end.
enum class DType { F32, BF16, F16, I64, I32, Bool };

/// Returns the safetensors spelling of \p dtype ("F32", "BF16", "F16", "I64",
/// "I32", "BOOL").
const char *dtypeName(DType dtype);

/// Size in bytes of one element of \p dtype.
size_t dtypeSize(DType dtype);

/// Whether \p dtype is an integer type (I64, I32).
inline bool isIntegerDType(DType dtype) {
  return dtype == DType::I64 || dtype == DType::I32;
}

/// Parses a dtype name: the safetensors spelling ("F32", "BF16", "F16",
/// "I64", "I32", "BOOL") or PyTorch's ("float32", "bfloat16", "float16",
/// "half", "int64", "long", "int32", "int", "bool", also "f32", "bf16",
/// "f16", "i64", "i32", "i1"). Returns false for anything else.
bool parseDType(const std::string &name, DType &dtype);

/// Rounds \p x to the nearest bfloat16 (ties to even); NaN stays NaN.
uint16_t floatToBF16(float x);
/// The exact f32 value of bfloat16 bits \p h.
float bf16ToFloat(uint16_t h);
/// Rounds \p x to the nearest IEEE f16 (ties to even); values beyond the f16
/// range become infinities, tiny ones subnormals or zero; NaN stays NaN.
uint16_t floatToF16(float x);
/// The exact f32 value of f16 bits \p h.
float f16ToFloat(uint16_t h);

/// Widens \p n elements of \p dtype at \p src into f32 at \p dst. Integers
/// convert as C++ converts them: exactly up to 2^24 in magnitude, rounded to
/// nearest beyond.
void toFloat(const void *src, DType dtype, float *dst, size_t n);
/// Rounds \p n f32 values at \p src into \p dtype at \p dst (a copy for
/// F32). Into an integer dtype every value must be a finite integer within
/// the type's range; otherwise std::invalid_argument names the first bad
/// value and its index (nothing is truncated).
void fromFloat(const float *src, DType dtype, void *dst, size_t n);

namespace detail {
/// MeteredAllocator whose value-initialization of an element leaves it
/// uninitialized (default-initialization), so that Tensor::uninitialized
/// does not zero-fill what its kernel overwrites. Tensor storage is thus
/// counted by the calling thread's MemoryMeter (MemoryMeter.h).
template <typename T> struct DefaultInitAllocator : MeteredAllocator<T> {
  using MeteredAllocator<T>::MeteredAllocator;
  template <typename U> struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  template <typename U> void construct(U *p) noexcept {
    ::new (static_cast<void *>(p)) U;
  }
  template <typename U, typename... Args> void construct(U *p, Args &&...args) {
    ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
  }
};
} // namespace detail

/// An owning, contiguous, row-major buffer of f32, bf16, f16, i64 or i32
/// elements with a shape.
///
/// A rank-0 tensor (shape `{}`) holds one element. The default-constructed
/// tensor has shape `{0}`, dtype F32 and no elements. Methods that validate
/// their arguments throw std::invalid_argument (shape or dtype problems) or
/// std::out_of_range (dimension indices). The layout helpers below (reshape,
/// slice, concat, chunk) and equality work on every dtype (they move
/// bytes); arithmetic kernels take F32, the id kernels I64, I32 (or F32).
///
/// The element buffer is suitably aligned for every dtype, int64 included:
/// it is a std::vector of floats of at least 8 bytes for an I64 tensor, and
/// std::allocator obtains it from ::operator new, which returns storage
/// aligned for any object of fundamental alignment of that size (16 bytes on
/// the platforms we build for).
class Tensor {
public:
  /// An empty tensor of shape {0}.
  Tensor();
  /// A zero-filled tensor of \p shape and \p dtype; every extent must be
  /// >= 0.
  explicit Tensor(std::vector<int64_t> shape, DType dtype = DType::F32);

  /// A tensor of \p shape and \p dtype whose elements are not initialized:
  /// for kernels that write every element of their result (the zero-fill of
  /// the constructor costs as much as a pass over the result).
  static Tensor uninitialized(std::vector<int64_t> shape,
                              DType dtype = DType::F32);
  /// A tensor of \p shape holding \p data, whose size must equal the
  /// product of \p shape.
  static Tensor fromData(std::vector<int64_t> shape,
                         const std::vector<float> &data);
  /// An integer tensor of \p shape (I64, or I32 when \p dtype says so)
  /// holding \p values, whose size must equal the product of \p shape. For
  /// I32 every value must fit int32 (std::invalid_argument otherwise).
  static Tensor fromInts(std::vector<int64_t> shape,
                         const std::vector<int64_t> &values,
                         DType dtype = DType::I64);
  /// A tensor of \p shape with every element equal to \p value.
  static Tensor full(std::vector<int64_t> shape, float value);
  /// A rank-0 tensor holding \p value.
  static Tensor scalar(float value);

  /// Element type.
  DType dtype() const { return dtype_; }
  /// The extents, outermost first.
  const std::vector<int64_t> &shape() const { return shape_; }
  /// Number of dimensions.
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  /// Extent of dimension \p i; a negative \p i counts from the end.
  int64_t dim(int64_t i) const;
  /// Number of elements (1 for rank 0).
  int64_t numel() const { return numel_; }
  /// Pointer to the first element of an F32 tensor; throws
  /// std::invalid_argument for other dtypes (kernels compute in f32).
  float *data() {
    requireF32();
    return storage_.data();
  }
  /// Pointer to the first element of an F32 tensor (see above).
  const float *data() const {
    requireF32();
    return storage_.data();
  }
  /// Pointer to the first element of an I64 tensor; throws
  /// std::invalid_argument for other dtypes, like data().
  int64_t *dataI64() {
    requireDType(DType::I64);
    return reinterpret_cast<int64_t *>(storage_.data());
  }
  const int64_t *dataI64() const {
    requireDType(DType::I64);
    return reinterpret_cast<const int64_t *>(storage_.data());
  }
  /// Pointer to the first element of an I32 tensor (see dataI64()).
  int32_t *dataI32() {
    requireDType(DType::I32);
    return reinterpret_cast<int32_t *>(storage_.data());
  }
  const int32_t *dataI32() const {
    requireDType(DType::I32);
    return reinterpret_cast<const int32_t *>(storage_.data());
  }
  /// Pointer to the first element of a Bool tensor (bytes 0 or 1; see
  /// dataI64()).
  uint8_t *dataBool() {
    requireDType(DType::Bool);
    return reinterpret_cast<uint8_t *>(storage_.data());
  }
  const uint8_t *dataBool() const {
    requireDType(DType::Bool);
    return reinterpret_cast<const uint8_t *>(storage_.data());
  }
  /// The element buffer of any dtype.
  void *raw() { return storage_.data(); }
  const void *raw() const { return storage_.data(); }
  /// Size of the element buffer in bytes (numel * dtypeSize).
  size_t bytes() const {
    return static_cast<size_t>(numel_) * dtypeSize(dtype_);
  }
  /// A copy of the elements of an F32 tensor.
  std::vector<float> values() const {
    requireF32();
    return std::vector<float>(storage_.begin(), storage_.end());
  }

  /// A copy converted to \p dtype; a plain copy when the dtype is already
  /// \p dtype. Between float dtypes narrowing rounds to nearest even.
  /// Integers become floats as C++ converts them (exact up to 2^24 in
  /// magnitude for f32, rounded to nearest beyond; 16-bit floats go through
  /// f32). Floats become integers only when every value is a finite integer
  /// in the target's range, and I64 becomes I32 only when every value fits;
  /// otherwise std::invalid_argument names the first bad value and its flat
  /// index: nothing is truncated or wrapped. To Bool, every nonzero value
  /// (NaN too) is true, as PyTorch's `.bool()`; Bool converts as 0 and 1.
  Tensor to(DType dtype) const &;
  /// As above; a tensor that already has \p dtype is moved, not copied.
  Tensor to(DType dtype) &&;
  /// The value of element \p i (flat index) as f32, for any dtype: integers
  /// as toFloat() converts them (exact up to 2^24; use atInt() for ids).
  float at(int64_t i) const;
  /// The value of element \p i as an int64: exact for I64 and I32; a float
  /// element must be a finite integer in int64's range (std::invalid_argument
  /// otherwise).
  int64_t atInt(int64_t i) const;

  /// A copy with \p newShape, which must have the same number of elements.
  Tensor reshaped(std::vector<int64_t> newShape) const &;
  /// As above; the elements are moved, not copied.
  Tensor reshaped(std::vector<int64_t> newShape) &&;
  /// The shape as "4x16" ("" for rank 0).
  std::string shapeString() const;

  /// Whether the shapes and dtypes are equal and every element compares
  /// equal: as a float for float dtypes (so NaN != NaN), exactly for
  /// integers.
  bool operator==(const Tensor &other) const;
  bool operator!=(const Tensor &other) const { return !(*this == other); }

private:
  /// Inline: data() sits in kernels' inner loops.
  void requireF32() const {
    if (__builtin_expect(dtype_ != DType::F32, 0))
      throwWrongDType(DType::F32);
  }
  void requireDType(DType dtype) const {
    if (__builtin_expect(dtype_ != dtype, 0))
      throwWrongDType(dtype);
  }
  [[noreturn]] void throwWrongDType(DType wanted) const;
  /// Throws std::out_of_range unless 0 <= i < numel().
  void checkIndex(int64_t i) const;

  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  DType dtype_ = DType::F32;
  /// The elements' bytes, in floats (ceil(bytes() / 4) of them) so that
  /// every dtype is suitably aligned (see the class comment).
  std::vector<float, detail::DefaultInitAllocator<float>> storage_;
};

/// Maps a possibly negative \p dim to [0, rank); throws std::out_of_range if
/// it is outside [-rank, rank).
int64_t normalizeDim(int64_t dim, int64_t rank);

/// Product of \p shape (1 for an empty shape); throws std::invalid_argument
/// on a negative extent or overflow.
int64_t shapeNumel(const std::vector<int64_t> &shape);

/// Formats \p shape as "4x16".
std::string shapeToString(const std::vector<int64_t> &shape);

/// The physical memory of this host in bytes: the most that the tensors of
/// its ranks can hold (the executor checks sizes against it before it
/// allocates anything).
int64_t hostMemoryBytes();

/// Makes this process's malloc keep the memory of freed tensors for the
/// next ones, as a tensor framework's caching allocator does: glibc
/// otherwise gives a large block back to the system when it is freed (its
/// own mmap, or the top of a rank thread's heap), and every training step
/// then faults its activations in again, zeroed page by page (a third of
/// the non-GEMM time of a 1-rank step, bench/findings.md). Tensors up to
/// 32 MiB then come from the heap, whose freed tops are neither trimmed nor
/// unmapped. Process-wide, so the tools call it (tp-run, the benchmarks),
/// not the library; a no-op without glibc.
void keepFreedTensorMemory();

/// A shape viewed as [outer, extent, inner] around one dimension: the
/// products of the extents before and after it. The layout helpers here and
/// their device forms (tp/Runtime/CUDA.h) copy strided runs with it.
struct DimSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};

/// \p shape viewed around dimension \p dim (in [0, rank)).
DimSplit splitAround(const std::vector<int64_t> &shape, int64_t dim);

/// The shape of `x[..., start:start+size, ...]` for a tensor of \p shape;
/// normalizes \p dim and throws std::invalid_argument (std::out_of_range
/// for the dimension) like sliceDim.
std::vector<int64_t> sliceShape(const std::vector<int64_t> &shape, int64_t &dim,
                                int64_t start, int64_t size);

/// The shape of \p parts (tensors with shape(), rank(), dtype() and
/// shapeString(), host or device) concatenated along \p dim, which it
/// normalizes; throws std::invalid_argument like concatDim.
template <class T>
std::vector<int64_t> concatShape(const std::vector<T> &parts, int64_t &dim) {
  if (parts.empty())
    throw std::invalid_argument("concatDim needs at least one tensor");
  const T &first = parts.front();
  dim = normalizeDim(dim, first.rank());
  std::vector<int64_t> shape = first.shape();
  shape[dim] = 0;
  for (const T &p : parts) {
    if (p.dtype() != first.dtype())
      throw std::invalid_argument(std::string("concatDim: a ") +
                                  dtypeName(p.dtype()) + " tensor next to a " +
                                  dtypeName(first.dtype()) + " one");
    bool ok = p.rank() == first.rank();
    for (int64_t i = 0; ok && i < p.rank(); ++i)
      ok = i == dim || p.shape()[i] == first.shape()[i];
    if (!ok)
      throw std::invalid_argument(
          "concatDim along dimension " + std::to_string(dim) + ": shape " +
          p.shapeString() + " does not match " + first.shapeString());
    shape[dim] += p.shape()[dim];
  }
  return shape;
}

/// Copies `x[..., start:start+size, ...]` along \p dim (negative counts from
/// the end). The range must lie within the dimension; \p size may be 0.
Tensor sliceDim(const Tensor &x, int64_t dim, int64_t start, int64_t size);

/// Concatenates \p parts along \p dim. All parts need the same rank and equal
/// extents on every other dimension; \p parts must not be empty.
Tensor concatDim(const std::vector<Tensor> &parts, int64_t dim);
/// The same, reading the parts where they are (a kernel's operands: no
/// copies of them while the result is built).
Tensor concatDimOf(const std::vector<const Tensor *> &parts, int64_t dim);

/// A contiguous range [offset, offset + size) of a dimension.
struct Chunk {
  int64_t offset;
  int64_t size;
};

/// The piece \p i of \p n elements split into \p k parts by torch.chunk rules:
/// every piece has ceil(n/k) elements except trailing ones, which may be short
/// or empty (10 over 4: 3,3,3,1; 5 over 4: 2,2,1,0). An empty piece has
/// offset min(n, i*ceil(n/k)). Requires n >= 0, k > 0 and 0 <= i < k.
Chunk chunkOf(int64_t n, int64_t k, int64_t i);

/// The box of a tensor of \p globalShape that the rank at \p coords of a
/// mesh of \p meshShape holds under \p placements (one per mesh axis:
/// "R", "S<d>", "I<d>" or "P<kind>"): a dim split over several axes is cut
/// by torch.chunk rules by the "S" axes in mesh order, then inside those
/// pieces by the "I" (inner shard) axes in mesh order. Sets \p offsets and
/// \p sizes (one per dim).
void placementBox(const std::vector<int64_t> &globalShape,
                  const std::vector<std::string> &placements,
                  const std::vector<int64_t> &meshShape,
                  const std::vector<int64_t> &coords,
                  std::vector<int64_t> &offsets, std::vector<int64_t> &sizes);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_TENSOR_H
