//===- DeviceUneven.cpp - torch.chunk collectives on device tensors -------===//
//
// The device instances of the uneven collectives (UnevenCollectives.h):
// the same algorithm over DeviceTensor, its copies and collectives ordered
// on the calling thread's default stream like the other device layout
// helpers.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CUDA.h"
#include "tp/Runtime/UnevenCollectives.h"

using namespace mlir::tp::runtime;
using namespace mlir::tp::runtime::gpu;

static DeviceTensor copyOf(const DeviceTensor &t) { return t.clone(); }

DeviceTensor mlir::tp::runtime::gpu::padDim(const DeviceTensor &x, int64_t dim,
                                            int64_t size) {
  return runtime::detail::padDimWith(x, dim, size, copyOf);
}

DeviceTensor mlir::tp::runtime::gpu::allGatherUneven(Communicator &comm,
                                                     const DeviceTensor &x,
                                                     int64_t dim,
                                                     int64_t total) {
  return runtime::detail::allGatherUnevenWith(comm, x, dim, total, copyOf);
}

DeviceTensor mlir::tp::runtime::gpu::reduceScatterUneven(Communicator &comm,
                                                         const DeviceTensor &x,
                                                         int64_t dim,
                                                         ReduceOp op) {
  return runtime::detail::reduceScatterUnevenWith(comm, x, dim, op, copyOf);
}
