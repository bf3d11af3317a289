//===- Index.h - lookup, ranking and gather kernels -------------*- C++ -*-===//
//
// Kernels that read elements at computed positions: embedding (whole or a
// shard of rows), topk, gather, one_hot and their gradients. Private to
// lib/Executor (see KernelTable.h).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_KERNELS_INDEX_H
#define TP_LIB_EXECUTOR_KERNELS_INDEX_H

#include "../KernelTable.h"

namespace mlir::tp::exec::detail {

template <class B> void addIndexKernels(KernelTable<B> &t) {
  using K = const KernelCall<B> &;
  // operands ids, table: the rows looked up are read, not the whole
  // table.
  const KernelCost rows{nullptr, false, nullptr, nullptr, readsPartOf<1>};
  t.add(
      "embedding", 0, [](K k) { return embedding(k.arg(0), k.arg(1)); }, {},
      rows);
  // size (the vocabulary), axes: this rank holds rows [offset, offset +
  // local rows) of it.
  t.add(
      "embedding_masked", kSize | kAxes,
      [](K k) {
        return embeddingMasked(k.arg(0), k.arg(1),
                               k.f.chunkOf(k.in.size, k.in.axes).offset);
      },
      {}, rows);
  if constexpr (B::kHostOnlyKernels) {
    // operands grad, ids, table (its rows: the vocabulary).
    // The table's gradient written whole; the table itself gives only
    // its shape.
    const KernelCost table{nullptr, false, nullptr, nullptr, readsShapeOf<2>};
    t.add(
        "embedding_grad", 0,
        [](K k) {
          return embeddingBackward(k.arg(0), k.arg(1), k.arg(2).shape()[0]);
        },
        {}, table);
    // size (the vocabulary), axes: rows of a sharded table.
    t.add(
        "embedding_grad_masked", kSize | kAxes,
        [](K k) {
          return embeddingMaskedBackward(
              k.arg(0), k.arg(1), k.arg(2).shape()[0],
              k.f.chunkOf(k.in.size, k.in.axes).offset);
        },
        {}, table);
    // dim, size (k: the result's count on dim): I64 positions, largest
    // first.
    t.add("topk", kDim | kExtent,
          [](K k) { return topk(k.arg(0), k.in.dim, k.in.size); });
    // dim: operands input, index.
    t.add("gather", kDim,
          [](K k) { return gather(k.arg(0), k.in.dim, k.arg(1)); });
    // dim, size (the input's extent on dim): operands grad, index.
    t.add("gather_grad", kDim | kExtent, [](K k) {
      return gatherGrad(k.arg(0), k.in.dim, k.arg(1), k.in.size);
    });
    // shape: classes last.
    t.add("one_hot", kShape,
          [](K k) { return oneHot(k.arg(0), k.in.shape.back()); });
  }
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELS_INDEX_H
