//===- InitTest.cpp - Tests for deterministic initialization ----*- C++ -*-===//
//
// Values depend only on (seed, name, index); shards equal slices of the whole.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Init.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace mlir::tp::runtime;

namespace {
TEST(InitTest, ValuesDependOnSeedNameAndIndexOnly) {
  float a = initValue(42, "layers.0.attn.wq", 17, 0.5f);
  EXPECT_EQ(a, initValue(42, "layers.0.attn.wq", 17, 0.5f));
  EXPECT_NE(a, initValue(43, "layers.0.attn.wq", 17, 0.5f));
  EXPECT_NE(a, initValue(42, "layers.0.attn.wk", 17, 0.5f));
  EXPECT_NE(a, initValue(42, "layers.0.attn.wq", 18, 0.5f));
  // The value does not depend on the shape it is generated for.
  Tensor t = initTensor(42, "layers.0.attn.wq", {4, 8}, 0.5f);
  EXPECT_EQ(t.data()[17], a);
  Tensor u = initTensor(42, "layers.0.attn.wq", {32}, 0.5f);
  EXPECT_EQ(u.values(), t.values());
}

TEST(InitTest, UniformInRange) {
  Tensor t = initTensor(1, "w", {10000}, 0.25f);
  double sum = 0, minV = 1, maxV = -1;
  for (float v : t.values()) {
    ASSERT_GE(v, -0.25f);
    ASSERT_LT(v, 0.25f);
    sum += v;
    minV = std::min<double>(minV, v);
    maxV = std::max<double>(maxV, v);
  }
  // Mean of 10^4 samples: standard error 0.25/sqrt(3e4) ~ 0.0014.
  EXPECT_NEAR(sum / t.numel(), 0.0, 0.01);
  EXPECT_LT(minV, -0.24);
  EXPECT_GT(maxV, 0.24);
}

TEST(InitTest, ShardEqualsSliceOfWhole) {
  std::vector<int64_t> shape = {5, 6, 7};
  Tensor whole = initTensor(9, "emb", shape, 1.0f);
  for (int64_t dim = 0; dim < 3; ++dim)
    for (int64_t k : {1, 2, 3, 4}) {
      for (int64_t i = 0; i < k; ++i) {
        Chunk c = chunkOf(shape[dim], k, i);
        EXPECT_EQ(initShard(9, "emb", shape, dim, c.offset, c.size, 1.0f),
                  sliceDim(whole, dim, c.offset, c.size))
            << "dim " << dim << " k " << k << " i " << i;
      }
    }
  EXPECT_EQ(initShard(9, "emb", shape, -1, 2, 3, 1.0f),
            sliceDim(whole, 2, 2, 3));
  EXPECT_THROW(initShard(9, "emb", shape, 0, 4, 2, 1.0f),
               std::invalid_argument);
}

TEST(InitTest, TokensAreIntegersInVocabulary) {
  Tensor ids = initTokens(3, "tokens", {4, 64}, 50);
  ASSERT_EQ(ids.dtype(), DType::I64);
  std::set<int64_t> distinct;
  for (int64_t i = 0; i < ids.numel(); ++i) {
    int64_t v = ids.dataI64()[i];
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 50);
    distinct.insert(v);
  }
  EXPECT_GT(distinct.size(), 40u);
  EXPECT_EQ(ids, initTokens(3, "tokens", {4, 64}, 50));
  EXPECT_THROW(initTokens(3, "tokens", {2}, 0), std::invalid_argument);
  // The whole vocabulary is reachable at the 2^24 limit.
  Tensor wide = initTokens(3, "tokens", {4096}, int64_t(1) << 24);
  int64_t largest = 0;
  for (int64_t i = 0; i < wide.numel(); ++i)
    largest = std::max(largest, wide.dataI64()[i]);
  EXPECT_GT(largest, int64_t(1) << 23);
  EXPECT_LT(largest, int64_t(1) << 24);
  EXPECT_THROW(initTokens(3, "tokens", {2}, (int64_t(1) << 24) + 1),
               std::invalid_argument);
}
} // namespace
