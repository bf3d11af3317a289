//===- UnevenCollectives.h - collectives of torch.chunk pieces --*- C++ -*-===//
//
// all_gather and reduce_scatter when a dim does not divide by the group
// size: ranks hold torch.chunk pieces (chunkOf: 10 over 4 is 3,3,3,1), the
// collective pads each to the chunk size and trims after, so every rank, one
// with an empty piece too, makes the same call as in the even case. The
// algorithm is written once (detail::, over any tensor type with the layout
// helpers and tensor collectives of Tensor.h and Communicator.h); the host
// functions are here, the device ones in CUDA.h.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_UNEVENCOLLECTIVES_H
#define TP_RUNTIME_UNEVENCOLLECTIVES_H

#include "tp/Runtime/Communicator.h"
#include "tp/Runtime/Tensor.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {

/// \p x zero-padded along \p dim (negative counts from the end) to extent
/// \p size, which must be at least x.dim(dim); a copy when it is equal.
Tensor padDim(const Tensor &x, int64_t dim, int64_t size);

/// all_gather of torch.chunk pieces along \p dim of a dim of full extent
/// \p total: rank r holds chunkOf(total, size(), r) and every rank gets the
/// whole dim. Throws std::invalid_argument when \p x does not hold this
/// rank's piece.
Tensor allGatherUneven(Communicator &comm, const Tensor &x, int64_t dim,
                       int64_t total);

/// reduce_scatter into torch.chunk pieces: the reduction of \p x over ranks,
/// of which rank r keeps piece chunkOf(x.dim(dim), size(), r) along \p dim.
Tensor reduceScatterUneven(Communicator &comm, const Tensor &x, int64_t dim,
                           ReduceOp op);

namespace detail {

/// padDim for a tensor type T with T(shape, dtype) zeros; \p clone copies.
template <class T, class Clone>
T padDimWith(const T &x, int64_t dim, int64_t size, Clone clone) {
  dim = normalizeDim(dim, x.rank());
  int64_t have = x.dim(dim);
  if (size < have)
    throw std::invalid_argument("padDim: cannot pad dimension " +
                                std::to_string(dim) + " of " + x.shapeString() +
                                " to " + std::to_string(size));
  if (size == have)
    return clone(x);
  std::vector<int64_t> padShape = x.shape();
  padShape[dim] = size - have;
  std::vector<T> parts;
  parts.push_back(clone(x));
  parts.push_back(T(std::move(padShape), x.dtype()));
  return concatDim(parts, dim);
}

template <class T, class Clone>
T allGatherUnevenWith(Communicator &comm, const T &x, int64_t dim,
                      int64_t total, Clone clone) {
  dim = normalizeDim(dim, x.rank());
  int64_t k = comm.size();
  Chunk mine = chunkOf(total, k, comm.rank());
  if (x.dim(dim) != mine.size)
    throw std::invalid_argument(
        "allGatherUneven: rank " + std::to_string(comm.rank()) + " holds " +
        std::to_string(x.dim(dim)) + " of dimension " + std::to_string(dim) +
        " (shape " + x.shapeString() + ") but its torch.chunk of " +
        std::to_string(total) + " over " + std::to_string(k) + " ranks is " +
        std::to_string(mine.size));
  int64_t chunk = (total + k - 1) / k;
  T gathered = x.dim(dim) == chunk
                   ? allGatherDim(comm, x, dim)
                   : allGatherDim(comm, padDimWith(x, dim, chunk, clone), dim);
  if (chunk * k == total)
    return gathered;
  std::vector<T> pieces;
  for (int64_t j = 0; j < k; ++j)
    pieces.push_back(
        sliceDim(gathered, dim, j * chunk, chunkOf(total, k, j).size));
  return concatDim(pieces, dim);
}

template <class T, class Clone>
T reduceScatterUnevenWith(Communicator &comm, const T &x, int64_t dim,
                          ReduceOp op, Clone clone) {
  dim = normalizeDim(dim, x.rank());
  int64_t k = comm.size(), total = x.dim(dim);
  int64_t chunk = (total + k - 1) / k;
  T mine = chunk * k == total
               ? reduceScatterDim(comm, x, dim, op)
               : reduceScatterDim(comm, padDimWith(x, dim, chunk * k, clone),
                                  dim, op);
  int64_t keep = chunkOf(total, k, comm.rank()).size;
  if (keep == chunk)
    return mine;
  return sliceDim(mine, dim, 0, keep);
}

} // namespace detail
} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_UNEVENCOLLECTIVES_H
