//===- All.h - every kernel family ------------------------------*- C++ -*-===//
//
// The kernel families a backend's table is filled from (KernelTable.h). A
// new kernel goes into its family's file; a new family is added here.
// Private to lib/Executor.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_KERNELS_ALL_H
#define TP_LIB_EXECUTOR_KERNELS_ALL_H

#include "Index.h"
#include "Layout.h"
#include "Pointwise.h"
#include "Training.h"
#include "Transformer.h"

namespace mlir::tp::exec::detail {

/// Backend B's kernels: those of every family it has.
template <class B> KernelTable<B> allKernels() {
  KernelTable<B> t;
  addLayoutKernels(t);
  addPointwiseKernels(t);
  addIndexKernels(t);
  addTransformerKernels(t);
  addTrainingKernels(t);
  return t;
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELS_ALL_H
