//===- LowPrecisionChecks.h - 16-bit collective checks ----------*- C++ -*-===//
//
// One rank's part of a test of every collective on bf16 and f16 buffers,
// shared by the threads and MPI backend tests: data moves bit for bit, and
// reductions equal the f32 reduction over ranks (in rank order) rounded once.
//
//===----------------------------------------------------------------------===//

#ifndef TP_UNITTESTS_RUNTIME_LOWPRECISIONCHECKS_H
#define TP_UNITTESTS_RUNTIME_LOWPRECISIONCHECKS_H

#include "tp/Runtime/Communicator.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tp::runtime::test {

/// Rank r's element i in \p dtype: values whose sums need rounding
/// (fractions, mixed signs, magnitudes far apart).
inline uint16_t lowPrecisionValue(DType dtype, int r, size_t i) {
  float v = (static_cast<float>((i * 37 + r * 11) % 97) - 48.0f) / 7.0f;
  if (i % 5 == 0)
    v *= 256.0f;
  return dtype == DType::BF16 ? floatToBF16(v) : floatToF16(v);
}

inline float widen(DType dtype, uint16_t h) {
  return dtype == DType::BF16 ? bf16ToFloat(h) : f16ToFloat(h);
}

/// The expected reduction of element i over ranks 0..n-1 (block offset
/// \p base), accumulated in f32 in rank order and rounded once.
inline uint16_t expectedReduction(DType dtype, ReduceOp op, int n, size_t i) {
  float acc = widen(dtype, lowPrecisionValue(dtype, 0, i));
  for (int p = 1; p < n; ++p) {
    float v = widen(dtype, lowPrecisionValue(dtype, p, i));
    if (op == ReduceOp::Sum || op == ReduceOp::Avg)
      acc += v;
    else if (op == ReduceOp::Max)
      acc = std::max(acc, v);
    else
      acc = std::min(acc, v);
  }
  if (op == ReduceOp::Avg)
    acc /= static_cast<float>(n);
  return dtype == DType::BF16 ? floatToBF16(acc) : floatToF16(acc);
}

inline void expectBits(bool ok, const std::string &what) {
  if (!ok)
    throw std::runtime_error("16-bit collective check failed: " + what);
}

/// Runs every collective on \p dtype buffers on this rank and throws
/// std::runtime_error naming the first wrong result.
inline void checkLowPrecisionCollectives(Communicator &comm, DType dtype) {
  int r = comm.rank(), n = comm.size();
  const size_t count = 1001; // odd, not a multiple of any rank count > 1
  std::vector<uint16_t> mine(count), out(count * n);
  for (size_t i = 0; i < count; ++i)
    mine[i] = lowPrecisionValue(dtype, r, i);
  std::string tag =
      std::string(dtypeName(dtype)) + " on " + std::to_string(n) + " ranks: ";

  comm.allGather(mine.data(), count, out.data(), dtype);
  for (int p = 0; p < n; ++p)
    for (size_t i = 0; i < count; ++i)
      expectBits(out[p * count + i] == lowPrecisionValue(dtype, p, i),
                 tag + "all_gather block " + std::to_string(p));

  for (ReduceOp op :
       {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min}) {
    std::vector<uint16_t> red(count);
    comm.allReduce(mine.data(), red.data(), count, dtype, op);
    for (size_t i = 0; i < count; ++i)
      expectBits(red[i] == expectedReduction(dtype, op, n, i),
                 tag + "all_reduce " + reduceOpName(op) + " element " +
                     std::to_string(i));
    // In place.
    std::vector<uint16_t> inPlace = mine;
    comm.allReduce(inPlace.data(), inPlace.data(), count, dtype, op);
    expectBits(inPlace == red, tag + "in-place all_reduce");
  }

  // reduce_scatter: rank r's input block q is element range of "virtual"
  // index q*per + i, so block q reduces to expectedReduction at those indices.
  const size_t per = 37;
  std::vector<uint16_t> full(per * n), scattered(per);
  for (size_t i = 0; i < per * n; ++i)
    full[i] = lowPrecisionValue(dtype, r, i);
  comm.reduceScatter(full.data(), scattered.data(), per, dtype, ReduceOp::Sum);
  for (size_t i = 0; i < per; ++i)
    expectBits(scattered[i] ==
                   expectedReduction(dtype, ReduceOp::Sum, n, r * per + i),
               tag + "reduce_scatter element " + std::to_string(i));

  std::vector<uint16_t> exchanged(per * n);
  comm.allToAll(full.data(), exchanged.data(), per, dtype);
  for (int p = 0; p < n; ++p)
    for (size_t i = 0; i < per; ++i)
      expectBits(exchanged[p * per + i] ==
                     lowPrecisionValue(dtype, p, r * per + i),
                 tag + "all_to_all block " + std::to_string(p));

  std::vector<uint16_t> bcast = mine;
  comm.broadcast(bcast.data(), count, dtype, n - 1);
  for (size_t i = 0; i < count; ++i)
    expectBits(bcast[i] == lowPrecisionValue(dtype, n - 1, i),
               tag + "broadcast element " + std::to_string(i));

  // Tensor helpers keep the dtype.
  Tensor t({2, 3}, dtype);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<uint16_t *>(t.raw())[i] = lowPrecisionValue(dtype, r, i);
  Tensor g = allGatherDim(comm, t, 1);
  expectBits(g.dtype() == dtype && g.shape() == std::vector<int64_t>{2, 3 * n},
             tag + "allGatherDim shape/dtype");
  for (int p = 0; p < n; ++p)
    for (int64_t row = 0; row < 2; ++row)
      for (int64_t c = 0; c < 3; ++c)
        expectBits(
            static_cast<const uint16_t *>(g.raw())[row * 3 * n + p * 3 + c] ==
                lowPrecisionValue(dtype, p, row * 3 + c),
            tag + "allGatherDim element");
}

} // namespace mlir::tp::runtime::test

#endif // TP_UNITTESTS_RUNTIME_LOWPRECISIONCHECKS_H
