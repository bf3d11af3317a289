//===- IntegerChecks.h - integer collective checks --------------*- C++ -*-===//
//
// One rank's part of a test of every collective on I64 and I32 tensors,
// shared by the threads, MPI and device backend tests: data moves exactly,
// sum, max and min are the exact integer reductions over ranks (values
// beyond 2^24 and of both signs, which f32 would round), and avg throws.
//
//===----------------------------------------------------------------------===//

#ifndef TP_UNITTESTS_RUNTIME_INTEGERCHECKS_H
#define TP_UNITTESTS_RUNTIME_INTEGERCHECKS_H

#include "tp/Runtime/Communicator.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tp::runtime::test {

/// Rank r's element i in \p dtype: beyond 2^24 (2^40 for I64), mixed signs
/// across ranks and elements, small enough that four ranks' I32 sums fit.
inline int64_t intValue(DType dtype, int r, int64_t i) {
  int64_t base = dtype == DType::I64 ? (int64_t(1) << 40) : (int64_t(1) << 26);
  int64_t v = base + r * 1000003 + i * 7919;
  return (i + r) % 3 == 0 ? -v : v;
}

/// The tensor of \p shape whose element i is intValue(dtype, r, offset + i).
inline Tensor intTensor(DType dtype, int r, std::vector<int64_t> shape,
                        int64_t offset = 0) {
  std::vector<int64_t> v(shapeNumel(shape));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = intValue(dtype, r, offset + static_cast<int64_t>(i));
  return Tensor::fromInts(std::move(shape), v, dtype);
}

/// The exact reduction over ranks 0..n-1 of element i.
inline int64_t intReduction(DType dtype, ReduceOp op, int n, int64_t i) {
  int64_t acc = intValue(dtype, 0, i);
  for (int p = 1; p < n; ++p) {
    int64_t v = intValue(dtype, p, i);
    acc = op == ReduceOp::Sum   ? acc + v
          : op == ReduceOp::Max ? std::max(acc, v)
                                : std::min(acc, v);
  }
  return acc;
}

inline void expectInts(bool ok, const std::string &what) {
  if (!ok)
    throw std::runtime_error("integer collective check failed: " + what);
}

/// Runs every tensor collective on \p dtype (I64 or I32) tensors on this
/// rank and throws std::runtime_error naming the first wrong result. \p up
/// turns a host Tensor into the backend's buffer (the identity on host
/// memory, an upload for device tensors), \p down turns it back.
template <class Up, class Down>
void checkIntegerCollectives(Communicator &comm, DType dtype, Up up,
                             Down down) {
  int r = comm.rank(), n = comm.size();
  const int64_t count = 1001; // odd, not a multiple of any rank count > 1
  std::string tag =
      std::string(dtypeName(dtype)) + " on " + std::to_string(n) + " ranks: ";

  // all_gather along an inner dim.
  Tensor local = intTensor(dtype, r, {3, 5});
  std::vector<Tensor> blocks;
  for (int p = 0; p < n; ++p)
    blocks.push_back(intTensor(dtype, p, {3, 5}));
  expectInts(down(allGatherDim(comm, up(local), 1)) == concatDim(blocks, 1),
             tag + "all_gather");

  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
    auto buf = up(intTensor(dtype, r, {count}));
    allReduceInPlace(comm, buf, op);
    Tensor got = down(buf);
    expectInts(got.dtype() == dtype, tag + "all_reduce dtype");
    for (int64_t i = 0; i < count; ++i)
      expectInts(got.atInt(i) == intReduction(dtype, op, n, i),
                 tag + "all_reduce " + reduceOpName(op) + " element " +
                     std::to_string(i));
  }
  // No rounding rule for an integer average: every rank refuses it before
  // it communicates.
  bool threw = false;
  try {
    auto buf = up(intTensor(dtype, r, {4}));
    allReduceInPlace(comm, buf, ReduceOp::Avg);
  } catch (const std::invalid_argument &e) {
    threw = std::string(e.what()).find("op avg is not defined on") !=
            std::string::npos;
  }
  expectInts(threw, tag + "all_reduce avg did not throw invalid_argument");

  // reduce_scatter: block q of every rank holds elements q*per .. of the
  // same "virtual" index range, so rank r receives the reductions there.
  const int64_t per = 37;
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
    Tensor got =
        down(reduceScatterDim(comm, up(intTensor(dtype, r, {n * per})), 0, op));
    for (int64_t i = 0; i < per; ++i)
      expectInts(got.atInt(i) == intReduction(dtype, op, n, r * per + i),
                 tag + "reduce_scatter " + reduceOpName(op) + " element " +
                     std::to_string(i));
  }

  // all_to_all: row q of rank p's [n, per] becomes row p of rank q's.
  std::vector<Tensor> rows;
  for (int p = 0; p < n; ++p)
    rows.push_back(sliceDim(intTensor(dtype, p, {n, per}), 0, r, 1));
  expectInts(down(allToAllDims(comm, up(intTensor(dtype, r, {n, per})), 0,
                               0)) == concatDim(rows, 0),
             tag + "all_to_all");

  expectInts(down(broadcastTensor(comm, up(intTensor(dtype, r, {count})),
                                  n - 1)) == intTensor(dtype, n - 1, {count}),
             tag + "broadcast");
}

} // namespace mlir::tp::runtime::test

#endif // TP_UNITTESTS_RUNTIME_INTEGERCHECKS_H
