//===- DropoutTest.cpp - Tests for dropout in training ----------*- C++ -*-===//
//
// The mask keeps about 1 - p of the elements, depends only on (seed, step,
// FQN, global index), a shard's mask is the slice of the global one (uneven
// torch.chunk shards too), and the backward scales by the same mask.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/GradKernels.h"
#include "tp/Runtime/Init.h"

#include <gtest/gtest.h>

using namespace mlir::tp::runtime;

namespace {

DropoutKey key(float p, uint64_t seed = 7, int64_t step = 1,
               std::string fqn = "layers.0.attention.resid_dropout") {
  DropoutKey k;
  k.seed = seed;
  k.step = step;
  k.fqn = std::move(fqn);
  k.p = p;
  return k;
}

/// The whole tensor of \p shape, no offsets.
Tensor whole(const Tensor &x, const DropoutKey &k) {
  return dropout(x, k, x.shape(), std::vector<int64_t>(x.shape().size(), 0));
}

/// The number of elements where the masks of \p a and \p b differ.
int64_t differences(const DropoutKey &a, const DropoutKey &b, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i)
    count += dropoutKeeps(a, i) != dropoutKeeps(b, i);
  return count;
}

TEST(Dropout, KeepsAboutOneMinusPAndScalesTheKept) {
  Tensor x = initTensor(1, "x", {200, 500}, 1.0f);
  for (float p : {0.1f, 0.5f, 0.9f}) {
    Tensor y = whole(x, key(p));
    int64_t kept = 0;
    float scale = 1.0f / (1.0f - p);
    for (int64_t i = 0; i < x.numel(); ++i) {
      bool keep = dropoutKeeps(key(p), i);
      kept += keep;
      ASSERT_EQ(y.data()[i], keep ? x.data()[i] * scale : 0.0f) << i;
    }
    // 10^5 draws: the standard error of the fraction is below 0.0016.
    EXPECT_NEAR(static_cast<double>(kept) / x.numel(), 1.0 - p, 0.01) << p;
  }
}

TEST(Dropout, DeterministicAndIdentityAtZero) {
  Tensor x = initTensor(2, "x", {4, 8, 16}, 1.0f);
  EXPECT_EQ(whole(x, key(0.3f)), whole(x, key(0.3f)));
  EXPECT_EQ(whole(x, key(0.0f)), x);
}

TEST(Dropout, ShardEqualsSliceOfTheGlobalMask) {
  std::vector<int64_t> shape = {5, 6, 7};
  Tensor x = initTensor(3, "x", shape, 1.0f);
  DropoutKey k = key(0.4f);
  Tensor global = whole(x, k);
  // One dim split into k torch.chunk pieces (uneven ones and empty ones).
  for (int64_t dim = 0; dim < 3; ++dim)
    for (int64_t parts : {2, 3, 4, 6}) {
      for (int64_t i = 0; i < parts; ++i) {
        Chunk c = chunkOf(shape[dim], parts, i);
        std::vector<int64_t> offsets(3, 0);
        offsets[dim] = c.offset;
        EXPECT_EQ(
            dropout(sliceDim(x, dim, c.offset, c.size), k, shape, offsets),
            sliceDim(global, dim, c.offset, c.size))
            << "dim " << dim << " parts " << parts << " piece " << i;
      }
    }
  // Two dims split at once (a 2x3 mesh sharding dims 0 and 2), and a dim
  // split twice (nested chunks: 7 over 2, then each piece over 3).
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      Chunk a = chunkOf(5, 2, i), b = chunkOf(7, 3, j);
      Tensor local =
          sliceDim(sliceDim(x, 0, a.offset, a.size), 2, b.offset, b.size);
      Tensor expected =
          sliceDim(sliceDim(global, 0, a.offset, a.size), 2, b.offset, b.size);
      EXPECT_EQ(dropout(local, k, shape, {a.offset, 0, b.offset}), expected);
      Chunk outer = chunkOf(7, 2, i);
      Chunk inner = chunkOf(outer.size, 3, j);
      int64_t offset = outer.offset + inner.offset;
      EXPECT_EQ(
          dropout(sliceDim(x, 2, offset, inner.size), k, shape, {0, 0, offset}),
          sliceDim(global, 2, offset, inner.size));
    }
}

TEST(Dropout, SeedStepAndFQNChangeTheMask) {
  const int64_t n = 1000;
  DropoutKey base = key(0.5f, 7, 1, "drop");
  EXPECT_GT(differences(base, key(0.5f, 8, 1, "drop"), n), n / 4);
  EXPECT_GT(differences(base, key(0.5f, 7, 2, "drop"), n), n / 4);
  EXPECT_GT(differences(base, key(0.5f, 7, 1, "drop2"), n), n / 4);
  EXPECT_EQ(differences(base, key(0.5f, 7, 1, "drop"), n), 0);
  // Neither seed and step nor step and index alias each other.
  EXPECT_GT(differences(key(0.5f, 1, 2, "drop"), key(0.5f, 2, 1, "drop"), n),
            n / 4);
}

TEST(Dropout, BackwardScalesByTheForwardMask) {
  Tensor x = initTensor(4, "x", {8, 32}, 1.0f);
  Tensor g = initTensor(5, "g", {8, 32}, 1.0f);
  DropoutKey k = key(0.25f, 11, 3);
  Tensor y = whole(x, k), gx = whole(g, k);
  for (int64_t i = 0; i < x.numel(); ++i) {
    // y = x * s and gx = g * s for the same s in {0, 1/(1-p)}.
    float s = dropoutKeeps(k, i) ? 1.0f / 0.75f : 0.0f;
    ASSERT_EQ(y.data()[i], x.data()[i] * s);
    ASSERT_EQ(gx.data()[i], g.data()[i] * s);
  }
}

TEST(Dropout, Errors) {
  Tensor x({2, 3});
  EXPECT_THROW(whole(x, key(1.0f)), std::invalid_argument);
  EXPECT_THROW(whole(x, key(-0.1f)), std::invalid_argument);
  EXPECT_THROW(dropoutKeeps(key(1.0f), 0), std::invalid_argument);
  EXPECT_THROW(dropout(x, key(0.1f), {2, 3}, {0}), std::invalid_argument);
  EXPECT_THROW(dropout(x, key(0.1f), {2, 3, 1}, {0, 0, 0}),
               std::invalid_argument);
  EXPECT_THROW(dropout(x, key(0.1f), {3, 3}, {2, 0}), std::invalid_argument);
  EXPECT_THROW(dropout(x, key(0.1f), {2, 3}, {-1, 0}), std::invalid_argument);
  EXPECT_THROW(dropout(Tensor({2, 3}, DType::I64), key(0.1f), {2, 3}, {0, 0}),
               std::invalid_argument);
}

} // namespace
