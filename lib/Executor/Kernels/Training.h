//===- Training.h - reductions, losses, dropout and clipping ----*- C++ -*-===//
//
// Kernels that reduce (max, sum, mean, sum_to), the losses and their
// gradients (a mean over a shard of rows scaled to the global count),
// dropout in training (a mask of the seed, step, FQN and global index) and
// clipping by the global norm. Private to lib/Executor (see KernelTable.h).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_KERNELS_TRAINING_H
#define TP_LIB_EXECUTOR_KERNELS_TRAINING_H

#include "../KernelTable.h"

namespace mlir::tp::exec::detail {

/// A mean over \p own elements (or rows) made a mean over \p count of them
/// (a shard's part of the global mean); \p count 0 keeps it.
template <class Buffer>
Buffer overCount(Buffer mean, int64_t own, int64_t count) {
  if (count == 0 || count == own)
    return mean;
  return scale(mean, static_cast<float>(static_cast<double>(own) /
                                        static_cast<double>(count)));
}

/// A loss whose rows are split over ranks (\p count, the global row count,
/// is set and differs from this rank's) is each rank's mean scaled by its
/// share of the rows. tp-partition gives a loss whose targets may hold -100
/// the global number of rows not ignored instead (the operand `valid`), so
/// an ignored row here means targets it judged could not hold one: an
/// error rather than a wrong loss.
inline void checkNoIgnoredRows(const Tensor &targets, int64_t count) {
  if (count == 0 || count == targets.numel())
    return;
  for (int64_t i = 0; i < targets.numel(); ++i)
    if (targets.atInt(i) == kIgnoreIndex)
      throw std::runtime_error(
          "cross_entropy: a target of -100 (ignore_index) in a loss whose "
          "rows are split over ranks; tp averages such a loss over all " +
          std::to_string(count) +
          " rows, so ignored rows are supported only when every rank holds "
          "all of them");
}

template <class B> void addTrainingKernels(KernelTable<B> &t) {
  using K = const KernelCall<B> &;
  if constexpr (B::kHostOnlyKernels) {
    // dim.
    t.add("reduce_max", kDim,
          [](K k) { return reduceMax(k.arg(0), k.in.dim); });
    t.add("reduce_sum", kDim,
          [](K k) { return reduceSum(k.arg(0), k.in.dim); });
    // size: the global count over a shard (0: its own).
    t.add("mean", kCount, [](K k) {
      return overCount(mean(k.arg(0)), k.arg(0).numel(), k.in.size);
    });
    // shape (-1: the grad's extent there, an uneven dim).
    t.add("sum_to", kShape, [](K k) {
      std::vector<int64_t> s = k.in.shape;
      size_t lead = k.arg(0).shape().size() - s.size();
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] < 0)
          s[i] = k.arg(0).shape()[lead + i];
      return sumToShape(k.arg(0), s);
    });
    // shape: the mean's input.
    t.add("mean_grad", kShape | kStaticShape,
          [](K k) { return meanBackward(k.arg(0), k.in.shape); });
    // dim: operands grad, input.
    t.add("reduce_sum_grad", kDim, [](K k) {
      return reduceSumBackward(k.arg(0), k.arg(1).shape(), k.in.dim);
    });
    t.add("reduce_max_grad", kDim,
          [](K k) { return reduceMaxBackward(k.arg(0), k.arg(1), k.in.dim); });
    // size (classes), axes: empty unless the classes are sharded (then
    // this rank's classes start at its chunk's offset).
    t.add("target_logit", kSize | kAxes, [](K k) {
      return targetLogit(
          k.arg(0), k.arg(1),
          k.in.axes.empty() ? 0 : k.f.chunkOf(k.in.size, k.in.axes).offset);
    });
    // operands grad, logits, targets; size as target_logit's.
    t.add("target_logit_grad", kSize | kAxes, [](K k) {
      return targetLogitBackward(
          k.arg(0), k.arg(2), k.arg(1).shape()[1],
          k.in.axes.empty() ? 0 : k.f.chunkOf(k.in.size, k.in.axes).offset);
    });
    // size: the global rows over a shard of rows (0: its own); or operand
    // 2, the global rows not ignored (a rank-0 f32).
    t.add(
        "cross_entropy", kCount,
        [](K k) {
          if (k.numOperands() > 2)
            return crossEntropy(k.arg(0), k.arg(1), k.arg(2).at(0));
          checkNoIgnoredRows(k.arg(1), k.in.size);
          return overCount(crossEntropy(k.arg(0), k.arg(1)), k.arg(1).numel(),
                           k.in.size);
        },
        {}, kApproxExp);
    // size or operand 3 (as cross_entropy): operands grad, logits, targets.
    t.add(
        "cross_entropy_grad", kCount,
        [](K k) {
          if (k.numOperands() > 3)
            return crossEntropyBackward(k.arg(1), k.arg(2), k.arg(0),
                                        k.arg(3).at(0));
          checkNoIgnoredRows(k.arg(2), k.in.size);
          return overCount(crossEntropyBackward(k.arg(1), k.arg(2), k.arg(0)),
                           k.arg(2).numel(), k.in.size);
        },
        {}, kApproxExp);
    // The targets not ignored (-100): a cross entropy's divisor.
    t.add("valid_rows", 0, [](K k) { return validRows(k.arg(0)); });
    // Dropout in training and its backward (the same mask on the
    // gradient): value (p), name (the FQN, the mask's key), shape (the
    // global shape), shardDims (empty unless the operand is a shard). The
    // backward draws the forward's mask again.
    auto drop = [](K k) {
      rt::DropoutKey key;
      key.seed = k.f.data->seed;
      key.step = k.f.step;
      key.fqn = k.in.name;
      key.p = k.in.value;
      return dropout(k.arg(0), key, k.in.shape,
                     k.f.shardOffsets(k.in.shape, k.in.shardDims));
    };
    t.add("dropout", kDropout, drop);
    t.add("dropout_grad", kDropout, drop);
    // Clipping by the global norm (clip_grad_norm_): every operand's
    // squared elements, summed (an f32 scalar); then
    // min(1, max_norm / (sqrt(x) + 1e-6)).
    t.add("sum_squares", 0, [](K k) {
      double total = 0;
      for (size_t i = 0; i < k.numOperands(); ++i)
        total += sumOfSquares(k.arg(i));
      return Tensor::full({}, static_cast<float>(total));
    });
    t.add("clip_coefficient", kMaxNorm, [](K k) {
      return Tensor::full({}, rt::clipCoefficient(k.arg(0).at(0), k.in.value));
    });
  }
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_KERNELS_TRAINING_H
