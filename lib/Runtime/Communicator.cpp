//===- Communicator.cpp - Collective communication interface ----*- C++ -*-===//
//
// Names, the mismatch message, the prologue every backend's collectives share
// (statistics, argument checks), and the tensor-level collectives that pack a
// dimension into contiguous per-rank blocks around the raw buffer collectives.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Communicator.h"
#include "tp/Runtime/FloatOps.h"

#include "TensorCollectives.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace mlir::tp::runtime;

const char *mlir::tp::runtime::reduceOpName(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return "sum";
  case ReduceOp::Avg:
    return "avg";
  case ReduceOp::Max:
    return "max";
  case ReduceOp::Min:
    return "min";
  }
  return "?";
}

const char *mlir::tp::runtime::collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Broadcast:
    return "broadcast";
  case CollectiveKind::Barrier:
    return "barrier";
  case CollectiveKind::Split:
    return "split";
  }
  return "?";
}

bool mlir::tp::runtime::isReduction(CollectiveKind kind) {
  return kind == CollectiveKind::AllReduce ||
         kind == CollectiveKind::ReduceScatter;
}

std::string CollectiveCall::describe() const {
  std::string s = collectiveName(kind);
  if (kind == CollectiveKind::Barrier || kind == CollectiveKind::Split)
    return s + "()";
  s += "(count=" + std::to_string(count);
  if (dtype != DType::F32)
    s += std::string(", dtype=") + dtypeName(dtype);
  if (isReduction(kind))
    s += std::string(", op=") + reduceOpName(op);
  if (kind == CollectiveKind::Broadcast)
    s += ", root=" + std::to_string(root);
  return s + ")";
}

void CollectiveCall::pack(int64_t *d) const {
  bool hasCount =
      kind != CollectiveKind::Barrier && kind != CollectiveKind::Split;
  d[0] = static_cast<int64_t>(kind);
  d[1] = hasCount ? static_cast<int64_t>(count) : 0;
  d[2] = isReduction(kind) ? static_cast<int64_t>(op) : 0;
  d[3] = kind == CollectiveKind::Broadcast ? root : 0;
  d[4] = hasCount ? static_cast<int64_t>(dtype) : 0;
}

CollectiveCall CollectiveCall::unpack(const int64_t *d) {
  CollectiveCall c;
  c.kind = static_cast<CollectiveKind>(d[0]);
  c.count = static_cast<size_t>(d[1]);
  c.op = static_cast<ReduceOp>(d[2]);
  c.root = static_cast<int>(d[3]);
  c.dtype = static_cast<DType>(d[4]);
  return c;
}

bool mlir::tp::runtime::bytesOverlap(const void *a, size_t na, const void *b,
                                     size_t nb) {
  std::less<const char *> lt;
  const char *x = static_cast<const char *>(a),
             *y = static_cast<const char *>(b);
  return na && nb && lt(x, y + nb) && lt(y, x + na);
}

std::string mlir::tp::runtime::collectiveMismatch(const int64_t *packed, int n,
                                                  const int *ranks) {
  constexpr int k = CollectiveCall::kPackedSize;
  auto name = [&](int q) { return std::to_string(ranks ? ranks[q] : q); };
  auto describe = [&](int q) {
    return CollectiveCall::unpack(packed + k * q).describe();
  };
  std::string diff;
  for (int q = 1; q < n; ++q)
    if (!std::equal(packed + k * q, packed + k * (q + 1), packed))
      diff += ", rank " + name(q) + " called " + describe(q);
  if (diff.empty())
    return "";
  return "collective mismatch: rank " + name(0) + " called " + describe(0) +
         diff;
}

Communicator::~Communicator() = default;

void Communicator::recordCall(CollectiveKind kind, size_t inputBytes) {
  ++stats_.counts[collectiveName(kind)];
  stats_.bytes += static_cast<int64_t>(inputBytes);
}

