//===- Layout.h - constants, copies and layout kernels ----------*- C++ -*-===//
//
// Kernels that make values or move elements without arithmetic: constant,
// arange, full, copy, reshape, transpose, slice, concat, expand. Private to
// lib/Executor (see KernelTable.h).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_KERNELS_LAYOUT_H
#define TP_LIB_EXECUTOR_KERNELS_LAYOUT_H

#include "../KernelTable.h"

namespace mlir::tp::exec::detail {

/// The shape reshape instruction \p in gives an operand of \p numel
/// elements: an uneven (dynamic) dim takes what the others leave.
inline std::vector<int64_t> reshapeTarget(const Instruction &in,
                                          int64_t numel) {
  std::vector<int64_t> s = in.shape;
  int64_t known = 1;
  for (int64_t d : s)
    if (d >= 0)
      known *= d;
  for (int64_t &d : s)
    if (d < 0)
      d = known ? numel / known : 0;
  return s;
}

template <class B> void addLayoutKernels(KernelTable<B> &t) {
  using K = const KernelCall<B> &;
  // param: the index of its tensor in the program's constants; shape.
  t.add("constant", kElements | kShape,
        [](K k) { return B::fromHost(k.f.program->constants[k.in.param]); });
  // size: [0, 1, ..., size - 1], made in the slot's integer dtype (the
  // device does not convert integers).
  t.add("arange", kExtent, [](K k) {
    std::vector<int64_t> v(k.in.size);
    for (int64_t i = 0; i < k.in.size; ++i)
      v[i] = i;
    return B::fromHost(Tensor::fromInts({k.in.size}, v,
                                        k.f.program->slots[k.in.result].dtype));
  });
  // Dropout at inference, detach.
  t.add("copy", 0, [](K k) { return B::clone(k.arg(0)); });
  // shape (-1: the uneven dim, whatever is left). On the host, a view of
  // the operand's buffer when this is its last reader.
  t.add("reshape", kShape | kOneUneven,
        [](K k) {
          std::vector<int64_t> to = reshapeTarget(k.in, k.arg(0).numel());
          if constexpr (B::kHostOnlyKernels)
            if (k.in.widen.empty() && k.f.dyingOperand(k.in, 0))
              return std::move(k.f.takeOperand(k.in, 0)).reshaped(to);
          return reshape(k.arg(0), to);
        },
        {nullptr, /*reusesDyingOperand=*/B::kHostOnlyKernels});
  if constexpr (B::kHostOnlyKernels) {
    // value: every element of the result slot's shape.
    t.add("full", kValue | kShape | kStaticShape,
          [](K k) { return Tensor::full(k.in.shape, k.in.value); });
    // shape: the permutation.
    t.add("transpose", kPerm,
          [](K k) { return permute(k.arg(0), k.in.shape); });
    // dim, start, step, size (the result's count on dim).
    t.add(
        "slice", kDim | kStart | kStep | kExtent,
        [](K k) {
          return slice(k.arg(0), k.in.dim, k.in.start, k.in.step, k.in.size);
        },
        {}, KernelCost{nullptr, false, nullptr, nullptr, readsPartOf<0>});
    // dim, start, step, size (the whole dim's extent).
    t.add("slice_grad", kDim | kStart | kStep | kExtent, [](K k) {
      return sliceGrad(k.arg(0), k.in.dim, k.in.start, k.in.step, k.in.size);
    });
    // dim: the operands in order, read in place (the memory plan counts
    // no copies of them).
    t.add("concat", kDim, [](K k) {
      std::vector<const Tensor *> parts;
      for (size_t i = 0; i < k.numOperands(); ++i)
        parts.push_back(&k.arg(i));
      return concatDimOf(parts, k.in.dim);
    });
    // shape: the result's.
    t.add("expand", kShape, [](K k) { return expand(k.arg(0), k.in.shape); });
  }
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELS_LAYOUT_H
