//===- MaskKernels.cpp - comparisons, logic and where on the CPU -*- C++
//-*-===//
//
// Boolean masks: comparisons of float or integer tensors, logic on masks,
// and the selection between two float tensors by a mask. Every kernel
// broadcasts its operands as NumPy does (dims aligned at the end).
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "tp/Runtime/Kernels.h"

#include <string>

using namespace mlir::tp::runtime;
using mlir::tp::runtime::detail::broadcastOrThrow;
using mlir::tp::runtime::detail::broadcastStrides;
using mlir::tp::runtime::detail::shapeError;
using Shape = std::vector<int64_t>;

namespace {
/// Element \p i of \p t as a double: exact for every dtype a mask kernel
/// reads.
double element(const Tensor &t, int64_t i) {
  switch (t.dtype()) {
  case DType::F32:
    return t.data()[i];
  case DType::I64:
    return static_cast<double>(t.dataI64()[i]);
  case DType::I32:
    return t.dataI32()[i];
  case DType::Bool:
    return t.dataBool()[i];
  default:
    return t.at(i);
  }
}

/// The broadcast of \p operands' shapes; throws naming \p op.
Shape broadcastAll(const char *op,
                   const std::vector<const Tensor *> &operands) {
  Shape shape = operands[0]->shape();
  for (size_t k = 1; k < operands.size(); ++k)
    shape = broadcastOrThrow(op, shape, operands[k]->shape());
  return shape;
}

/// Calls fn(offsets, e) for every element e of \p shape (the broadcast of
/// \p operands' shapes), with each operand's flat offset.
template <typename Fn>
void forEachBroadcast(const std::vector<const Tensor *> &operands,
                      const Shape &shape, Fn fn) {
  std::vector<Shape> strides;
  for (const Tensor *t : operands)
    strides.push_back(broadcastStrides(t->shape(), shape));
  size_t rank = shape.size(), n = operands.size();
  int64_t total = shapeNumel(shape);
  Shape idx(rank, 0);
  std::vector<int64_t> off(n, 0);
  for (int64_t e = 0; e < total; ++e) {
    fn(off.data(), e);
    for (size_t d = rank; d-- > 0;) {
      for (size_t k = 0; k < n; ++k)
        off[k] += strides[k][d];
      if (++idx[d] < shape[d])
        break;
      for (size_t k = 0; k < n; ++k)
        off[k] -= strides[k][d] * shape[d];
      idx[d] = 0;
    }
  }
}

/// A Bool tensor of \p fn applied to the broadcast operands' offsets.
template <typename Fn>
Tensor maskOf(const char *op, const std::vector<const Tensor *> &operands,
              Fn fn) {
  Shape shape = broadcastAll(op, operands);
  Tensor out = Tensor::uninitialized(shape, DType::Bool);
  uint8_t *dst = out.dataBool();
  forEachBroadcast(operands, shape,
                   [&](const int64_t *off, int64_t e) { dst[e] = fn(off); });
  return out;
}
} // namespace

Predicate mlir::tp::runtime::parsePredicate(const std::string &name) {
  static const std::pair<const char *, Predicate> names[] = {
      {"eq", Predicate::Eq}, {"ne", Predicate::Ne}, {"lt", Predicate::Lt},
      {"le", Predicate::Le}, {"gt", Predicate::Gt}, {"ge", Predicate::Ge}};
  for (const auto &[spelling, p] : names)
    if (name == spelling)
      return p;
  throw std::invalid_argument("compare: unknown predicate '" + name +
                              "' (eq, ne, lt, le, gt, ge)");
}

Tensor mlir::tp::runtime::compare(const Tensor &a, const Tensor &b,
                                  Predicate pred) {
  return maskOf("compare", {&a, &b}, [&](const int64_t *off) -> uint8_t {
    double x = element(a, off[0]), y = element(b, off[1]);
    switch (pred) {
    case Predicate::Eq:
      return x == y;
    case Predicate::Ne:
      return x != y;
    case Predicate::Lt:
      return x < y;
    case Predicate::Le:
      return x <= y;
    case Predicate::Gt:
      return x > y;
    case Predicate::Ge:
      return x >= y;
    }
    return 0;
  });
}

Tensor mlir::tp::runtime::logicalNot(const Tensor &x) {
  return maskOf("logical_not", {&x}, [&](const int64_t *off) -> uint8_t {
    return element(x, off[0]) == 0;
  });
}

Tensor mlir::tp::runtime::logicalAnd(const Tensor &a, const Tensor &b) {
  return maskOf("logical_and", {&a, &b}, [&](const int64_t *off) -> uint8_t {
    return element(a, off[0]) != 0 && element(b, off[1]) != 0;
  });
}

Tensor mlir::tp::runtime::logicalOr(const Tensor &a, const Tensor &b) {
  return maskOf("logical_or", {&a, &b}, [&](const int64_t *off) -> uint8_t {
    return element(a, off[0]) != 0 || element(b, off[1]) != 0;
  });
}

Tensor mlir::tp::runtime::where(const Tensor &cond, const Tensor &x,
                                const Tensor &y) {
  std::vector<const Tensor *> operands = {&cond, &x, &y};
  Shape shape = broadcastAll("where", operands);
  Tensor out = Tensor::uninitialized(shape, DType::F32);
  float *dst = out.data();
  const float *xs = x.data();
  const float *ys = y.data();
  forEachBroadcast(operands, shape, [&](const int64_t *off, int64_t e) {
    dst[e] = element(cond, off[0]) != 0 ? xs[off[1]] : ys[off[2]];
  });
  return out;
}