namespace {
/// The call every rank must agree on.
CollectiveCall makeCall(CollectiveKind kind, size_t count, DType dtype,
                        ReduceOp op = ReduceOp::Sum, int root = 0) {
  return CollectiveCall{kind, count, op, root, dtype};
}

/// Throws std::invalid_argument for an average of integers: like
/// torch.distributed, which has no integer ReduceOp.AVG, the runtime does not
/// pick a rounding for it.
void checkReduction(const CollectiveCall &call) {
  if (call.op == ReduceOp::Avg && isIntegerDType(call.dtype))
    throw std::invalid_argument(
        std::string(collectiveName(call.kind)) + ": op avg is not defined on " +
        dtypeName(call.dtype) + " (use sum, max or min for integers)");
}

/// Throws std::invalid_argument if \p call moves data through a null buffer.
void checkBuffers(const CollectiveCall &call, const void *in, const void *out) {
  if (call.count && (!in || !out))
    throw std::invalid_argument(std::string(collectiveName(call.kind)) +
                                ": null buffer with count " +
                                std::to_string(call.count));
}
} // namespace

// Each collective counts itself before anything can fail, so that stats()
// includes failed calls.

void Communicator::allGather(const void *in, size_t count, void *out,
                             DType dtype) {
  recordCall(CollectiveKind::AllGather, count * dtypeSize(dtype));
  CollectiveCall call = makeCall(CollectiveKind::AllGather, count, dtype);
  checkBuffers(call, in, out);
  doAllGather(call, in, out);
}

void Communicator::allReduce(const void *in, void *out, size_t count,
                             DType dtype, ReduceOp op) {
  recordCall(CollectiveKind::AllReduce, count * dtypeSize(dtype));
  CollectiveCall call = makeCall(CollectiveKind::AllReduce, count, dtype, op);
  checkReduction(call);
  checkBuffers(call, in, out);
  doAllReduce(call, in, out);
}

void Communicator::reduceScatter(const void *in, void *out, size_t countPerRank,
                                 DType dtype, ReduceOp op) {
  recordCall(CollectiveKind::ReduceScatter,
             static_cast<size_t>(size()) * countPerRank * dtypeSize(dtype));
  CollectiveCall call =
      makeCall(CollectiveKind::ReduceScatter, countPerRank, dtype, op);
  checkReduction(call);
  checkBuffers(call, in, out);
  doReduceScatter(call, in, out);
}

void Communicator::allToAll(const void *in, void *out, size_t countPerRank,
                            DType dtype) {
  recordCall(CollectiveKind::AllToAll,
             static_cast<size_t>(size()) * countPerRank * dtypeSize(dtype));
  CollectiveCall call = makeCall(CollectiveKind::AllToAll, countPerRank, dtype);
  checkBuffers(call, in, out);
  doAllToAll(call, in, out);
}

void Communicator::broadcast(void *buf, size_t count, DType dtype, int root) {
  recordCall(CollectiveKind::Broadcast, count * dtypeSize(dtype));
  if (root < 0 || root >= size())
    throw std::invalid_argument("broadcast: root " + std::to_string(root) +
                                " out of range for " + std::to_string(size()) +
                                " ranks");
  CollectiveCall call =
      makeCall(CollectiveKind::Broadcast, count, dtype, ReduceOp::Sum, root);
  checkBuffers(call, buf, buf);
  doBroadcast(call, buf);
}

void Communicator::barrier() {
  recordCall(CollectiveKind::Barrier, 0);
  doBarrier(CollectiveCall{CollectiveKind::Barrier});
}

std::unique_ptr<Communicator> Communicator::split(int color, int key) {
  recordCall(CollectiveKind::Split, 0);
  return doSplit(CollectiveCall{CollectiveKind::Split}, color, key);
}

std::unique_ptr<Communicator> Communicator::doSplit(const CollectiveCall &, int,
                                                    int) {
  throw CommError("this communicator backend does not support split");
}

