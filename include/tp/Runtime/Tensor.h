//===- Tensor.h - Owning host tensor for the tp runtime ---------*- C++ -*-===//
//
// A contiguous row-major f32 host tensor plus the slicing, concatenation and
// torch.chunk helpers that sharding arithmetic is built on.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_TENSOR_H
#define TP_RUNTIME_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tp {
namespace runtime {

/// Element type of a runtime tensor. Only f32 exists for now; bf16/f16 come
/// with the GPU backends.
enum class DType { F32 };

/// Returns the safetensors spelling of \p dtype ("F32").
const char *dtypeName(DType dtype);

/// Size in bytes of one element of \p dtype.
size_t dtypeSize(DType dtype);

/// An owning, contiguous, row-major f32 buffer with a shape.
///
/// A rank-0 tensor (shape `{}`) holds one element. The default-constructed
/// tensor has shape `{0}` and no elements. Methods that validate their
/// arguments throw std::invalid_argument (shape problems) or std::out_of_range
/// (dimension indices).
class Tensor {
public:
  /// An empty tensor of shape {0}.
  Tensor();
  /// A zero-filled tensor of \p shape; every extent must be >= 0.
  explicit Tensor(std::vector<int64_t> shape);

  /// A tensor of \p shape taking ownership of \p data, whose size must equal
  /// the product of \p shape.
  static Tensor fromData(std::vector<int64_t> shape, std::vector<float> data);
  /// A tensor of \p shape with every element equal to \p value.
  static Tensor full(std::vector<int64_t> shape, float value);
  /// A rank-0 tensor holding \p value.
  static Tensor scalar(float value);

  /// Element type (always DType::F32 for now).
  DType dtype() const { return DType::F32; }
  /// The extents, outermost first.
  const std::vector<int64_t> &shape() const { return shape_; }
  /// Number of dimensions.
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  /// Extent of dimension \p i; a negative \p i counts from the end.
  int64_t dim(int64_t i) const;
  /// Number of elements (1 for rank 0).
  int64_t numel() const { return static_cast<int64_t>(data_.size()); }
  /// Pointer to the first element.
  float *data() { return data_.data(); }
  /// Pointer to the first element.
  const float *data() const { return data_.data(); }
  /// Size of the element buffer in bytes.
  size_t bytes() const { return data_.size() * sizeof(float); }
  /// The element buffer.
  const std::vector<float> &values() const { return data_; }

  /// A copy with \p newShape, which must have the same number of elements.
  Tensor reshaped(std::vector<int64_t> newShape) const;
  /// The shape as "4x16" ("" for rank 0).
  std::string shapeString() const;

  /// Whether the shapes are equal and every element compares equal with
  /// float operator== (so NaN != NaN).
  bool operator==(const Tensor &other) const;
  bool operator!=(const Tensor &other) const { return !(*this == other); }

private:
  std::vector<int64_t> shape_;
  std::vector<float> data_;
};

/// Maps a possibly negative \p dim to [0, rank); throws std::out_of_range if
/// it is outside [-rank, rank).
int64_t normalizeDim(int64_t dim, int64_t rank);

/// Product of \p shape (1 for an empty shape); throws std::invalid_argument
/// on a negative extent or overflow.
int64_t shapeNumel(const std::vector<int64_t> &shape);

/// Formats \p shape as "4x16".
std::string shapeToString(const std::vector<int64_t> &shape);

/// Copies `x[..., start:start+size, ...]` along \p dim (negative counts from
/// the end). The range must lie within the dimension; \p size may be 0.
Tensor sliceDim(const Tensor &x, int64_t dim, int64_t start, int64_t size);

/// Concatenates \p parts along \p dim. All parts need the same rank and equal
/// extents on every other dimension; \p parts must not be empty.
Tensor concatDim(const std::vector<Tensor> &parts, int64_t dim);

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

} // namespace runtime
} // namespace tp

#endif // TP_RUNTIME_TENSOR_H
