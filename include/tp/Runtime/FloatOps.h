//===- FloatOps.h - max and min that keep NaN -------------------*- C++ -*-===//
//
// PyTorch's maximum/minimum/amax/amin and its max/min reductions return NaN
// when any operand is NaN; std::max, std::min and fmaxf drop a NaN depending
// on operand order. Every max and min of the runtime (kernels, collectives,
// result assembly, the CUDA kernels) goes through these two, so the host
// and device backends agree bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_FLOATOPS_H
#define TP_RUNTIME_FLOATOPS_H

#ifdef __CUDACC__
#define TP_HOST_DEVICE __host__ __device__
#else
#define TP_HOST_DEVICE
#endif

namespace mlir::tp {
namespace runtime {

/// The larger of \p a and \p b, or NaN if either is NaN.
TP_HOST_DEVICE inline float maxKeepNaN(float a, float b) {
  return a > b || a != a ? a : b;
}

/// The smaller of \p a and \p b, or NaN if either is NaN.
TP_HOST_DEVICE inline float minKeepNaN(float a, float b) {
  return a < b || a != a ? a : b;
}

} // namespace runtime
} // namespace mlir::tp

#undef TP_HOST_DEVICE

#endif // TP_RUNTIME_FLOATOPS_H
