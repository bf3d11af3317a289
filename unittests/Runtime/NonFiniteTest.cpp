//===- NonFiniteTest.cpp - NaN and Inf through every CPU kernel -*- C++ -*-===//
//
// Feeds NaN and infinities to each kernel and to the collectives' reduction
// and checks PyTorch's result: NaN propagates (relu(NaN) = NaN, a max over
// a NaN is NaN, a softmax or norm row with a NaN is NaN) and never vanishes.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Communicator.h"
#include "tp/Runtime/FloatOps.h"
#include "tp/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::tp::runtime;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

/// Expects \p t to hold \p expected, NaN matching NaN.
void expectValues(const Tensor &t, const std::vector<float> &expected) {
  ASSERT_EQ(t.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(t.data()[i]))
          << "element " << i << " is " << t.data()[i] << ", not nan";
    else if (std::isinf(expected[i]))
      EXPECT_EQ(t.data()[i], expected[i]) << "element " << i;
    else
      EXPECT_NEAR(t.data()[i], expected[i], 1e-5f) << "element " << i;
  }
}

/// Expects elements [begin, end) of \p t to be NaN and the others finite.
void expectNaNExactly(const Tensor &t, int64_t begin, int64_t end) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (i >= begin && i < end)
      EXPECT_TRUE(std::isnan(t.data()[i]))
          << "element " << i << " is " << t.data()[i] << ", not nan";
    else
      EXPECT_TRUE(std::isfinite(t.data()[i]))
          << "element " << i << " is " << t.data()[i];
  }
}
} // namespace

TEST(NonFinite, MaxMinKeepNaN) {
  EXPECT_TRUE(std::isnan(maxKeepNaN(kNaN, 1.0f)));
  EXPECT_TRUE(std::isnan(maxKeepNaN(1.0f, kNaN)));
  EXPECT_TRUE(std::isnan(minKeepNaN(kNaN, 1.0f)));
  EXPECT_TRUE(std::isnan(minKeepNaN(1.0f, kNaN)));
  EXPECT_EQ(maxKeepNaN(-kInf, 2.0f), 2.0f);
  EXPECT_EQ(minKeepNaN(kInf, 2.0f), 2.0f);
  EXPECT_EQ(maxKeepNaN(3.0f, 2.0f), 3.0f);
  EXPECT_EQ(minKeepNaN(3.0f, 2.0f), 2.0f);
}

TEST(NonFinite, Relu) {
  // torch.relu: NaN stays NaN; -kInf -> 0, kInf -> kInf.
  Tensor x = Tensor::fromData({6}, {kNaN, -kInf, kInf, -1, -0.0f, 2});
  Tensor y = relu(x);
  expectValues(y, {kNaN, 0, kInf, 0, 0, 2});
  EXPECT_FALSE(std::signbit(y.data()[4])) << "relu(-0) is +0";
}

TEST(NonFinite, Activations) {
  Tensor x = Tensor::fromData({3}, {kNaN, kInf, 1});
  float g1 = 0.5f * (1.0f + std::erf(1.0f / std::sqrt(2.0f)));
  expectValues(gelu(x), {kNaN, kInf, g1});
  expectValues(erf(x), {kNaN, 1, std::erf(1.0f)});
  EXPECT_TRUE(std::isnan(geluTanh(x).data()[0]));
  EXPECT_EQ(geluTanh(x).data()[1], kInf);
  expectValues(silu(x), {kNaN, kInf, 1.0f / (1.0f + std::exp(-1.0f))});
  expectValues(exp(Tensor::fromData({3}, {kNaN, -kInf, kInf})),
               {kNaN, 0, kInf});
  expectValues(neg(x), {kNaN, -kInf, -1});
  expectValues(scale(x, 2), {kNaN, kInf, 2});
}

TEST(NonFinite, Binary) {
  Tensor a = Tensor::fromData({2, 2}, {kNaN, 1, kInf, 2});
  Tensor b = Tensor::fromData({2}, {1, kNaN}); // broadcast over rows
  expectValues(add(a, b), {kNaN, kNaN, kInf, kNaN});
  expectValues(sub(a, Tensor::fromData({2, 2}, {0, 0, kInf, 0})),
               {kNaN, 1, kNaN, 2});
  expectValues(mul(a, Tensor::fromData({2, 2}, {1, 1, 0, 1})),
               {kNaN, 1, kNaN, 2});
  expectValues(div(Tensor::fromData({3}, {1, 0, -1}), Tensor::full({3}, 0)),
               {kInf, kNaN, -kInf});
}

