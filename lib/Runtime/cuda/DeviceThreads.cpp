//===- DeviceThreads.cpp - Threads backend over device memory --*- C++ -*-===//
//
// ThreadBufferOps on device memory: rank threads sharing a GPU exchange device
// buffers with cudaMemcpyAsync (peer copies when the buffers live on different
// devices) and reduce them with a kernel, on the calling thread's default
// stream. NCCL (up to 2.29) refuses several ranks on one GPU, so this is how
// multi-rank GPU code is tested on a one-GPU machine.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CUDA.h"

#include "Launch.h"

#include <cuda_runtime.h>

#include <stdexcept>

using namespace mlir::tp::runtime;
using namespace mlir::tp::runtime::gpu;
namespace cudetail = mlir::tp::runtime::gpu::detail;

namespace {
/// Everything runs on cudaStreamPerThread: the stream of the rank thread
/// that calls, which is also where the device kernels run by default.
class DeviceBufferOps final : public ThreadBufferOps {
public:
  void prepare() override {
    cudetail::check(cudaStreamSynchronize(cudaStreamPerThread),
                    "cudaStreamSynchronize before a collective");
  }

  void copy(void *dst, const void *src, size_t bytes) override {
    note(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                         cudaStreamPerThread),
         "cudaMemcpyAsync");
  }

  void reduce(void *dst, const void *const *srcs, size_t n, size_t count,
              DType dtype, ReduceOp op) override {
    if (n > static_cast<size_t>(cudetail::kMaxReduceSources)) {
      pending() = "reduction over " + std::to_string(n) + " ranks: at most " +
                  std::to_string(cudetail::kMaxReduceSources) +
                  " ranks per device group";
      return;
    }
    note(cudetail::launchReduce(dst, srcs, static_cast<int>(n), count, dtype,
                                op, cudaStreamPerThread),
         "reduction kernel");
  }

  std::string finish() override {
    note(cudaStreamSynchronize(cudaStreamPerThread), "cudaStreamSynchronize");
    std::string error;
    error.swap(pending());
    return error;
  }

  void *allocate(size_t bytes) override {
    void *p = nullptr;
    cudetail::check(cudaMallocAsync(&p, bytes, cudaStreamPerThread),
                    "cudaMallocAsync");
    // Peers may read the buffer from their own streams.
    cudetail::check(cudaStreamSynchronize(cudaStreamPerThread),
                    "cudaStreamSynchronize");
    return p;
  }

  void deallocate(void *buffer) noexcept override {
    (void)cudaFreeAsync(buffer, cudaStreamPerThread);
  }

private:
  /// The first error of this thread since its last finish().
  static std::string &pending() {
    thread_local std::string error;
    return error;
  }
  static void note(cudaError_t err, const char *what) {
    if (err != cudaSuccess && pending().empty())
      pending() =
          std::string("CUDA error in ") + what + ": " + cudaGetErrorString(err);
  }
};
} // namespace

std::shared_ptr<ThreadBufferOps> mlir::tp::runtime::gpu::deviceBufferOps() {
  static std::shared_ptr<ThreadBufferOps> ops =
      std::make_shared<DeviceBufferOps>();
  return ops;
}

void mlir::tp::runtime::gpu::runDeviceRanks(
    int n, const std::function<void(Communicator &)> &fn, int device,
    std::chrono::milliseconds timeout) {
  if (n > cudetail::kMaxReduceSources)
    throw std::invalid_argument("runDeviceRanks: at most " +
                                std::to_string(cudetail::kMaxReduceSources) +
                                " ranks, got " + std::to_string(n));
  runRanks(
      n,
      [&](Communicator &comm) {
        cudetail::check(cudaSetDevice(device), "cudaSetDevice");
        fn(comm);
        // Work still queued must not outlive the rank (its buffers go away).
        cudetail::check(cudaStreamSynchronize(cudaStreamPerThread),
                        "cudaStreamSynchronize");
      },
      timeout, deviceBufferOps());
}
