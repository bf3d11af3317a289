//===- Pointwise.h - elementwise, mask and generic kernels ------*- C++ -*-===//
//
// Kernels that compute each element from the elements at its position
// (with broadcasting), their gradients, the boolean mask ops and
// model.generic's loop nests. Private to lib/Executor (see KernelTable.h).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_KERNELS_POINTWISE_H
#define TP_LIB_EXECUTOR_KERNELS_POINTWISE_H

#include "../KernelTable.h"

namespace mlir::tp::exec::detail {

template <class B> void addPointwiseKernels(KernelTable<B> &t) {
  using K = const KernelCall<B> &;
  t.add("relu", 0, [](K k) { return relu(k.arg(0)); });
  t.add("gelu", 0, [](K k) { return gelu(k.arg(0)); }, {}, kApproxExp);
  t.add("silu", 0, [](K k) { return silu(k.arg(0)); }, {}, kApproxExp);
  t.add("exp", 0, [](K k) { return exp(k.arg(0)); }, {}, kTranscendental);
  t.add("add", 0, [](K k) { return add(k.arg(0), k.arg(1)); });
  t.add("mul", 0, [](K k) { return mul(k.arg(0), k.arg(1)); });
  if constexpr (B::kHostOnlyKernels) {
    t.add("sub", 0, [](K k) { return sub(k.arg(0), k.arg(1)); });
    t.add("div", 0, [](K k) { return div(k.arg(0), k.arg(1)); });
    t.add("neg", 0, [](K k) { return neg(k.arg(0)); });
    t.add("log", 0, [](K k) { return log(k.arg(0)); }, {}, kTranscendental);
    t.add("tanh", 0, [](K k) { return tanh(k.arg(0)); }, {}, kTranscendental);
    t.add(
        "sigmoid", 0, [](K k) { return sigmoid(k.arg(0)); }, {},
        kTranscendental);
    t.add("sqrt", 0, [](K k) { return sqrt(k.arg(0)); });
    t.add("rsqrt", 0, [](K k) { return rsqrt(k.arg(0)); });
    t.add("erf", 0, [](K k) { return erf(k.arg(0)); }, {}, kTranscendental);
    t.add("reciprocal", 0, [](K k) { return reciprocal(k.arg(0)); });
    t.add("abs", 0, [](K k) { return abs(k.arg(0)); });
    // value (the exponent).
    t.add("pow", kExponent,
          [](K k) { return pow(k.arg(0), static_cast<float>(k.in.value)); });
    // Gradients: operands grad, input.
    t.add("relu_grad", 0, [](K k) { return reluBackward(k.arg(0), k.arg(1)); });
    t.add(
        "gelu_grad", 0, [](K k) { return geluBackward(k.arg(0), k.arg(1)); },
        {}, kApproxExp);
    t.add(
        "silu_grad", 0, [](K k) { return siluBackward(k.arg(0), k.arg(1)); },
        {}, kApproxExp);
    t.add("log_grad", 0, [](K k) { return logBackward(k.arg(0), k.arg(1)); });
    // Masks (Bool results). size: the runtime::Predicate.
    t.add("compare", kPredicate, [](K k) {
      return compare(k.arg(0), k.arg(1),
                     static_cast<runtime::Predicate>(k.in.size));
    });
    t.add("logical_not", 0, [](K k) { return logicalNot(k.arg(0)); });
    t.add("logical_and", 0, [](K k) { return logicalAnd(k.arg(0), k.arg(1)); });
    t.add("logical_or", 0, [](K k) { return logicalOr(k.arg(0), k.arg(1)); });
    // operands condition, x, y.
    t.add("where", 0, [](K k) { return where(k.arg(0), k.arg(1), k.arg(2)); });
    // param: the index of its runtime::GenericSpec in the program; shape:
    // the result's (-1 where uneven); operands the inputs, then the init.
    t.add("generic", kGeneric | kShape, [](K k) {
      std::vector<const Tensor *> operands;
      for (size_t i = 0; i < k.numOperands(); ++i)
        operands.push_back(&k.arg(i));
      return generic(k.f.program->generics[k.in.param], operands, k.in.shape);
    });
  }
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELS_POINTWISE_H