TEST(NonFinite, SoftmaxRowWithNaNOrInfIsNaN) {
  // Rows: a NaN, a +kInf, all -kInf (fully masked), one -kInf, finite.
  Tensor x = Tensor::fromData({5, 3}, {1, kNaN, 2,          //
                                       1, kInf, 2,          //
                                       -kInf, -kInf, -kInf, //
                                       -kInf, 0, 0,         //
                                       0, 0, 0});
  Tensor y = softmax(x, 1);
  for (int i = 0; i < 9; ++i)
    EXPECT_TRUE(std::isnan(y.data()[i])) << "element " << i;
  expectValues(Tensor::fromData({6}, {y.data() + 9, y.data() + 15}),
               {0, 0.5f, 0.5f, 1.0f / 3, 1.0f / 3, 1.0f / 3});
  // Along dim 0 the NaN spoils its column only.
  Tensor z = softmax(Tensor::fromData({2, 2}, {kNaN, 1, 0, 1}), 0);
  expectValues(z, {kNaN, 0.5f, kNaN, 0.5f});
}

TEST(NonFinite, Norms) {
  // A NaN or kInf in a row makes that row NaN (mean and variance are); the
  // other rows are untouched.
  Tensor x = Tensor::fromData({3, 2}, {1, kNaN, 1, kInf, 1, 3});
  Tensor ln = layerNorm(x, nullptr, nullptr, 1e-5f);
  expectNaNExactly(ln, 0, 4);
  // RMSNorm: a NaN row is NaN; an kInf row is x * rsqrt(kInf) = [0, kNaN].
  Tensor rms = rmsNorm(x, nullptr, 1e-5f);
  expectValues(rms, {kNaN, kNaN, 0, kNaN, 1 / std::sqrt(5.0f + 1e-5f),
                     3 / std::sqrt(5.0f + 1e-5f)});
  // A NaN weight spoils its column.
  Tensor w = Tensor::fromData({2}, {kNaN, 1});
  Tensor lnw =
      layerNorm(Tensor::fromData({2, 2}, {1, 2, 3, 5}), &w, nullptr, 1e-5f);
  EXPECT_TRUE(std::isnan(lnw.data()[0]) && std::isnan(lnw.data()[2]));
  EXPECT_TRUE(std::isfinite(lnw.data()[1]) && std::isfinite(lnw.data()[3]));
}

TEST(NonFinite, LinearAndMatmul) {
  // A NaN in row 0 of x spoils output row 0; a NaN in row 1 of the weight
  // (output feature 1) spoils output column 1.
  Tensor x = Tensor::fromData({2, 2}, {kNaN, 1, 2, 3});
  Tensor w = Tensor::fromData({2, 2}, {1, 0, 0, 1});
  expectValues(linear(x, w, nullptr), {kNaN, kNaN, 2, 3});
  Tensor wn = Tensor::fromData({2, 2}, {1, 0, kNaN, 1});
  expectValues(linear(Tensor::fromData({1, 2}, {2, 3}), wn, nullptr),
               {2, kNaN});
  Tensor bias = Tensor::fromData({2}, {0, kInf});
  expectValues(linear(Tensor::fromData({1, 2}, {2, 3}), w, &bias), {2, kInf});
  // 0 * inf is NaN, in a GEMM as anywhere.
  expectValues(matmul(Tensor::fromData({2, 2}, {1, 0, 0, 1}),
                      Tensor::fromData({2, 2}, {kInf, 1, 2, 3})),
               {kInf, 1, kNaN, 3});
  expectValues(matmul(Tensor::fromData({1, 2}, {1, 1}),
                      Tensor::fromData({2, 1}, {kInf, -kInf})),
               {kNaN});
}

TEST(NonFinite, Embedding) {
  Tensor w = Tensor::fromData({3, 2}, {0, 1, kNaN, 2, 3, 4});
  expectValues(embedding(Tensor::fromData({2}, {1, 2}), w), {kNaN, 2, 3, 4});
  EXPECT_THROW(embedding(Tensor::fromData({1}, {kNaN}), w),
               std::invalid_argument);
}

TEST(NonFinite, Reductions) {
  // amax propagates NaN wherever it is in the reduced dim; sum and mean do.
  Tensor x = Tensor::fromData({2, 3}, {1, kNaN, 5, -kInf, -kInf, -kInf});
  expectValues(reduceMax(x, 1), {kNaN, -kInf});
  expectValues(reduceMax(Tensor::fromData({1, 3}, {kNaN, 1, 2}), 1), {kNaN});
  expectValues(reduceMax(Tensor::fromData({1, 3}, {1, 2, kNaN}), 1), {kNaN});
  expectValues(reduceMax(x, 0), {1, kNaN, 5});
  expectValues(reduceSum(x, 1), {kNaN, -kInf});
  expectValues(mean(Tensor::fromData({2}, {1, kNaN})), {kNaN});
  expectValues(log(Tensor::fromData({3}, {0, -1, kInf})), {-kInf, kNaN, kInf});
}

