//===- KernelUtils.cpp - Operand checks of the CPU and GPU kernels -*- C++ -*-//
//
// The shape checks (and their messages) that the CPU kernels and the GPU
// kernels (lib/Runtime/cuda/DeviceKernels.cpp) share; see KernelUtils.h.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"

#include "tp/Runtime/Tensor.h"

#include <algorithm>

using namespace mlir::tp::runtime;
using namespace mlir::tp::runtime::detail;

std::invalid_argument detail::shapeError(const std::string &op,
                                         const std::string &message) {
  return std::invalid_argument(op + ": " + message);
}

Shape detail::broadcastOrThrow(const char *op, const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t ea = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t eb = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      throw shapeError(op, "shapes " + shapeToString(a) + " and " +
                               shapeToString(b) + " do not broadcast");
    out[rank - 1 - i] = ea == 1 ? eb : ea;
  }
  return out;
}

Shape detail::broadcastStrides(const Shape &shape, const Shape &out) {
  size_t rank = out.size();
  Shape strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    size_t d = shape.size() - 1 - i;
    size_t o = rank - 1 - i;
    strides[o] = shape[d] == 1 && out[o] != 1 ? 0 : stride;
    stride *= shape[d];
  }
  return strides;
}

LinearDims detail::checkLinear(const Shape &x, const Shape &w,
                               const Shape *bias) {
  if (x.empty() || w.size() != 2 || x.back() != w[1])
    throw shapeError(
        "linear", "input " + shapeToString(x) + " does not match weight " +
                      shapeToString(w) + " (expected [..., in] and [out, in])");
  int64_t in = w[1], out = w[0];
  if (bias && (bias->size() != 1 || (*bias)[0] != out))
    throw shapeError("linear", "bias " + shapeToString(*bias) +
                                   " does not match weight " +
                                   shapeToString(w));
  Shape shape = x;
  shape.back() = out;
  int64_t rows = shapeNumel(Shape(x.begin(), x.end() - 1));
  return {rows, in, out, std::move(shape)};
}

MatmulDims detail::checkMatmul(const Shape &a, const Shape &b) {
  if (a.size() < 2 || b.size() < 2 || a.back() != b[b.size() - 2])
    throw shapeError("matmul", "shapes " + shapeToString(a) + " and " +
                                   shapeToString(b) +
                                   " do not fit [..., m, k] @ [..., k, n]");
  MatmulDims dims;
  dims.m = a[a.size() - 2];
  dims.k = a.back();
  dims.n = b.back();
  dims.batchA.assign(a.begin(), a.end() - 2);
  dims.batchB.assign(b.begin(), b.end() - 2);
  dims.batch = broadcastOrThrow("matmul", dims.batchA, dims.batchB);
  dims.shape = dims.batch;
  dims.shape.push_back(dims.m);
  dims.shape.push_back(dims.n);
  return dims;
}

RowDims detail::checkNorm(const char *op, const Shape &x, const Shape *weight,
                          const Shape *bias) {
  if (x.empty())
    throw shapeError(op, "input must have rank >= 1");
  auto checkVector = [&](const char *what, const Shape *v) {
    if (v && (v->size() != 1 || (*v)[0] != x.back()))
      throw shapeError(op, std::string(what) + " " + shapeToString(*v) +
                               " does not match the last dimension of input " +
                               shapeToString(x));
  };
  checkVector("weight", weight);
  checkVector("bias", bias);
  int64_t d = x.back();
  return {d ? shapeNumel(x) / d : 0, d};
}

RowDims detail::checkEmbeddingWeight(const char *op, const Shape &weight) {
  if (weight.size() != 2)
    throw shapeError(op, "weight " + shapeToString(weight) +
                             " must be [rows, dim]");
  return {weight[0], weight[1]};
}

std::invalid_argument detail::idOutOfRange(const char *op, int64_t id,
                                           int64_t offset, int64_t rows) {
  return std::invalid_argument(std::string(op) + ": id " + std::to_string(id) +
                               " out of range [" + std::to_string(offset) +
                               ", " + std::to_string(offset + rows) + ")");
}

void detail::checkRotary(const Shape &x) {
  if (x.size() != 4 || x[3] % 2 != 0)
    throw std::invalid_argument("rotary: input " + shapeToString(x) +
                                " must be [batch, seq, heads, dim] with an "
                                "even dim");
}

AttentionDims detail::checkAttention(const Shape &q, const Shape &k,
                                     const Shape &v, bool causal) {
  auto fail = [&](const std::string &why) {
    return std::invalid_argument("attention: " + why + " (q " +
                                 shapeToString(q) + ", k " + shapeToString(k) +
                                 ", v " + shapeToString(v) + ")");
  };
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    throw fail("q, k and v must be [batch, seq, heads, dim]");
  AttentionDims a{q[0], q[1], k[1], q[2], k[2], q[3], v[3]};
  if (k[0] != a.b || v[0] != a.b)
    throw fail("batch sizes differ");
  if (k[3] != a.d)
    throw fail("q and k head dims differ");
  if (v[1] != a.t || v[2] != a.hkv)
    throw fail("k and v disagree on sequence length or heads");
  if (a.hkv == 0 || a.hq % a.hkv != 0)
    throw fail("query heads are not a multiple of kv heads");
  if (causal && a.t != a.s)
    throw fail("causal attention needs equal query and key lengths");
  return a;
}
