//===- Tensor.cpp - Owning host tensor for the tp runtime -------*- C++ -*-===//
//
// Shape bookkeeping, slicing and concatenation of runtime tensors.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

using namespace tp::runtime;

const char *tp::runtime::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "F32";
  }
  return "?";
}

size_t tp::runtime::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 4;
  }
  return 0;
}

int64_t tp::runtime::shapeNumel(const std::vector<int64_t> &shape) {
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

std::string tp::runtime::shapeToString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

int64_t tp::runtime::normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    throw std::out_of_range("dimension " + std::to_string(dim) +
                            " out of range for rank " + std::to_string(rank));
  return dim < 0 ? dim + rank : dim;
}

Tensor::Tensor() : shape_{0} {}

Tensor::Tensor(std::vector<int64_t> shape)
    : shape_(std::move(shape)), data_(shapeNumel(shape_), 0.0f) {}

Tensor Tensor::fromData(std::vector<int64_t> shape, std::vector<float> data) {
  int64_t n = shapeNumel(shape);
  if (static_cast<int64_t>(data.size()) != n)
    throw std::invalid_argument("tensor data has " +
                                std::to_string(data.size()) +
                                " elements but shape " + shapeToString(shape) +
                                " needs " + std::to_string(n));
  Tensor t;
  t.shape_ = std::move(shape);
  t.data_ = std::move(data);
  return t;
}

Tensor Tensor::full(std::vector<int64_t> shape, float value) {
  Tensor t(std::move(shape));
  std::fill(t.data_.begin(), t.data_.end(), value);
  return t;
}

Tensor Tensor::scalar(float value) { return fromData({}, {value}); }

int64_t Tensor::dim(int64_t i) const { return shape_[normalizeDim(i, rank())]; }

Tensor Tensor::reshaped(std::vector<int64_t> newShape) const {
  if (shapeNumel(newShape) != numel())
    throw std::invalid_argument("cannot reshape tensor of shape " +
                                shapeString() + " into " +
                                shapeToString(newShape));
  return fromData(std::move(newShape), data_);
}

std::string Tensor::shapeString() const { return shapeToString(shape_); }

bool Tensor::operator==(const Tensor &other) const {
  return shape_ == other.shape_ && data_ == other.data_;
}

namespace {
/// Extents of a tensor viewed as [outer, dim, inner] around one dimension.
struct DimSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};

DimSplit splitAround(const std::vector<int64_t> &shape, int64_t dim) {
  DimSplit s;
  for (int64_t i = 0; i < dim; ++i)
    s.outer *= shape[i];
  s.extent = shape[dim];
  for (size_t i = dim + 1; i < shape.size(); ++i)
    s.inner *= shape[i];
  return s;
}
} // namespace

Tensor tp::runtime::sliceDim(const Tensor &x, int64_t dim, int64_t start,
                             int64_t size) {
  dim = normalizeDim(dim, x.rank());
  int64_t extent = x.shape()[dim];
  if (start < 0 || size < 0 || start > extent || size > extent - start)
    throw std::invalid_argument(
        "slice of size " + std::to_string(size) + " at " +
        std::to_string(start) + " out of range for dimension " +
        std::to_string(dim) + " of shape " + x.shapeString());
  std::vector<int64_t> shape = x.shape();
  shape[dim] = size;
  Tensor out(shape);
  DimSplit s = splitAround(x.shape(), dim);
  size_t run = static_cast<size_t>(size * s.inner);
  if (run == 0)
    return out;
  for (int64_t o = 0; o < s.outer; ++o)
    std::memcpy(out.data() + o * run, x.data() + (o * extent + start) * s.inner,
                run * sizeof(float));
  return out;
}

Tensor tp::runtime::concatDim(const std::vector<Tensor> &parts, int64_t dim) {
  if (parts.empty())
    throw std::invalid_argument("concatDim needs at least one tensor");
  const Tensor &first = parts.front();
  dim = normalizeDim(dim, first.rank());
  std::vector<int64_t> shape = first.shape();
  shape[dim] = 0;
  for (const Tensor &p : parts) {
    bool ok = p.rank() == first.rank();
    for (int64_t i = 0; ok && i < p.rank(); ++i)
      ok = i == dim || p.shape()[i] == first.shape()[i];
    if (!ok)
      throw std::invalid_argument(
          "concatDim along dimension " + std::to_string(dim) + ": shape " +
          p.shapeString() + " does not match " + first.shapeString());
    shape[dim] += p.shape()[dim];
  }
  Tensor out(shape);
  DimSplit s = splitAround(shape, dim);
  int64_t rowOut = s.extent * s.inner;
  int64_t col = 0;
  for (const Tensor &p : parts) {
    int64_t run = p.shape()[dim] * s.inner;
    if (run != 0)
      for (int64_t o = 0; o < s.outer; ++o)
        std::memcpy(out.data() + o * rowOut + col, p.data() + o * run,
                    run * sizeof(float));
    col += run;
  }
  return out;
}

Chunk tp::runtime::chunkOf(int64_t n, int64_t k, int64_t i) {
  if (n < 0 || k <= 0 || i < 0 || i >= k)
    throw std::invalid_argument("chunkOf(" + std::to_string(n) + ", " +
                                std::to_string(k) + ", " + std::to_string(i) +
                                "): need n >= 0, k > 0 and 0 <= i < k");
  int64_t chunk = n / k + (n % k != 0);
  int64_t begin = std::min(n, i * chunk);
  int64_t end = std::min(n, begin + chunk);
  return Chunk{begin, end - begin};
}
