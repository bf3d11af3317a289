//===- DeviceExecutor.cpp - the executor on CUDA devices --------*- C++ -*-===//
//
// The device backend and its instance of the interpreter (Interpreter.h):
// buffers are gpu::DeviceTensor, kernels and tensor collectives those of
// tp/Runtime/CUDA.h (found by argument-dependent lookup in
// mlir::tp::runtime::gpu), everything ordered on the calling thread's default
// stream. The program is the host Program's, shared, not compiled again.
//
//===----------------------------------------------------------------------===//

#include "tp/Executor/DeviceExecutor.h"

#include "Interpreter.h"
#include "Kernels/All.h"

#include "tp/Runtime/CUDA.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace ::mlir::tp::exec;
namespace exec = ::mlir::tp::exec;
namespace rt = ::mlir::tp::runtime;
namespace gpu = ::mlir::tp::runtime::gpu;

namespace {
struct DeviceBackend {
  using Buffer = gpu::DeviceTensor;
  static constexpr const char *kName = "device";
  static constexpr bool kHostOnlyKernels = false;
  static Buffer fromHost(Tensor t) { return Buffer::upload(t); }
  static Tensor toHost(const Buffer &b) { return b.download(); }
  static Buffer clone(const Buffer &b) { return b.clone(); }
  static Buffer convert(const Buffer &b, rt::DType dtype) {
    return gpu::convert(b, dtype);
  }
  static Buffer convert(Buffer &&b, rt::DType dtype) {
    return b.dtype() == dtype ? std::move(b) : gpu::convert(b, dtype);
  }
  static Buffer zeros(std::vector<int64_t> shape, rt::DType dtype) {
    return Buffer(std::move(shape), dtype);
  }
  /// The kernels the device has: the families' without the host-only ones.
  static const exec::detail::KernelsById<DeviceBackend> &kernels() {
    static const exec::detail::KernelTable<DeviceBackend> table =
        exec::detail::allKernels<DeviceBackend>();
    static const exec::detail::KernelsById<DeviceBackend> byId(table);
    return byId;
  }
};
} // namespace

bool exec::runsOnHost(const Instruction &in) {
  if (in.op == Opcode::Kernel)
    return DeviceBackend::kernels()[in.kernel] == nullptr;
  return exec::detail::opcodeInfo(in.op).hostOnly;
}

DeviceProgram::DeviceProgram(const Program &program) : data(program.data) {}
DeviceProgram::~DeviceProgram() = default;
DeviceProgram::DeviceProgram(DeviceProgram &&) noexcept = default;
DeviceProgram &DeviceProgram::operator=(DeviceProgram &&) noexcept = default;

DeviceProgram DeviceProgram::compile(mlir::func::FuncOp func) {
  return DeviceProgram(Program::compile(func));
}

std::vector<Tensor>
DeviceProgram::run(rt::Communicator &comm, const DataSource &data,
                   int64_t *measuredPeakBytes, rt::CollectiveStats *stats,
                   RankState *state, PhaseCounts *byPhase) const {
  std::vector<gpu::DeviceTensor> results =
      exec::detail::runProgram<DeviceBackend>(
          *this->data, comm, data, state ? state->impl.get() : nullptr,
          measuredPeakBytes, stats, byPhase);
  std::vector<Tensor> host;
  host.reserve(results.size());
  for (const gpu::DeviceTensor &r : results)
    host.push_back(r.download());
  return host;
}

const std::vector<int64_t> &DeviceProgram::meshShape() const {
  return data->meshShape;
}
size_t DeviceProgram::size() const { return data->instrs.size(); }
