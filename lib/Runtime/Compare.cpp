//===- Compare.cpp - a computed tensor against a reference ------*- C++ -*-===//
//
// Errors and non-finite values of a result against its reference, for
// `tp-run --verify` (see Compare.h for the rules).
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Compare.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

using namespace mlir::tp::runtime;

Comparison mlir::tp::runtime::compareWithReference(const Tensor &actual,
                                                   const Tensor &reference) {
  if (actual.shape() != reference.shape())
    throw std::invalid_argument("compare: shape [" + actual.shapeString() +
                                "] against reference [" +
                                reference.shapeString() + "]");
  Comparison c;
  for (int64_t i = 0, n = actual.numel(); i < n; ++i) {
    float a = actual.at(i), b = reference.at(i);
    if (std::isfinite(b))
      c.maxReference = std::max(c.maxReference, (double)std::fabs(b));
    if (std::isfinite(a) && std::isfinite(b)) {
      c.maxAbsError = std::max(c.maxAbsError, std::fabs((double)a - b));
      continue;
    }
    ++c.nonFinite;
    if (c.firstNonFinite < 0)
      c.firstNonFinite = i;
    bool same = std::isnan(a) ? std::isnan(b) : a == b;
    if (!same && c.firstMismatch < 0)
      c.firstMismatch = i;
  }
  return c;
}

int64_t mlir::tp::runtime::findNonFinite(const Tensor &t) {
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    if (!std::isfinite(t.at(i)))
      return i;
  return -1;
}

std::string mlir::tp::runtime::indexString(const std::vector<int64_t> &shape,
                                           int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d)
    s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

std::string mlir::tp::runtime::valueString(float v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
