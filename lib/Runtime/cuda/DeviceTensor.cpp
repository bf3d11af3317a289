//===- DeviceTensor.cpp - Device tensors and CUDA availability -*- C++ -*-===//
//
// DeviceTensor (cudaMalloc'ed buffer of any dtype + shape + dtype), host
// transfers, dtype conversion, and the cudaAvailable() probe that the GPU
// tests use to skip without a device.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CUDA.h"

#include "Launch.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <utility>

using namespace mlir::tp::runtime;
using namespace mlir::tp::runtime::gpu;
using mlir::tp::runtime::gpu::detail::check;
using mlir::tp::runtime::gpu::detail::launchConvert;

bool mlir::tp::runtime::cudaAvailable(std::string *why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError(); // The error is not sticky; clear it.
    if (why)
      *why = std::string("no CUDA device: ") + cudaGetErrorString(err);
    return false;
  }
  if (count == 0) {
    if (why)
      *why = "no CUDA device found";
    return false;
  }
  return true;
}

DeviceTensor::DeviceTensor() : shape_{0} {}

DeviceTensor DeviceTensor::empty(std::vector<int64_t> shape, DType dtype) {
  DeviceTensor t;
  t.numel_ = shapeNumel(shape); // Validates the extents.
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  if (t.numel_ > 0)
    check(cudaMalloc(&t.data_, t.bytes()), "cudaMalloc");
  return t;
}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, cudaStream_t stream)
    : DeviceTensor(std::move(shape), DType::F32, stream) {}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, DType dtype,
                           cudaStream_t stream)
    : DeviceTensor(empty(std::move(shape), dtype)) {
  // All-zero bits are +0 in every dtype.
  if (data_)
    check(cudaMemsetAsync(data_, 0, bytes(), stream), "cudaMemsetAsync");
}

DeviceTensor DeviceTensor::upload(const Tensor &host, cudaStream_t stream) {
  DeviceTensor t = empty(host.shape(), host.dtype());
  t.copyFrom(host, stream);
  return t;
}

void DeviceTensor::requireF32() const {
  if (dtype_ != DType::F32)
    throw std::invalid_argument(std::string("a ") + dtypeName(dtype_) +
                                " device tensor of shape " + shapeString() +
                                " was used where f32 elements are needed");
}

DeviceTensor::~DeviceTensor() {
  if (data_)
    (void)cudaFree(data_); // Nothing sensible to do with an error here.
}

DeviceTensor::DeviceTensor(DeviceTensor &&other) noexcept
    : shape_(std::move(other.shape_)), numel_(other.numel_),
      dtype_(other.dtype_), data_(other.data_) {
  other.shape_ = {0};
  other.numel_ = 0;
  other.dtype_ = DType::F32;
  other.data_ = nullptr;
}

DeviceTensor &DeviceTensor::operator=(DeviceTensor &&other) noexcept {
  if (this != &other) {
    if (data_)
      (void)cudaFree(data_);
    shape_ = std::move(other.shape_);
    numel_ = other.numel_;
    dtype_ = other.dtype_;
    data_ = other.data_;
    other.shape_ = {0};
    other.numel_ = 0;
    other.dtype_ = DType::F32;
    other.data_ = nullptr;
  }
  return *this;
}

Tensor DeviceTensor::download(cudaStream_t stream) const {
  Tensor host(shape_, dtype_);
  if (data_) {
    check(cudaMemcpyAsync(host.raw(), data_, bytes(), cudaMemcpyDeviceToHost,
                          stream),
          "cudaMemcpyAsync (device to host)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  return host;
}

void DeviceTensor::copyFrom(const Tensor &host, cudaStream_t stream) {
  if (host.shape() != shape_)
    throw std::invalid_argument("DeviceTensor::copyFrom: host shape " +
                                host.shapeString() +
                                " differs from device shape " + shapeString());
  if (host.dtype() != dtype_)
    throw std::invalid_argument(std::string("DeviceTensor::copyFrom: host "
                                            "dtype ") +
                                dtypeName(host.dtype()) +
                                " differs from device dtype " +
                                dtypeName(dtype_));
  if (data_) {
    check(cudaMemcpyAsync(data_, host.raw(), bytes(), cudaMemcpyHostToDevice,
                          stream),
          "cudaMemcpyAsync (host to device)");
    // The host buffer is pageable and owned by the caller: wait.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
}

DeviceTensor DeviceTensor::clone(cudaStream_t stream) const {
  DeviceTensor t = empty(shape_, dtype_);
  if (data_)
    check(cudaMemcpyAsync(t.data_, data_, bytes(), cudaMemcpyDeviceToDevice,
                          stream),
          "cudaMemcpyAsync (device to device)");
  return t;
}

DeviceTensor mlir::tp::runtime::gpu::convert(const DeviceTensor &x, DType dtype,
                                             cudaStream_t stream) {
  if (x.dtype() == dtype)
    return x.clone(stream);
  if (isIntegerDType(x.dtype()) || isIntegerDType(dtype))
    throw std::invalid_argument(
        std::string("gpu::convert: ") + dtypeName(x.dtype()) + " to " +
        dtypeName(dtype) +
        " is not done on the device (integers hold ids; convert on the host "
        "with Tensor::to, which checks the values)");
  DeviceTensor out = DeviceTensor::empty(x.shape(), dtype);
  launchConvert(x.raw(), x.dtype(), out.raw(), dtype, x.numel(), stream);
  return out;
}

int64_t DeviceTensor::dim(int64_t i) const {
  return shape_[normalizeDim(i, rank())];
}

void DeviceTensor::reshape(std::vector<int64_t> shape) {
  if (shapeNumel(shape) != numel_)
    throw std::invalid_argument("DeviceTensor::reshape: cannot view " +
                                shapeString() + " as " + shapeToString(shape));
  shape_ = std::move(shape);
}
