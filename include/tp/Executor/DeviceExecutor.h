//===- DeviceExecutor.h - run a tp program on CUDA devices ------*- C++ -*-===//
//
// The device flavour of the executor (library TPExecutorCUDA, built when the
// CUDA runtime library is, i.e. TP_HAVE_CUDA): the instruction list of a
// Program, not compiled again, run by the device interpreter, with every
// value in device memory, model ops on the CUDA kernels of tp/Runtime/CUDA.h
// and collectives on a communicator over device memory (the nccl backend,
// or gpu::runDeviceRanks for several ranks on one GPU).
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTOR_DEVICEEXECUTOR_H
#define TP_EXECUTOR_DEVICEEXECUTOR_H

#include "tp/Executor/Executor.h"

namespace mlir::tp::exec {

/// A program run on device buffers. Thread-safe to run on several ranks at
/// once (each on its own thread and current device).
///
/// Kernels compute in f32 like the host's: 16-bit values are widened on the
/// device for each kernel and the result rounded once. The instructions
/// without a device kernel yet (runsOnHost: transpose, the loss ops, the
/// backward kernels, training dropout, the optimizer updates) run on the
/// host: their
/// operands are copied there and their result back, so a training step runs
/// on the device with the host's numbers, but those instructions are not
/// fast.
/// Whether the device backend runs \p in on the host (it has no device
/// kernel for it).
bool runsOnHost(const Instruction &in);

class DeviceProgram {
public:
  ~DeviceProgram();
  DeviceProgram(DeviceProgram &&) noexcept;
  DeviceProgram &operator=(DeviceProgram &&) noexcept;

  /// The device form of \p program, sharing its instructions (it may
  /// outlive \p program).
  explicit DeviceProgram(const Program &program);

  /// Program::compile(func), for the device.
  static DeviceProgram compile(mlir::func::FuncOp func);

  /// Runs the program as rank `comm.rank()` on the calling thread's current
  /// device; `comm` must move device buffers. Parameters and inputs are
  /// loaded on the host (this rank's shards only) and uploaded; the local
  /// results are downloaded. The rest is as Program::run, peak bytes being
  /// device bytes.
  std::vector<Tensor> run(runtime::Communicator &comm, const DataSource &data,
                          int64_t *measuredPeakBytes = nullptr,
                          runtime::CollectiveStats *stats = nullptr,
                          RankState *state = nullptr,
                          PhaseCounts *byPhase = nullptr) const;

  const std::vector<int64_t> &meshShape() const;
  size_t size() const;

private:
  std::shared_ptr<const detail::ProgramData> data;
};

} // namespace mlir::tp::exec

#endif // TP_EXECUTOR_DEVICEEXECUTOR_H
