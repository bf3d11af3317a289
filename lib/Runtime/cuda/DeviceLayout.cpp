//===- DeviceLayout.cpp - Layout helpers and tensor collectives -*- C++ -*-===//
//
// Slicing, concatenation and the dimension-aware collectives on device
// tensors: strided copies with cudaMemcpy2DAsync; the collectives' layout
// logic is the host's (../TensorCollectives.h), around the raw collectives
// of a communicator whose buffers are device memory.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CUDA.h"

#include "../TensorCollectives.h"
#include "Launch.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

using namespace mlir::tp::runtime;
using namespace mlir::tp::runtime::gpu;
namespace cudetail = mlir::tp::runtime::gpu::detail;

namespace {
/// Copies \p rows rows of \p width bytes from \p src (row pitch \p spitch)
/// to \p dst (row pitch \p dpitch), device to device.
void copyRows(void *dst, size_t dpitch, const void *src, size_t spitch,
              size_t width, size_t rows, cudaStream_t stream) {
  if (width == 0 || rows == 0)
    return;
  cudetail::check(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows,
                                    cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpy2DAsync");
}

char *bytes(DeviceTensor &t) { return static_cast<char *>(t.raw()); }
const char *bytes(const DeviceTensor &t) {
  return static_cast<const char *>(t.raw());
}

/// The device side of TensorCollectives.h: device tensors, row copies by
/// cudaMemcpy2DAsync on the default stream.
struct DeviceOps {
  static DeviceTensor empty(std::vector<int64_t> shape, DType dtype) {
    return DeviceTensor::empty(std::move(shape), dtype);
  }
  static void copyRows(void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t rows) {
    ::copyRows(dst, dpitch, src, spitch, width, rows, defaultStream());
  }
};
using Device = mlir::tp::runtime::detail::TensorCollectives<DeviceOps>;
} // namespace

DeviceTensor mlir::tp::runtime::gpu::reshape(const DeviceTensor &x,
                                             std::vector<int64_t> shape,
                                             cudaStream_t stream) {
  if (shapeNumel(shape) != x.numel())
    throw std::invalid_argument("cannot reshape tensor of shape " +
                                x.shapeString() + " into " +
                                shapeToString(shape));
  DeviceTensor out = x.clone(stream);
  out.reshape(std::move(shape));
  return out;
}

DeviceTensor mlir::tp::runtime::gpu::sliceDim(const DeviceTensor &x,
                                              int64_t dim, int64_t start,
                                              int64_t size,
                                              cudaStream_t stream) {
  std::vector<int64_t> shape = sliceShape(x.shape(), dim, start, size);
  int64_t extent = x.shape()[dim];
  DeviceTensor out = DeviceTensor::empty(shape, x.dtype());
  DimSplit s = splitAround(x.shape(), dim);
  size_t es = dtypeSize(x.dtype());
  size_t run = static_cast<size_t>(size * s.inner) * es;
  copyRows(bytes(out), run, bytes(x) + start * s.inner * es,
           extent * s.inner * es, run, s.outer, stream);
  return out;
}

DeviceTensor mlir::tp::runtime::gpu::chunkDim(const DeviceTensor &x,
                                              int64_t dim, int64_t k, int64_t i,
                                              cudaStream_t stream) {
  dim = normalizeDim(dim, x.rank());
  Chunk c = chunkOf(x.shape()[dim], k, i);
  return sliceDim(x, dim, c.offset, c.size, stream);
}

DeviceTensor
mlir::tp::runtime::gpu::concatDim(const std::vector<DeviceTensor> &parts,
                                  int64_t dim, cudaStream_t stream) {
  std::vector<int64_t> shape = concatShape(parts, dim);
  const DeviceTensor &first = parts.front();
  DeviceTensor out = DeviceTensor::empty(shape, first.dtype());
  DimSplit s = splitAround(shape, dim);
  size_t es = dtypeSize(first.dtype());
  size_t rowOut = static_cast<size_t>(s.extent * s.inner) * es, col = 0;
  for (const DeviceTensor &p : parts) {
    size_t run = static_cast<size_t>(p.shape()[dim] * s.inner) * es;
    copyRows(bytes(out) + col, rowOut, bytes(p), run, run, s.outer, stream);
    col += run;
  }
  return out;
}

DeviceTensor mlir::tp::runtime::gpu::allGatherDim(Communicator &comm,
                                                  const DeviceTensor &local,
                                                  int64_t dim) {
  return Device::allGatherDim(comm, local, dim);
}

DeviceTensor mlir::tp::runtime::gpu::reduceScatterDim(Communicator &comm,
                                                      const DeviceTensor &x,
                                                      int64_t dim,
                                                      ReduceOp op) {
  return Device::reduceScatterDim(comm, x, dim, op);
}

DeviceTensor mlir::tp::runtime::gpu::allToAllDims(Communicator &comm,
                                                  const DeviceTensor &x,
                                                  int64_t splitDim,
                                                  int64_t concatDim) {
  return Device::allToAllDims(comm, x, splitDim, concatDim);
}

void mlir::tp::runtime::gpu::allReduceInPlace(Communicator &comm,
                                              DeviceTensor &x, ReduceOp op) {
  comm.allReduce(x.raw(), x.raw(), x.numel(), x.dtype(), op);
}

DeviceTensor mlir::tp::runtime::gpu::broadcastTensor(Communicator &comm,
                                                     const DeviceTensor &x,
                                                     int root) {
  DeviceTensor out = x.clone();
  comm.broadcast(out.raw(), out.numel(), x.dtype(), root);
  return out;
}
