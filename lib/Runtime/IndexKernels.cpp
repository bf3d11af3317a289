//===- IndexKernels.cpp - topk, gather and one-hot on the CPU ---*- C++ -*-===//
//
// The kernels that compute or follow integer indices: a router's top-k
// expert choice, the values at those positions and their gradient, and
// ids as a one-hot mask. Floats are read through Tensor's f32 view (16-bit
// operands arrive widened); indices are I64 or I32.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "tp/Runtime/Kernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

using namespace mlir::tp::runtime;
using mlir::tp::runtime::detail::readIds;
using mlir::tp::runtime::detail::shapeError;

namespace {
/// \p index agrees with \p whole on every dim but \p dim.
void checkAlong(const char *op, const Tensor &whole, const Tensor &index,
                int64_t dim, const char *wholeName) {
  bool ok = whole.rank() == index.rank();
  for (int64_t d = 0; ok && d < whole.rank(); ++d)
    ok = d == dim || whole.shape()[d] == index.shape()[d];
  if (!ok)
    throw shapeError(op, "index of shape " + index.shapeString() +
                             " does not match " + wholeName + " of shape " +
                             whole.shapeString() + " outside dim " +
                             std::to_string(dim));
}

/// The index at \p value checked against \p size.
int64_t checkedIndex(const char *op, int64_t value, int64_t size) {
  if (value < 0 || value >= size)
    throw shapeError(op, "index " + std::to_string(value) +
                             " is out of range for a dim of size " +
                             std::to_string(size));
  return value;
}
} // namespace

Tensor mlir::tp::runtime::topk(const Tensor &x, int64_t dim, int64_t k) {
  dim = normalizeDim(dim, x.rank());
  DimSplit s = splitAround(x.shape(), dim);
  if (k < 0 || k > s.extent)
    throw shapeError("topk", "cannot pick " + std::to_string(k) + " of " +
                                 std::to_string(s.extent) +
                                 " elements along dim " + std::to_string(dim));
  std::vector<int64_t> shape = x.shape();
  shape[dim] = k;
  Tensor out = Tensor::uninitialized(shape, DType::I64);
  const float *src = x.data();
  int64_t *dst = out.dataI64();
  std::vector<int64_t> order(s.extent);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      const float *row = src + o * s.extent * s.inner + i;
      auto at = [&](int64_t j) { return row[j * s.inner]; };
      // Larger first; NaN above numbers; ties by position.
      auto before = [&](int64_t a, int64_t b) {
        float va = at(a), vb = at(b);
        bool na = std::isnan(va), nb = std::isnan(vb);
        if (na != nb)
          return na;
        if (!na && va != vb)
          return va > vb;
        return a < b;
      };
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j)
        dst[(o * k + j) * s.inner + i] = order[j];
    }
  return out;
}

Tensor mlir::tp::runtime::gather(const Tensor &x, int64_t dim,
                                 const Tensor &index) {
  dim = normalizeDim(dim, x.rank());
  checkAlong("gather", x, index, dim, "the input");
  std::vector<int64_t> ids = readIds(index, "gather", "index");
  DimSplit in = splitAround(x.shape(), dim);
  DimSplit s = splitAround(index.shape(), dim);
  Tensor out = Tensor::uninitialized(index.shape(), DType::F32);
  const float *src = x.data();
  float *dst = out.data();
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t j = 0; j < s.extent; ++j)
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t at = (o * s.extent + j) * s.inner + i;
        int64_t p = checkedIndex("gather", ids[at], in.extent);
        dst[at] = src[(o * in.extent + p) * in.inner + i];
      }
  return out;
}

Tensor mlir::tp::runtime::gatherGrad(const Tensor &g, int64_t dim,
                                     const Tensor &index, int64_t size) {
  dim = normalizeDim(dim, g.rank());
  if (g.shape() != index.shape())
    throw shapeError("gather_grad", "index of shape " + index.shapeString() +
                                        " does not match the gradient's " +
                                        g.shapeString());
  std::vector<int64_t> ids = readIds(index, "gather_grad", "index");
  std::vector<int64_t> shape = g.shape();
  shape[dim] = size;
  Tensor out(shape, DType::F32);
  DimSplit s = splitAround(g.shape(), dim);
  const float *src = g.data();
  float *dst = out.data();
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t j = 0; j < s.extent; ++j)
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t at = (o * s.extent + j) * s.inner + i;
        int64_t p = checkedIndex("gather_grad", ids[at], size);
        dst[(o * size + p) * s.inner + i] += src[at];
      }
  return out;
}

Tensor mlir::tp::runtime::oneHot(const Tensor &ids, int64_t classes) {
  if (classes < 1)
    throw shapeError("one_hot", "needs at least one class, got " +
                                    std::to_string(classes));
  std::vector<int64_t> values = readIds(ids, "one_hot", "ids");
  std::vector<int64_t> shape = ids.shape();
  shape.push_back(classes);
  Tensor out(shape, DType::I64);
  int64_t *dst = out.dataI64();
  for (size_t i = 0; i < values.size(); ++i)
    dst[static_cast<int64_t>(i) * classes +
        checkedIndex("one_hot", values[i], classes)] = 1;
  return out;
}
