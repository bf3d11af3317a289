//===- HostBackend.h - runtime::Tensor and the CPU kernels ------*- C++ -*-===//
//
// The host backend of the interpreter (Interpreter.h): buffers are
// runtime::Tensor, kernels and collectives those of tp/Runtime (found by
// argument-dependent lookup in mlir::tp::runtime). Program runs on it, and
// the device backend runs on it the instructions it has no kernel for.
// Private to lib/Executor.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_HOSTBACKEND_H
#define TP_LIB_EXECUTOR_HOSTBACKEND_H

#include "tp/Runtime/FloatOps.h"
#include "tp/Runtime/GradKernels.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/Tensor.h"
#include "tp/Runtime/TransformerGradKernels.h"
#include "tp/Runtime/UnevenCollectives.h"

namespace mlir::tp::exec::detail {

template <class B> struct KernelsById;

struct HostBackend {
  using Buffer = runtime::Tensor;
  static constexpr const char *kName = "host";
  static constexpr bool kHostOnlyKernels = true;
  static Buffer fromHost(runtime::Tensor t) { return t; }
  static runtime::Tensor toHost(const Buffer &b) { return b; }
  static Buffer clone(const Buffer &b) { return b; }
  static Buffer convert(const Buffer &b, runtime::DType dtype) {
    return b.to(dtype);
  }
  static Buffer convert(Buffer &&b, runtime::DType dtype) {
    return b.dtype() == dtype ? std::move(b) : b.to(dtype);
  }
  static Buffer zeros(std::vector<int64_t> shape, runtime::DType dtype) {
    return runtime::Tensor(std::move(shape), dtype);
  }
  /// Every kernel (HostKernels.cpp).
  static const KernelsById<HostBackend> &kernels();
};

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_HOSTBACKEND_H
