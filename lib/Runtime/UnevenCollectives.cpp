//===- UnevenCollectives.cpp - torch.chunk collectives on the host --------===//
//
// The host instances of the uneven collectives (UnevenCollectives.h).
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/UnevenCollectives.h"

using namespace mlir::tp::runtime;

static Tensor copyOf(const Tensor &t) { return t; }

Tensor mlir::tp::runtime::padDim(const Tensor &x, int64_t dim, int64_t size) {
  return detail::padDimWith(x, dim, size, copyOf);
}

Tensor mlir::tp::runtime::allGatherUneven(Communicator &comm, const Tensor &x,
                                          int64_t dim, int64_t total) {
  return detail::allGatherUnevenWith(comm, x, dim, total, copyOf);
}

Tensor mlir::tp::runtime::reduceScatterUneven(Communicator &comm,
                                              const Tensor &x, int64_t dim,
                                              ReduceOp op) {
  return detail::reduceScatterUnevenWith(comm, x, dim, op, copyOf);
}
