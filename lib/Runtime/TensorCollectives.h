//===- TensorCollectives.h - Dimension-aware collectives, once --*- C++ -*-===//
//
// Private to lib/Runtime (lib/Runtime/cuda includes it too): the tensor
// collectives (allGatherDim, reduceScatterDim, allToAllDims) as one template
// over the tensor type, for host Tensors (Communicator.cpp) and device
// DeviceTensors (cuda/DeviceLayout.cpp). The raw collectives work on
// contiguous per-rank blocks along the outermost dimension; a collective on
// another dimension packs that dimension into blocks before, or unpacks the
// blocks after. Both are strided row copies, the one thing a backend
// supplies (memcpy on the host, cudaMemcpy2DAsync on the device).
//
// `Ops` provides:
//   static T empty(std::vector<int64_t> shape, DType dtype);
//   static void copyRows(void *dst, size_t dpitch, const void *src,
//                        size_t spitch, size_t width, size_t rows);
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_TENSORCOLLECTIVES_H
#define TP_LIB_RUNTIME_TENSORCOLLECTIVES_H

#include "tp/Runtime/Communicator.h"
#include "tp/Runtime/Tensor.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {
namespace detail {

/// Throws unless dimension \p dim of \p shape splits over \p n ranks.
inline void checkDivisible(const std::vector<int64_t> &shape, int64_t dim,
                           int n, const char *what) {
  if (shape[dim] % n != 0)
    throw std::invalid_argument(std::string(what) + ": dimension " +
                                std::to_string(dim) + " of shape " +
                                shapeToString(shape) + " is not divisible by " +
                                std::to_string(n) + " ranks");
}

template <typename Ops> struct TensorCollectives {
  template <typename T> static char *bytes(T &t) {
    return static_cast<char *>(t.raw());
  }
  template <typename T> static const char *bytes(const T &t) {
    return static_cast<const char *>(t.raw());
  }

  /// Copies \p x, whose extent along \p dim is n*piece, into n contiguous
  /// blocks, block p holding the range [p*piece, (p+1)*piece) of \p dim.
  template <typename T> static T packBlocks(const T &x, int64_t dim, int n) {
    DimSplit s = splitAround(x.shape(), dim);
    size_t es = dtypeSize(x.dtype());
    size_t run = static_cast<size_t>(s.extent / n * s.inner) * es;
    T blocks = Ops::empty(x.shape(), x.dtype());
    for (int p = 0; p < n; ++p)
      Ops::copyRows(bytes(blocks) + p * s.outer * run, run, bytes(x) + p * run,
                    s.extent * s.inner * es, run, s.outer);
    return blocks;
  }

  /// Inverse of packBlocks: n contiguous blocks of \p blockShape in
  /// \p blocks become one tensor concatenated along \p dim.
  template <typename T>
  static T unpackBlocks(const T &blocks, std::vector<int64_t> blockShape,
                        int64_t dim, int n) {
    DimSplit s = splitAround(blockShape, dim);
    size_t es = dtypeSize(blocks.dtype());
    size_t run = static_cast<size_t>(s.extent * s.inner) * es;
    blockShape[dim] *= n;
    T out = Ops::empty(std::move(blockShape), blocks.dtype());
    for (int p = 0; p < n; ++p)
      Ops::copyRows(bytes(out) + p * run, n * run,
                    bytes(blocks) + p * s.outer * run, run, run, s.outer);
    return out;
  }

  template <typename T>
  static T allGatherDim(Communicator &comm, const T &local, int64_t dim) {
    dim = normalizeDim(dim, local.rank());
    int n = comm.size();
    // Gathering along dim 0 (or on one rank) concatenates the blocks as they
    // arrive; other dims need the blocks interleaved afterwards.
    bool direct = dim == 0 || n == 1;
    std::vector<int64_t> shape = local.shape();
    shape[direct ? dim : 0] *= n;
    T gathered = Ops::empty(std::move(shape), local.dtype());
    comm.allGather(local.raw(), local.numel(), gathered.raw(), local.dtype());
    if (direct)
      return gathered;
    return unpackBlocks(gathered, local.shape(), dim, n);
  }

  template <typename T>
  static T reduceScatterDim(Communicator &comm, const T &x, int64_t dim,
                            ReduceOp op) {
    dim = normalizeDim(dim, x.rank());
    int n = comm.size();
    checkDivisible(x.shape(), dim, n, "reduceScatterDim");
    std::vector<int64_t> shape = x.shape();
    shape[dim] /= n;
    T out = Ops::empty(std::move(shape), x.dtype());
    if (dim == 0) {
      comm.reduceScatter(x.raw(), out.raw(), out.numel(), x.dtype(), op);
    } else {
      T blocks = packBlocks(x, dim, n);
      comm.reduceScatter(blocks.raw(), out.raw(), out.numel(), x.dtype(), op);
    }
    return out;
  }

  template <typename T>
  static T allToAllDims(Communicator &comm, const T &x, int64_t splitDim,
                        int64_t concatDim) {
    splitDim = normalizeDim(splitDim, x.rank());
    concatDim = normalizeDim(concatDim, x.rank());
    int n = comm.size();
    checkDivisible(x.shape(), splitDim, n, "allToAllDims");
    std::vector<int64_t> chunkShape = x.shape();
    chunkShape[splitDim] /= n;
    size_t countPerRank = static_cast<size_t>(shapeNumel(chunkShape));
    bool direct = concatDim == 0 || n == 1;
    std::vector<int64_t> receivedShape = chunkShape;
    receivedShape[direct ? concatDim : 0] *= n;
    T received = Ops::empty(std::move(receivedShape), x.dtype());
    if (splitDim == 0) {
      comm.allToAll(x.raw(), received.raw(), countPerRank, x.dtype());
    } else {
      T blocks = packBlocks(x, splitDim, n);
      comm.allToAll(blocks.raw(), received.raw(), countPerRank, x.dtype());
    }
    if (direct)
      return received;
    return unpackBlocks(received, std::move(chunkShape), concatDim, n);
  }
};

} // namespace detail
} // namespace runtime
} // namespace mlir::tp

#endif // TP_LIB_RUNTIME_TENSORCOLLECTIVES_H
