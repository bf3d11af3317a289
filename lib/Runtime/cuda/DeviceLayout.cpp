//===- DeviceLayout.cpp - Layout helpers and tensor collectives -*- C++ -*-===//
//
// Slicing, concatenation and the dimension-aware collectives on device
// tensors: strided copies with cudaMemcpy2DAsync around the raw collectives
// of a communicator whose buffers are device memory.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CUDA.h"

#include "Launch.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

using namespace tp::runtime;
using namespace tp::runtime::gpu;
namespace cudetail = tp::runtime::gpu::detail;

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

/// Copies \p x, whose extent along \p dim is n*piece, into n contiguous
/// blocks, block p holding the range [p*piece, (p+1)*piece) of \p dim.
DeviceTensor packBlocks(const DeviceTensor &x, int64_t dim, int n,
                        cudaStream_t stream) {
  DimSplit s = splitAround(x.shape(), dim);
  size_t es = dtypeSize(x.dtype());
  size_t run = static_cast<size_t>(s.extent / n * s.inner) * es;
  DeviceTensor blocks = DeviceTensor::empty(x.shape(), x.dtype());
  for (int p = 0; p < n; ++p)
    copyRows(bytes(blocks) + p * s.outer * run, run, bytes(x) + p * run,
             s.extent * s.inner * es, run, s.outer, stream);
  return blocks;
}

/// Inverse of packBlocks: n contiguous blocks of \p blockShape in \p blocks
/// become one tensor concatenated along \p dim.
DeviceTensor unpackBlocks(const DeviceTensor &blocks,
                          std::vector<int64_t> blockShape, int64_t dim, int n,
                          cudaStream_t stream) {
  DimSplit s = splitAround(blockShape, dim);
  size_t es = dtypeSize(blocks.dtype());
  size_t run = static_cast<size_t>(s.extent * s.inner) * es;
  blockShape[dim] *= n;
  DeviceTensor out = DeviceTensor::empty(std::move(blockShape), blocks.dtype());
  for (int p = 0; p < n; ++p)
    copyRows(bytes(out) + p * run, n * run, bytes(blocks) + p * s.outer * run,
             run, run, s.outer, stream);
  return out;
}

void checkDivisible(const DeviceTensor &x, int64_t dim, int n,
                    const char *what) {
  if (x.shape()[dim] % n != 0)
    throw std::invalid_argument(std::string(what) + ": dimension " +
                                std::to_string(dim) + " of shape " +
                                x.shapeString() + " is not divisible by " +
                                std::to_string(n) + " ranks");
}
} // namespace

DeviceTensor tp::runtime::gpu::reshape(const DeviceTensor &x,
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

DeviceTensor tp::runtime::gpu::sliceDim(const DeviceTensor &x, int64_t dim,
                                        int64_t start, int64_t size,
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

DeviceTensor tp::runtime::gpu::chunkDim(const DeviceTensor &x, int64_t dim,
                                        int64_t k, int64_t i,
                                        cudaStream_t stream) {
  dim = normalizeDim(dim, x.rank());
  Chunk c = chunkOf(x.shape()[dim], k, i);
  return sliceDim(x, dim, c.offset, c.size, stream);
}

DeviceTensor tp::runtime::gpu::concatDim(const std::vector<DeviceTensor> &parts,
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

DeviceTensor tp::runtime::gpu::allGatherDim(Communicator &comm,
                                            const DeviceTensor &local,
                                            int64_t dim) {
  dim = normalizeDim(dim, local.rank());
  int n = comm.size();
  bool direct = dim == 0 || n == 1;
  std::vector<int64_t> shape = local.shape();
  shape[direct ? dim : 0] *= n;
  DeviceTensor gathered = DeviceTensor::empty(std::move(shape), local.dtype());
  comm.allGather(local.raw(), local.numel(), gathered.raw(), local.dtype());
  if (direct)
    return gathered;
  return unpackBlocks(gathered, local.shape(), dim, n, defaultStream());
}

DeviceTensor tp::runtime::gpu::reduceScatterDim(Communicator &comm,
                                                const DeviceTensor &x,
                                                int64_t dim, ReduceOp op) {
  dim = normalizeDim(dim, x.rank());
  int n = comm.size();
  checkDivisible(x, dim, n, "reduceScatterDim");
  std::vector<int64_t> shape = x.shape();
  shape[dim] /= n;
  DeviceTensor out = DeviceTensor::empty(std::move(shape), x.dtype());
  if (dim == 0) {
    comm.reduceScatter(x.raw(), out.raw(), out.numel(), x.dtype(), op);
  } else {
    DeviceTensor blocks = packBlocks(x, dim, n, defaultStream());
    comm.reduceScatter(blocks.raw(), out.raw(), out.numel(), x.dtype(), op);
  }
  return out;
}

DeviceTensor tp::runtime::gpu::allToAllDims(Communicator &comm,
                                            const DeviceTensor &x,
                                            int64_t splitDim,
                                            int64_t concatDim) {
  splitDim = normalizeDim(splitDim, x.rank());
  concatDim = normalizeDim(concatDim, x.rank());
  int n = comm.size();
  checkDivisible(x, splitDim, n, "allToAllDims");
  std::vector<int64_t> chunkShape = x.shape();
  chunkShape[splitDim] /= n;
  size_t countPerRank = static_cast<size_t>(shapeNumel(chunkShape));
  bool direct = concatDim == 0 || n == 1;
  std::vector<int64_t> receivedShape = chunkShape;
  receivedShape[direct ? concatDim : 0] *= n;
  DeviceTensor received =
      DeviceTensor::empty(std::move(receivedShape), x.dtype());
  if (splitDim == 0) {
    comm.allToAll(x.raw(), received.raw(), countPerRank, x.dtype());
  } else {
    DeviceTensor blocks = packBlocks(x, splitDim, n, defaultStream());
    comm.allToAll(blocks.raw(), received.raw(), countPerRank, x.dtype());
  }
  if (direct)
    return received;
  return unpackBlocks(received, std::move(chunkShape), concatDim, n,
                      defaultStream());
}

void tp::runtime::gpu::allReduceInPlace(Communicator &comm, DeviceTensor &x,
                                        ReduceOp op) {
  comm.allReduce(x.raw(), x.raw(), x.numel(), x.dtype(), op);
}

DeviceTensor tp::runtime::gpu::broadcastTensor(Communicator &comm,
                                               const DeviceTensor &x,
                                               int root) {
  DeviceTensor out = x.clone();
  comm.broadcast(out.raw(), out.numel(), x.dtype(), root);
  return out;
}
