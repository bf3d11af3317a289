//===- Communicator.cpp - Collective communication interface ----*- C++ -*-===//
//
// Names, statistics, and the tensor-level collectives that pack a dimension
// into contiguous per-rank blocks around the raw buffer collectives.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Communicator.h"

#include <cstring>
#include <vector>

using namespace tp::runtime;

const char *tp::runtime::reduceOpName(ReduceOp op) {
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

const char *tp::runtime::collectiveName(CollectiveKind kind) {
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

Communicator::~Communicator() = default;

std::unique_ptr<Communicator> Communicator::split(int, int) {
  throw CommError("this communicator backend does not support split");
}

void Communicator::recordCall(CollectiveKind kind, size_t inputBytes) {
  ++stats_.counts[collectiveName(kind)];
  stats_.bytes += static_cast<int64_t>(inputBytes);
}

namespace {
/// Extents of a shape viewed as [outer, extent, inner] around one dimension.
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

/// Copies \p x, whose extent along \p dim is n*piece, into n contiguous
/// blocks, block p holding the range [p*piece, (p+1)*piece) of \p dim.
std::vector<float> packBlocks(const Tensor &x, int64_t dim, int n) {
  DimSplit s = splitAround(x.shape(), dim);
  int64_t run = s.extent / n * s.inner;
  int64_t blockNumel = s.outer * run;
  std::vector<float> blocks(x.numel());
  if (run == 0)
    return blocks;
  for (int p = 0; p < n; ++p)
    for (int64_t o = 0; o < s.outer; ++o)
      std::memcpy(blocks.data() + p * blockNumel + o * run,
                  x.data() + o * s.extent * s.inner + p * run,
                  run * sizeof(float));
  return blocks;
}

/// Inverse of packBlocks: n contiguous blocks of \p blockShape become one
/// tensor concatenated along \p dim.
Tensor unpackBlocks(const float *blocks, std::vector<int64_t> blockShape,
                    int64_t dim, int n) {
  DimSplit s = splitAround(blockShape, dim);
  int64_t run = s.extent * s.inner;
  int64_t blockNumel = s.outer * run;
  blockShape[dim] *= n;
  Tensor out(std::move(blockShape));
  if (run == 0)
    return out;
  for (int p = 0; p < n; ++p)
    for (int64_t o = 0; o < s.outer; ++o)
      std::memcpy(out.data() + o * n * run + p * run,
                  blocks + p * blockNumel + o * run, run * sizeof(float));
  return out;
}

void checkDivisible(const Tensor &x, int64_t dim, int n, const char *what) {
  if (x.shape()[dim] % n != 0)
    throw std::invalid_argument(std::string(what) + ": dimension " +
                                std::to_string(dim) + " of shape " +
                                x.shapeString() + " is not divisible by " +
                                std::to_string(n) + " ranks");
}
} // namespace

Tensor tp::runtime::allGatherDim(Communicator &comm, const Tensor &local,
                                 int64_t dim) {
  dim = normalizeDim(dim, local.rank());
  int n = comm.size();
  std::vector<float> gathered(static_cast<size_t>(local.numel()) * n);
  comm.allGather(local.data(), local.numel(), gathered.data());
  if (dim == 0 || n == 1) {
    std::vector<int64_t> shape = local.shape();
    shape[dim] *= n;
    return Tensor::fromData(std::move(shape), std::move(gathered));
  }
  return unpackBlocks(gathered.data(), local.shape(), dim, n);
}

Tensor tp::runtime::reduceScatterDim(Communicator &comm, const Tensor &x,
                                     int64_t dim, ReduceOp op) {
  dim = normalizeDim(dim, x.rank());
  int n = comm.size();
  checkDivisible(x, dim, n, "reduceScatterDim");
  std::vector<int64_t> shape = x.shape();
  shape[dim] /= n;
  Tensor out(std::move(shape));
  if (dim == 0) {
    comm.reduceScatter(x.data(), out.data(), out.numel(), op);
  } else {
    std::vector<float> blocks = packBlocks(x, dim, n);
    comm.reduceScatter(blocks.data(), out.data(), out.numel(), op);
  }
  return out;
}

Tensor tp::runtime::allToAllDims(Communicator &comm, const Tensor &x,
                                 int64_t splitDim, int64_t concatDim) {
  splitDim = normalizeDim(splitDim, x.rank());
  concatDim = normalizeDim(concatDim, x.rank());
  int n = comm.size();
  checkDivisible(x, splitDim, n, "allToAllDims");
  std::vector<int64_t> chunkShape = x.shape();
  chunkShape[splitDim] /= n;
  size_t countPerRank = static_cast<size_t>(shapeNumel(chunkShape));
  std::vector<float> received(countPerRank * n);
  if (splitDim == 0) {
    comm.allToAll(x.data(), received.data(), countPerRank);
  } else {
    std::vector<float> blocks = packBlocks(x, splitDim, n);
    comm.allToAll(blocks.data(), received.data(), countPerRank);
  }
  if (concatDim == 0 || n == 1) {
    chunkShape[concatDim] *= n;
    return Tensor::fromData(std::move(chunkShape), std::move(received));
  }
  return unpackBlocks(received.data(), std::move(chunkShape), concatDim, n);
}

void tp::runtime::allReduceInPlace(Communicator &comm, Tensor &x, ReduceOp op) {
  comm.allReduce(x.data(), x.data(), x.numel(), op);
}

Tensor tp::runtime::broadcastTensor(Communicator &comm, const Tensor &x,
                                    int root) {
  Tensor out = x;
  comm.broadcast(out.data(), out.numel(), root);
  return out;
}
