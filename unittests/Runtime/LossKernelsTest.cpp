//===- LossKernelsTest.cpp - keepdim reductions and target logits -*- C++
//-*-===//
//
// Checks the kernels of the class-parallel cross entropy against hand values
// and checks that their composition over class shards equals crossEntropy.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::tp::runtime;

TEST(LossKernels, ReduceKeepsDim) {
  Tensor x = Tensor::fromData({2, 3}, {1, 5, 2, -1, -4, 0});
  Tensor mx = reduceMax(x, 1);
  EXPECT_EQ(mx.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_FLOAT_EQ(mx.data()[0], 5);
  EXPECT_FLOAT_EQ(mx.data()[1], 0);
  Tensor sum0 = reduceSum(x, 0);
  EXPECT_EQ(sum0.shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_FLOAT_EQ(sum0.data()[0], 0);
  EXPECT_FLOAT_EQ(sum0.data()[1], 1);
  EXPECT_FLOAT_EQ(sum0.data()[2], 2);
  EXPECT_FLOAT_EQ(reduceSum(x, -1).data()[1], -5);
}

TEST(LossKernels, LogAndMean) {
  Tensor x = Tensor::fromData({3}, {1, std::exp(2.0f), std::exp(-1.0f)});
  Tensor l = log(x);
  EXPECT_FLOAT_EQ(l.data()[0], 0);
  EXPECT_NEAR(l.data()[1], 2, 1e-6);
  EXPECT_NEAR(l.data()[2], -1, 1e-6);
  Tensor m = mean(Tensor::fromData({4}, {1, 2, 3, 6}));
  EXPECT_EQ(m.rank(), 0);
  EXPECT_FLOAT_EQ(m.data()[0], 3);
}

TEST(LossKernels, TargetLogitMasksOtherShards) {
  Tensor logits = Tensor::fromData({2, 2}, {10, 11, 20, 21});
  // This shard holds classes [2, 4): target 3 is local, target 0 is not.
  Tensor t = targetLogit(logits, Tensor::fromData({2}, {3, 0}), 2);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_FLOAT_EQ(t.data()[0], 11);
  EXPECT_FLOAT_EQ(t.data()[1], 0);
  EXPECT_THROW(targetLogit(logits, Tensor::fromData({2}, {0.5f, 1}), 0),
               std::invalid_argument);
  // Integral floats beyond int64_t: rejected, not converted (undefined).
  EXPECT_THROW(targetLogit(logits, Tensor::fromData({2}, {1e30f, 1}), 0),
               std::invalid_argument);
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW(targetLogit(logits, Tensor::fromData({2}, {inf, 1}), 0),
               std::invalid_argument);
}

TEST(LossKernels, TargetLogitTakesIntegerTargets) {
  Tensor logits = Tensor::fromData({3, 2}, {10, 11, 20, 21, 30, 31});
  constexpr int64_t big = (int64_t(1) << 40) + 2;
  for (DType dtype : {DType::I64, DType::I32}) {
    // Classes [2, 4): 3 and 2 are local, 0 is not.
    Tensor t = targetLogit(logits, Tensor::fromInts({3}, {3, 0, 2}, dtype), 2);
    EXPECT_EQ(t, Tensor::fromData({3, 1}, {11, 0, 30})) << dtypeName(dtype);
  }
  // Targets beyond 2^24 select exactly: f32 would round 2^40, 2^40 + 1 and
  // 2^40 + 2 to one value.
  Tensor far = targetLogit(
      logits, Tensor::fromInts({3}, {big, big - 1, big - 2}), big - 2);
  EXPECT_EQ(far, Tensor::fromData({3, 1}, {0, 21, 30}));
  EXPECT_THROW(targetLogit(logits, Tensor::fromInts({3}, {0, 0, 0}), -1),
               std::invalid_argument);
  EXPECT_THROW(
      targetLogit(logits, Tensor::fromInts({3}, {0, 0, 0}).to(DType::BF16), 0),
      std::invalid_argument);
}

TEST(LossKernels, ShardedCompositionEqualsCrossEntropy) {
  // Two class shards of [3, 4] logits, combined as loss_parallel does.
  Tensor logits =
      Tensor::fromData({3, 4}, {0.1f, 2.0f, -1.0f, 0.5f, 3.0f, 0.0f, 1.0f,
                                -2.0f, 0.3f, 0.3f, 0.3f, 4.0f});
  Tensor targets = Tensor::fromData({3}, {1, 0, 3});
  Tensor a = sliceDim(logits, 1, 0, 2), b = sliceDim(logits, 1, 2, 2);
  Tensor mx = reduceMax(a, 1);
  Tensor mb = reduceMax(b, 1);
  for (int i = 0; i < 3; ++i)
    mx.data()[i] = std::max(mx.data()[i], mb.data()[i]);
  Tensor sa = sub(a, mx), sb = sub(b, mx);
  Tensor se = add(reduceSum(exp(sa), 1), reduceSum(exp(sb), 1));
  Tensor tl = add(targetLogit(sa, targets, 0), targetLogit(sb, targets, 2));
  Tensor loss = mean(sub(log(se), tl));
  EXPECT_NEAR(loss.data()[0], crossEntropy(logits, targets).data()[0], 1e-6);
}