namespace {
/// reduceBuffers on integers of type \p I: exact, in source order; sums wrap
/// modulo 2^bits (two's complement, as torch's integer sums do) instead of
/// overflowing.
template <typename I>
void reduceInts(void *dst, const void *const *srcs, size_t n, size_t count,
                ReduceOp op) {
  using U = std::make_unsigned_t<I>;
  I *out = static_cast<I *>(dst);
  for (size_t i = 0; i < count; ++i) {
    I acc = static_cast<const I *>(srcs[0])[i];
    for (size_t p = 1; p < n; ++p) {
      I v = static_cast<const I *>(srcs[p])[i];
      switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: // rejected by the collectives
        acc = static_cast<I>(static_cast<U>(acc) + static_cast<U>(v));
        break;
      case ReduceOp::Max:
        acc = std::max(acc, v);
        break;
      case ReduceOp::Min:
        acc = std::min(acc, v);
        break;
      }
    }
    out[i] = acc;
  }
}
} // namespace

void mlir::tp::runtime::reduceBuffers(void *dst, const void *const *srcs,
                                      size_t n, size_t count, DType dtype,
                                      ReduceOp op) {
  if (isIntegerDType(dtype)) {
    if (op == ReduceOp::Avg)
      throw std::invalid_argument(
          std::string("reduceBuffers: op avg is not defined on ") +
          dtypeName(dtype));
    if (dtype == DType::I64)
      reduceInts<int64_t>(dst, srcs, n, count, op);
    else
      reduceInts<int32_t>(dst, srcs, n, count, op);
    return;
  }
  constexpr size_t tile = 512;
  size_t es = dtypeSize(dtype);
  float acc[tile], in[tile];
  for (size_t base = 0; base < count; base += tile) {
    size_t m = std::min(tile, count - base);
    toFloat(static_cast<const char *>(srcs[0]) + base * es, dtype, acc, m);
    for (size_t p = 1; p < n; ++p) {
      const float *s = in;
      if (dtype == DType::F32)
        s = static_cast<const float *>(srcs[p]) + base;
      else
        toFloat(static_cast<const char *>(srcs[p]) + base * es, dtype, in, m);
      switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        for (size_t i = 0; i < m; ++i)
          acc[i] += s[i];
        break;
      case ReduceOp::Max:
        for (size_t i = 0; i < m; ++i)
          acc[i] = maxKeepNaN(acc[i], s[i]);
        break;
      case ReduceOp::Min:
        for (size_t i = 0; i < m; ++i)
          acc[i] = minKeepNaN(acc[i], s[i]);
        break;
      }
    }
    if (op == ReduceOp::Avg) {
      float k = static_cast<float>(n);
      for (size_t i = 0; i < m; ++i)
        acc[i] /= k;
    }
    fromFloat(acc, dtype, static_cast<char *>(dst) + base * es, m);
  }
}

namespace {
/// The host side of TensorCollectives.h: tensors in memory, row copies by
/// memcpy.
struct HostOps {
  static Tensor empty(std::vector<int64_t> shape, DType dtype) {
    return Tensor(std::move(shape), dtype);
  }
  static void copyRows(void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t rows) {
    if (width == 0)
      return;
    for (size_t r = 0; r < rows; ++r)
      std::memcpy(static_cast<char *>(dst) + r * dpitch,
                  static_cast<const char *>(src) + r * spitch, width);
  }
};
using Host = detail::TensorCollectives<HostOps>;
} // namespace

Tensor mlir::tp::runtime::allGatherDim(Communicator &comm, const Tensor &local,
                                       int64_t dim) {
  return Host::allGatherDim(comm, local, dim);
}

Tensor mlir::tp::runtime::reduceScatterDim(Communicator &comm, const Tensor &x,
                                           int64_t dim, ReduceOp op) {
  return Host::reduceScatterDim(comm, x, dim, op);
}

Tensor mlir::tp::runtime::allToAllDims(Communicator &comm, const Tensor &x,
                                       int64_t splitDim, int64_t concatDim) {
  return Host::allToAllDims(comm, x, splitDim, concatDim);
}

void mlir::tp::runtime::allReduceInPlace(Communicator &comm, Tensor &x,
                                         ReduceOp op) {
  comm.allReduce(x.raw(), x.raw(), x.numel(), x.dtype(), op);
}

Tensor mlir::tp::runtime::broadcastTensor(Communicator &comm, const Tensor &x,
                                          int root) {
  Tensor out = x;
  comm.broadcast(out.raw(), out.numel(), x.dtype(), root);
  return out;
}
