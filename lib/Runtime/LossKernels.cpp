//===- LossKernels.cpp - reductions for the class-parallel loss -*- C++ -*-===//
//
// The pieces a cross entropy is decomposed into when its logits are sharded
// on the class dim: keepdim reductions, log, mean and the target logit.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/FloatOps.h"
#include "tp/Runtime/Kernels.h"

#include "KernelUtils.h"

#include <cmath>
#include <limits>
#include <stdexcept>

using namespace mlir::tp::runtime;

/// Applies `combine` along `dim`, keeping it with size 1.
template <typename Combine>
static Tensor reduceDim(const Tensor &x, int64_t dim, float init,
                        Combine combine, const char *name) {
  int64_t d = normalizeDim(dim, x.rank());
  std::vector<int64_t> outShape = x.shape();
  outShape[d] = 1;
  Tensor out = Tensor::full(outShape, init);
  int64_t outer = 1, inner = 1, n = x.dim(d);
  for (int64_t i = 0; i < d; ++i)
    outer *= x.dim(i);
  for (int64_t i = d + 1; i < x.rank(); ++i)
    inner *= x.dim(i);
  if (n == 0)
    throw std::invalid_argument(std::string(name) +
                                ": cannot reduce an empty dim");
  const float *src = x.data();
  float *dst = out.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i)
        dst[o * inner + i] =
            combine(dst[o * inner + i], src[(o * n + k) * inner + i]);
  return out;
}

Tensor mlir::tp::runtime::reduceMax(const Tensor &x, int64_t dim) {
  return reduceDim(x, dim, -std::numeric_limits<float>::infinity(), maxKeepNaN,
                   "reduceMax");
}

Tensor mlir::tp::runtime::reduceSum(const Tensor &x, int64_t dim) {
  return reduceDim(
      x, dim, 0.0f, [](float a, float b) { return a + b; }, "reduceSum");
}

Tensor mlir::tp::runtime::log(const Tensor &x) {
  Tensor out(x.shape());
  for (int64_t i = 0; i < x.numel(); ++i)
    out.data()[i] = std::log(x.data()[i]);
  return out;
}

Tensor mlir::tp::runtime::mean(const Tensor &x) {
  if (x.numel() == 0)
    return Tensor::scalar(std::numeric_limits<float>::quiet_NaN());
  double sum = 0;
  for (int64_t i = 0; i < x.numel(); ++i)
    sum += x.data()[i];
  return Tensor::scalar(static_cast<float>(sum / x.numel()));
}

Tensor mlir::tp::runtime::validRows(const Tensor &targets) {
  if (targets.rank() != 1)
    throw std::invalid_argument("validRows: targets " + targets.shapeString() +
                                " must be [N]");
  int64_t counted = 0;
  for (int64_t id : detail::readIds(targets, "validRows", "targets"))
    counted += id != -100;
  return Tensor::scalar(static_cast<float>(counted));
}

Tensor mlir::tp::runtime::targetLogit(const Tensor &logits,
                                      const Tensor &targets,
                                      int64_t classOffset) {
  if (logits.rank() != 2 || targets.rank() != 1 ||
      targets.dim(0) != logits.dim(0))
    throw std::invalid_argument("targetLogit: logits " + logits.shapeString() +
                                " and targets " + targets.shapeString() +
                                " must be [N, C] and [N]");
  if (classOffset < 0)
    throw std::invalid_argument("targetLogit: negative class offset " +
                                std::to_string(classOffset));
  int64_t n = logits.dim(0), c = logits.dim(1);
  Tensor out({n, 1});
  std::vector<int64_t> ids = detail::readIds(targets, "targetLogit", "targets");
  for (int64_t i = 0; i < n; ++i) {
    // Any integer is a valid target: one outside this shard's classes gives
    // zero. (classOffset >= 0, so t - classOffset cannot overflow.)
    int64_t t = ids[i];
    bool mine = t >= classOffset && t - classOffset < c;
    out.data()[i] = mine ? logits.data()[i * c + (t - classOffset)] : 0.0f;
  }
  return out;
}