TEST(NonFinite, CrossEntropyAndTargetLogit) {
  Tensor targets = Tensor::fromData({2}, {0, 1});
  // A NaN logit anywhere in a counted row makes the mean loss NaN.
  EXPECT_TRUE(std::isnan(
      crossEntropy(Tensor::fromData({2, 2}, {1, 2, 3, kNaN}), targets)
          .data()[0]));
  EXPECT_TRUE(std::isnan(
      crossEntropy(Tensor::fromData({2, 2}, {kNaN, 2, 3, 4}), targets)
          .data()[0]));
  // So does +kInf (log_softmax is kInf - kInf).
  EXPECT_TRUE(std::isnan(
      crossEntropy(Tensor::fromData({2, 2}, {1, kInf, 3, 4}), targets)
          .data()[0]));
  // A row with ignore_index (-100) is skipped, NaN or not, like nll_loss.
  Tensor ignored = Tensor::fromData({2}, {0, -100});
  float one =
      crossEntropy(Tensor::fromData({1, 2}, {1, 2}), Tensor::fromData({1}, {0}))
          .data()[0];
  EXPECT_FLOAT_EQ(
      crossEntropy(Tensor::fromData({2, 2}, {1, 2, kNaN, kNaN}), ignored)
          .data()[0],
      one);
  // The target logit carries a NaN logit; a NaN target is no class.
  expectValues(
      targetLogit(Tensor::fromData({2, 2}, {kNaN, 1, 2, 3}), targets, 0),
      {kNaN, 3});
  EXPECT_THROW(targetLogit(Tensor::fromData({1, 2}, {1, 2}),
                           Tensor::fromData({1}, {kNaN}), 0),
               std::invalid_argument);
}

TEST(NonFinite, Rotary) {
  // Rotation mixes the two halves of a pair only.
  Tensor x = Tensor::fromData({1, 1, 1, 4}, {kNaN, 1, 2, 3});
  Tensor y = rotary(x, 1, 10000.0f);
  expectNaNExactly(y, 0, 2);
}

TEST(NonFinite, Attention) {
  // [batch 1, seq 3, heads 1, dim 2]. A NaN key at position 1 spoils the
  // queries that see it (1 and 2 under the causal mask), not query 0, as
  // PyTorch masks scores with -kInf before the softmax.
  std::vector<float> q = {1, 0, 0, 1, 1, 1};
  std::vector<float> k = {1, 0, kNaN, 1, 0, 1};
  std::vector<float> v = {1, 2, 3, 4, 5, 6};
  Tensor out = attention(Tensor::fromData({1, 3, 1, 2}, q),
                         Tensor::fromData({1, 3, 1, 2}, k),
                         Tensor::fromData({1, 3, 1, 2}, v), /*causal=*/true);
  expectNaNExactly(out, 2, 6);
  // Without the mask every query sees it.
  Tensor all = attention(Tensor::fromData({1, 3, 1, 2}, q),
                         Tensor::fromData({1, 3, 1, 2}, k),
                         Tensor::fromData({1, 3, 1, 2}, v), /*causal=*/false);
  expectNaNExactly(all, 0, 6);
  // A query with an infinite score is NaN (softmax of kInf).
  std::vector<float> qi = {kInf, 0, 0, 1, 1, 1};
  Tensor inf0 = attention(Tensor::fromData({1, 3, 1, 2}, qi),
                          Tensor::fromData({1, 3, 1, 2}, v),
                          Tensor::fromData({1, 3, 1, 2}, v), /*causal=*/true);
  expectNaNExactly(inf0, 0, 2);
}

TEST(NonFinite, CollectiveReductionsKeepNaN) {
  // all_reduce/reduce_scatter with max or min: a NaN on any rank, first or
  // not, gives NaN (torch.distributed's MAX on NaN is NaN, and all ranks
  // must agree); sum and avg propagate it arithmetically.
  for (ReduceOp op :
       {ReduceOp::Max, ReduceOp::Min, ReduceOp::Sum, ReduceOp::Avg}) {
    std::vector<float> r0 = {kNaN, 1, 2}, r1 = {1, kNaN, 3}, r2 = {0, 0, 4};
    const void *srcs[] = {r0.data(), r1.data(), r2.data()};
    std::vector<float> out(3);
    reduceBuffers(out.data(), srcs, 3, 3, DType::F32, op);
    EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]))
        << "op " << static_cast<int>(op);
    EXPECT_TRUE(std::isfinite(out[2])) << "op " << static_cast<int>(op);
  }
  // 16-bit buffers go through the same f32 reduction.
  std::vector<uint16_t> h0 = {floatToBF16(1), floatToBF16(2)},
                        h1 = {floatToBF16(kNaN), floatToBF16(kInf)};
  const void *hs[] = {h0.data(), h1.data()};
  std::vector<uint16_t> hout(2);
  reduceBuffers(hout.data(), hs, 2, 2, DType::BF16, ReduceOp::Max);
  EXPECT_TRUE(std::isnan(bf16ToFloat(hout[0])));
  EXPECT_EQ(bf16ToFloat(hout[1]), kInf);
}
