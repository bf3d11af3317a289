//===- KernelsTest.cpp - Tests for the f32 CPU kernels ----------*- C++ -*-===//
//
// Each kernel against a naive loop implementation or known values.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Kernels.h"

#include "tp/Runtime/Init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

using namespace mlir::tp::runtime;

namespace {
Tensor rand(std::vector<int64_t> shape, const std::string &name = "x") {
  return initTensor(7, name, shape, 1.0f);
}

void expectNear(const Tensor &actual, const Tensor &expected,
                float tol = 1e-5f) {
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < actual.numel(); ++i)
    ASSERT_NEAR(actual.data()[i], expected.data()[i], tol) << "element " << i;
}

/// Naive C[m, n] = A[m, k] B[k, n].
std::vector<float> naiveMatmul(const float *a, const float *b, int64_t m,
                               int64_t k, int64_t n) {
  std::vector<float> c(m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = static_cast<float>(s);
    }
  return c;
}

TEST(KernelsTest, LinearMatchesNaive) {
  Tensor x = rand({2, 3, 5}, "x"), w = rand({4, 5}, "w"), b = rand({4}, "b");
  Tensor y = linear(x, w, &b);
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{2, 3, 4}));
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t o = 0; o < 4; ++o) {
      double s = b.data()[o];
      for (int64_t i = 0; i < 5; ++i)
        s += x.data()[r * 5 + i] * w.data()[o * 5 + i];
      EXPECT_NEAR(y.data()[r * 4 + o], s, 1e-5);
    }
  Tensor noBias = linear(x, w, nullptr);
  EXPECT_NEAR(noBias.data()[0] + b.data()[0], y.data()[0], 1e-6);
  EXPECT_THROW(linear(x, rand({4, 6}), nullptr), std::invalid_argument);
  Tensor badBias({3});
  EXPECT_THROW(linear(x, w, &badBias), std::invalid_argument);
}

TEST(KernelsTest, LinearEmptyInnerDimGivesBias) {
  Tensor x({3, 0}), w({2, 0});
  Tensor b = Tensor::fromData({2}, {1, 2});
  Tensor y = linear(x, w, &b);
  EXPECT_EQ(y.values(), (std::vector<float>{1, 2, 1, 2, 1, 2}));
}

TEST(KernelsTest, MatmulBatchedAndBroadcast) {
  Tensor a = rand({2, 3, 4}, "a"), b = rand({2, 4, 5}, "b");
  Tensor c = matmul(a, b);
  ASSERT_EQ(c.shape(), (std::vector<int64_t>{2, 3, 5}));
  for (int64_t i = 0; i < 2; ++i) {
    std::vector<float> ref =
        naiveMatmul(a.data() + i * 12, b.data() + i * 20, 3, 4, 5);
    for (int64_t j = 0; j < 15; ++j)
      EXPECT_NEAR(c.data()[i * 15 + j], ref[j], 1e-5);
  }
  // A 2-D right operand applies to every batch.
  Tensor b2 = rand({4, 5}, "b2");
  Tensor c2 = matmul(a, b2);
  for (int64_t i = 0; i < 2; ++i) {
    std::vector<float> ref = naiveMatmul(a.data() + i * 12, b2.data(), 3, 4, 5);
    for (int64_t j = 0; j < 15; ++j)
      EXPECT_NEAR(c2.data()[i * 15 + j], ref[j], 1e-5);
  }
  // Broadcast batch dims on the left operand.
  Tensor a1 = rand({1, 3, 4}, "a1");
  Tensor c3 = matmul(a1, b);
  ASSERT_EQ(c3.shape(), (std::vector<int64_t>{2, 3, 5}));
  std::vector<float> ref = naiveMatmul(a1.data(), b.data() + 20, 3, 4, 5);
  for (int64_t j = 0; j < 15; ++j)
    EXPECT_NEAR(c3.data()[15 + j], ref[j], 1e-5);
  EXPECT_THROW(matmul(a, rand({2, 5, 5})), std::invalid_argument);
  EXPECT_THROW(matmul(rand({3, 3, 4}), b), std::invalid_argument);
}

TEST(KernelsTest, BroadcastingBinaryOps) {
  Tensor a = Tensor::fromData({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row = Tensor::fromData({3}, {10, 20, 30});
  Tensor col = Tensor::fromData({2, 1}, {100, 200});
  EXPECT_EQ(add(a, row).values(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(sub(a, col).values(),
            (std::vector<float>{-99, -98, -97, -196, -195, -194}));
  EXPECT_EQ(mul(a, Tensor::scalar(2)).values(),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(div(a, a).values(), std::vector<float>(6, 1.0f));
  Tensor outer = add(row, col);
  EXPECT_EQ(outer.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(outer.values(), (std::vector<float>{110, 120, 130, 210, 220, 230}));
  EXPECT_EQ(broadcastShapes({4, 1, 3}, {2, 1}),
            (std::vector<int64_t>{4, 2, 3}));
  EXPECT_THROW(add(a, Tensor({2})), std::invalid_argument);
}

TEST(KernelsTest, UnaryKnownValues) {
  Tensor x = Tensor::fromData({4}, {-2, -0.5f, 0, 1});
  EXPECT_EQ(relu(x).values(), (std::vector<float>{0, 0, 0, 1}));
  EXPECT_NEAR(gelu(x).data()[3], 0.8413447f, 1e-6);
  EXPECT_NEAR(gelu(x).data()[0], -0.0455003f, 1e-6);
  EXPECT_NEAR(geluTanh(x).data()[3], 0.8411920f, 1e-6);
  EXPECT_NEAR(gelu_tanh(x).data()[1], -0.1542859f, 1e-6);
  EXPECT_NEAR(silu(x).data()[3], 0.7310586f, 1e-6);
  EXPECT_NEAR(silu(x).data()[0], -0.2384058f, 1e-6);
  EXPECT_EQ(neg(x).values(), (std::vector<float>{2, 0.5f, -0.0f, -1}));
  EXPECT_NEAR(exp(x).data()[3], 2.7182818f, 1e-6);
  EXPECT_EQ(scale(x, 3).values(), (std::vector<float>{-6, -1.5f, 0, 3}));
}

TEST(KernelsTest, SliceWithStepsAndItsGradient) {
  // [2, 5]: rows 0..4 and 10..14.
  Tensor x = Tensor::fromData({2, 5}, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14});
  EXPECT_EQ(slice(x, 1, 1, 2, 2).values(), (std::vector<float>{1, 3, 11, 13}));
  EXPECT_EQ(slice(x, -1, 4, 1, 1).values(), (std::vector<float>{4, 14}));
  EXPECT_EQ(slice(x, 0, 1, 1, 1).values(),
            (std::vector<float>{10, 11, 12, 13, 14}));
  EXPECT_EQ(slice(x, 1, 0, 3, 0).shape(), (std::vector<int64_t>{2, 0}));
  // Token ids slice as they are.
  Tensor ids = Tensor::fromInts({4}, {7, 8, 9, 10});
  Tensor picked = slice(ids, 0, 1, 2, 2);
  EXPECT_EQ(picked.dtype(), DType::I64);
  EXPECT_EQ(picked.dataI64()[1], 10);
  Tensor g = Tensor::fromData({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(sliceGrad(g, 1, 1, 2, 5).values(),
            (std::vector<float>{0, 1, 0, 2, 0, 0, 3, 0, 4, 0}));
  // The last element picked must lie inside the dim.
  EXPECT_THROW(slice(x, 1, 1, 2, 3), std::invalid_argument);
  EXPECT_THROW(sliceGrad(g, 1, 2, 2, 4), std::invalid_argument);
  EXPECT_THROW(slice(x, 1, 0, 0, 1), std::invalid_argument);
}

TEST(KernelsTest, TopkGatherAndOneHot) {
  // Rows [3, 1, 3, nan] and [0, -1, 2, 2] (ties keep their order; NaN
  // ranks first, as in PyTorch).
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::fromData({2, 4}, {3, 1, 3, nan, 0, -1, 2, 2});
  Tensor idx = topk(x, 1, 3);
  EXPECT_EQ(idx.dtype(), DType::I64);
  EXPECT_EQ(std::vector<int64_t>(idx.dataI64(), idx.dataI64() + 6),
            (std::vector<int64_t>{3, 0, 2, 2, 3, 0}));
  // Along dim 0 of the transpose: the same positions.
  Tensor col = topk(transpose(x, 0, 1), 0, 2);
  EXPECT_EQ(col.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(std::vector<int64_t>(col.dataI64(), col.dataI64() + 4),
            (std::vector<int64_t>{3, 2, 0, 3}));
  EXPECT_THROW(topk(x, 1, 5), std::invalid_argument);

  Tensor y = Tensor::fromData({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor pick = Tensor::fromInts({2, 2}, {2, 0, 1, 1});
  EXPECT_EQ(gather(y, 1, pick).values(), (std::vector<float>{3, 1, 5, 5}));
  // The gradient adds where an element was picked twice.
  Tensor g = Tensor::fromData({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(gatherGrad(g, 1, pick, 3).values(),
            (std::vector<float>{2, 0, 1, 0, 7, 0}));
  EXPECT_THROW(gather(y, 1, Tensor::fromInts({2, 1}, {3, 0})),
               std::invalid_argument);
  EXPECT_THROW(gather(y, 1, Tensor::fromInts({1, 2}, {0, 0})),
               std::invalid_argument);

  Tensor oh = oneHot(Tensor::fromInts({3}, {2, 0, 1}), 3);
  EXPECT_EQ(oh.shape(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(std::vector<int64_t>(oh.dataI64(), oh.dataI64() + 9),
            (std::vector<int64_t>{0, 0, 1, 1, 0, 0, 0, 1, 0}));
  EXPECT_THROW(oneHot(Tensor::fromInts({1}, {3}), 3), std::invalid_argument);
  EXPECT_THROW(oneHot(Tensor::fromInts({1}, {-1}), 3), std::invalid_argument);
}

TEST(KernelsTest, CompareLogicAndWhere) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::fromData({2, 3}, {1, -2, nan, 0, 5, 3});
  Tensor t = Tensor::scalar(1);
  auto bits = [](const Tensor &m) {
    return std::vector<int>(m.dataBool(), m.dataBool() + m.numel());
  };
  EXPECT_EQ(bits(compare(x, t, Predicate::Lt)),
            (std::vector<int>{0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(bits(compare(x, t, Predicate::Ge)),
            (std::vector<int>{1, 0, 0, 0, 1, 1}));
  // NaN: unequal to everything.
  EXPECT_EQ(bits(compare(x, x, Predicate::Eq)),
            (std::vector<int>{1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(bits(compare(x, x, Predicate::Ne)),
            (std::vector<int>{0, 0, 1, 0, 0, 0}));
  // Ids against an id, broadcast over a column.
  Tensor ids = Tensor::fromInts({2, 2}, {0, 7, 7, 0});
  Tensor pad = Tensor::fromInts({2, 1}, {0, 7});
  Tensor ne = compare(ids, pad, Predicate::Ne);
  EXPECT_EQ(ne.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(bits(ne), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(bits(logicalNot(ne)), (std::vector<int>{1, 0, 1, 0}));
  Tensor col = compare(pad, Tensor::fromInts({}, {0}), Predicate::Eq); // [2,1]
  EXPECT_EQ(bits(logicalAnd(ne, col)), (std::vector<int>{0, 1, 0, 0}));
  EXPECT_EQ(bits(logicalOr(ne, col)), (std::vector<int>{1, 1, 0, 1}));
  Tensor w =
      where(ne, Tensor::fromData({2, 2}, {1, 2, 3, 4}), Tensor::scalar(-9));
  EXPECT_EQ(w.values(), (std::vector<float>{-9, 2, -9, 4}));
  EXPECT_THROW(compare(x, Tensor::fromData({2}, {0, 0}), Predicate::Eq),
               std::invalid_argument);
  EXPECT_THROW(parsePredicate("lte"), std::invalid_argument);
  EXPECT_EQ(abs(Tensor::fromData({2}, {-1.5f, 2})).values(),
            (std::vector<float>{1.5f, 2}));
}

TEST(KernelsTest, PermuteMovesIdsAsTheyAre) {
  Tensor ids = Tensor::fromInts({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor t = permute(ids, {1, 0});
  EXPECT_EQ(t.dtype(), DType::I64);
  EXPECT_EQ(std::vector<int64_t>(t.dataI64(), t.dataI64() + 6),
            (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
}

TEST(KernelsTest, MathKnownValues) {
  Tensor x = Tensor::fromData({4}, {-2, -0.5f, 0.25f, 4});
  EXPECT_NEAR(tanh(x).data()[0], -0.9640276f, 1e-6);
  EXPECT_NEAR(tanh(x).data()[3], 0.9993293f, 1e-6);
  EXPECT_NEAR(sigmoid(x).data()[1], 0.3775407f, 1e-6);
  EXPECT_EQ(sigmoid(x).data()[2] + sigmoid(neg(x)).data()[2], 1.0f);
  // e^-x overflows below -88: the sigmoid is 0, not NaN.
  EXPECT_EQ(sigmoid(Tensor::fromData({1}, {-100})).data()[0], 0.0f);
  EXPECT_EQ(sqrt(x).data()[2], 0.5f);
  EXPECT_TRUE(std::isnan(sqrt(x).data()[0]));
  EXPECT_EQ(rsqrt(x).data()[3], 0.5f);
  EXPECT_EQ(reciprocal(x).values(), (std::vector<float>{-0.5f, -2, 4, 0.25f}));
  EXPECT_EQ(pow(x, 2).values(), (std::vector<float>{4, 0.25f, 0.0625f, 16}));
  EXPECT_EQ(pow(x, 3).data()[0], -8.0f);
  EXPECT_EQ(pow(x, 0.5f).data()[3], 2.0f);
  // A negative base to a non-integral power is NaN, as torch.pow.
  EXPECT_TRUE(std::isnan(pow(x, 0.5f).data()[1]));
  EXPECT_EQ(pow(x, 0).values(), std::vector<float>(4, 1.0f));
}

namespace {
/// Distance from \p got to \p want (an f32 result computed in double) in
/// units of the f32 spacing at \p want.
double ulpError(float got, double want) {
  float w = static_cast<float>(want);
  double ulp = std::nextafter(std::fabs(w), INFINITY) - std::fabs(w);
  return std::fabs(got - want) / ulp;
}
} // namespace

TEST(KernelsTest, ErfMatchesStdErfWithinOneUlp) {
  // Every 997th f32 from 0 to 6 with both signs (erf is +-1 beyond), plus
  // the specials.
  std::vector<float> values = {0.0f,
                               -0.0f,
                               INFINITY,
                               -INFINITY,
                               std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::min()};
  for (uint32_t bits = 0; bits <= 0x40C00000u; bits += 997) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
    values.push_back(-v);
  }
  Tensor x = Tensor::fromData({static_cast<int64_t>(values.size())}, values);
  Tensor y = erf(x);
  double worst = 0;
  float worstAt = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    double e = ulpError(y.data()[i], std::erf(static_cast<double>(values[i])));
    if (e > worst) {
      worst = e;
      worstAt = values[i];
    }
  }
  EXPECT_LE(worst, 1.0) << "at x = " << worstAt;
  EXPECT_TRUE(std::isnan(erf(Tensor::scalar(NAN)).data()[0]));
}

TEST(KernelsTest, GeluMatchesStdErfFormula) {
  // gelu(x) = 0.5 x (1 + erf(x / sqrt 2)): within a few f32 roundings of
  // the formula evaluated in double, on a dense grid.
  std::vector<float> values;
  for (int i = -120000; i <= 120000; ++i)
    values.push_back(i * 1.0e-4f);
  Tensor y =
      gelu(Tensor::fromData({static_cast<int64_t>(values.size())}, values));
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    double want = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    ASSERT_NEAR(y.data()[i], want, 2.5e-7 * std::max(1.0, std::fabs(v)))
        << "at x = " << v;
  }
}

TEST(KernelsTest, SiluMatchesExpFormula) {
  // silu(x) = x / (1 + exp(-x)) through the vectorized exp: within a few
  // f32 roundings of the formula in double, out to where exp overflows.
  std::vector<float> values;
  for (int i = -200000; i <= 200000; ++i)
    values.push_back(i * 6.0e-4f);
  Tensor y =
      silu(Tensor::fromData({static_cast<int64_t>(values.size())}, values));
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    double want = v / (1.0 + std::exp(-v));
    ASSERT_NEAR(y.data()[i], want, 4e-7 * std::max(1e-30, std::fabs(want)))
        << "at x = " << v;
  }
  Tensor special = silu(Tensor::fromData({3}, {NAN, INFINITY, -INFINITY}));
  EXPECT_TRUE(std::isnan(special.data()[0]));
  EXPECT_EQ(special.data()[1], INFINITY);
  // -inf / (1 + inf) is NaN, as in PyTorch.
  EXPECT_TRUE(std::isnan(special.data()[2]));
}

TEST(KernelsTest, SoftmaxAlongEachDim) {
  Tensor x = rand({2, 3, 4});
  x.data()[0] = 1000.0f; // Stability: must not overflow.
  for (int64_t dim = 0; dim < 3; ++dim) {
    Tensor y = softmax(x, dim);
    int64_t outer = 1, inner = 1, extent = x.dim(dim);
    for (int64_t i = 0; i < dim; ++i)
      outer *= x.dim(i);
    for (int64_t i = dim + 1; i < 3; ++i)
      inner *= x.dim(i);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        double maxV = -1e30, sum = 0;
        for (int64_t j = 0; j < extent; ++j)
          maxV =
              std::max<double>(maxV, x.data()[(o * extent + j) * inner + in]);
        for (int64_t j = 0; j < extent; ++j)
          sum += std::exp(x.data()[(o * extent + j) * inner + in] - maxV);
        for (int64_t j = 0; j < extent; ++j) {
          int64_t idx = (o * extent + j) * inner + in;
          EXPECT_NEAR(y.data()[idx], std::exp(x.data()[idx] - maxV) / sum,
                      1e-6);
        }
      }
  }
  EXPECT_NEAR(softmax(x, -1).data()[0], 1.0f, 1e-6);
}

TEST(KernelsTest, LayerNormKnownValues) {
  Tensor x = Tensor::fromData({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  Tensor w = Tensor::fromData({4}, {1, 2, 1, 1});
  Tensor b = Tensor::fromData({4}, {0, 0, 0, 1});
  Tensor y = layerNorm(x, &w, &b, 1e-5f);
  // Row 0: mean 2.5, biased variance 1.25.
  float inv = 1.0f / std::sqrt(1.25f + 1e-5f);
  EXPECT_NEAR(y.data()[0], -1.5f * inv, 1e-5);
  EXPECT_NEAR(y.data()[1], -0.5f * inv * 2, 1e-5);
  EXPECT_NEAR(y.data()[2], 0.5f * inv, 1e-5);
  EXPECT_NEAR(y.data()[3], 1.5f * inv + 1, 1e-5);
  // Row 1: constant, normalizes to zero (plus bias).
  EXPECT_NEAR(y.data()[4], 0.0f, 1e-6);
  EXPECT_NEAR(y.data()[7], 1.0f, 1e-6);
  Tensor plain = layerNorm(x, nullptr, nullptr, 1e-5f);
  EXPECT_NEAR(plain.data()[3], 1.5f * inv, 1e-5);
  Tensor bad({3});
  EXPECT_THROW(layerNorm(x, &bad, nullptr, 1e-5f), std::invalid_argument);
}

TEST(KernelsTest, RmsNormKnownValues) {
  Tensor x = Tensor::fromData({1, 2}, {3, 4});
  Tensor w = Tensor::fromData({2}, {1, 0.5f});
  Tensor y = rmsNorm(x, &w, 0.0f);
  // mean(x^2) = 12.5.
  float inv = 1.0f / std::sqrt(12.5f);
  EXPECT_NEAR(y.data()[0], 3 * inv, 1e-6);
  EXPECT_NEAR(y.data()[1], 4 * inv * 0.5f, 1e-6);
  EXPECT_NEAR(rmsNorm(x, nullptr, 1e-6f).data()[1],
              4 / std::sqrt(12.5f + 1e-6f), 1e-6);
}

TEST(KernelsTest, EmbeddingGathersRows) {
  Tensor w = Tensor::fromData({3, 2}, {0, 1, 10, 11, 20, 21});
  Tensor ids = Tensor::fromData({2, 2}, {2, 0, 1, 2});
  Tensor e = embedding(ids, w);
  ASSERT_EQ(e.shape(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(e.values(), (std::vector<float>{20, 21, 0, 1, 10, 11, 20, 21}));
  EXPECT_THROW(embedding(Tensor::fromData({1}, {3}), w), std::invalid_argument);
  EXPECT_THROW(embedding(Tensor::fromData({1}, {-1}), w),
               std::invalid_argument);
  EXPECT_THROW(embedding(Tensor::fromData({1}, {0.5f}), w),
               std::invalid_argument);
}

/// Expects \p fn to throw std::invalid_argument containing \p part.
template <class Fn> void expectInvalid(Fn fn, const std::string &part) {
  try {
    fn();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(KernelsTest, EmbeddingTakesIntegerIds) {
  Tensor w = Tensor::fromData({3, 2}, {0, 1, 10, 11, 20, 21});
  Tensor f32 = embedding(Tensor::fromData({2, 2}, {2, 0, 1, 2}), w);
  for (DType dtype : {DType::I64, DType::I32}) {
    Tensor ids = Tensor::fromInts({2, 2}, {2, 0, 1, 2}, dtype);
    EXPECT_EQ(embedding(ids, w), f32) << dtypeName(dtype);
    expectInvalid([&] { embedding(Tensor::fromInts({1}, {3}, dtype), w); },
                  "embedding: id 3 out of range [0, 3)");
    expectInvalid([&] { embedding(Tensor::fromInts({1}, {-1}, dtype), w); },
                  "embedding: id -1 out of range [0, 3)");
  }
  // An id that f32 would round into range is still out of range.
  constexpr int64_t big = (int64_t(1) << 40) + 1;
  expectInvalid([&] { embedding(Tensor::fromInts({1}, {big}), w); },
                "id 1099511627777 out of range");
  expectInvalid(
      [&] { embedding(Tensor::fromInts({1}, {1}).to(DType::BF16), w); },
      "embedding: ids are a BF16 tensor");
  // Masked: ids of other shards give zero rows, negative ids still throw.
  Tensor ids = Tensor::fromInts({3}, {4, 1, big});
  Tensor part = embeddingMasked(ids, w, 3);
  EXPECT_EQ(part, Tensor::fromData({3, 2}, {10, 11, 0, 0, 0, 0}));
  expectInvalid([&] { embeddingMasked(Tensor::fromInts({1}, {-2}), w, 3); },
                "embeddingMasked: id -2 out of range [3, 6)");
  // The extremes of int64 are checked without overflowing id - offset.
  int64_t lowest = std::numeric_limits<int64_t>::min();
  expectInvalid([&] { embeddingMasked(Tensor::fromInts({1}, {lowest}), w, 3); },
                "id -9223372036854775808 out of range [3, 6)");
  Tensor highest = Tensor::fromInts({1}, {std::numeric_limits<int64_t>::max()});
  EXPECT_EQ(embeddingMasked(highest, w, 3), Tensor({1, 2}));
}

TEST(KernelsTest, MaskedEmbeddingShardsSumToFull) {
  Tensor w = rand({7, 3}, "emb");
  Tensor ids = Tensor::fromData({5}, {0, 6, 3, 4, 2});
  Tensor full = embedding(ids, w);
  Tensor sum({5, 3});
  for (int64_t r = 0; r < 3; ++r) {
    Chunk c = chunkOf(7, 3, r);
    Tensor part =
        embeddingMasked(ids, sliceDim(w, 0, c.offset, c.size), c.offset);
    sum = add(sum, part);
  }
  expectNear(sum, full, 0.0f);
  Tensor shard = sliceDim(w, 0, 3, 3);
  Tensor part = embeddingMasked(ids, shard, 3);
  EXPECT_EQ(part.data()[0], 0.0f);        // id 0 is not in rows [3, 6).
  EXPECT_EQ(part.data()[6], w.data()[9]); // id 3 is.
}

TEST(KernelsTest, PermuteAndTranspose) {
  Tensor x = rand({2, 3, 4});
  Tensor t = transpose(x, 0, 2);
  ASSERT_EQ(t.shape(), (std::vector<int64_t>{4, 3, 2}));
  Tensor p = permute(x, {1, 2, 0});
  ASSERT_EQ(p.shape(), (std::vector<int64_t>{3, 4, 2}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) {
        float v = x.data()[(i * 3 + j) * 4 + k];
        EXPECT_EQ(t.data()[(k * 3 + j) * 2 + i], v);
        EXPECT_EQ(p.data()[(j * 4 + k) * 2 + i], v);
      }
  EXPECT_EQ(transpose(t, 0, 2), x);
  EXPECT_THROW(permute(x, {0, 0, 1}), std::invalid_argument);
  EXPECT_THROW(permute(x, {0, 1}), std::invalid_argument);
  EXPECT_EQ(reshape(x, {6, 4}).shape(), (std::vector<int64_t>{6, 4}));
}

TEST(KernelsTest, ChunkDimMayBeEmpty) {
  Tensor x = rand({5, 2});
  EXPECT_EQ(chunkDim(x, 0, 4, 1), sliceDim(x, 0, 2, 2));
  EXPECT_EQ(chunkDim(x, 0, 4, 3).shape(), (std::vector<int64_t>{0, 2}));
}

TEST(KernelsTest, RotaryIdentityAtPositionZero) {
  Tensor x = rand({1, 1, 2, 8});
  expectNear(rotary(x, 0, 10000.0f), x, 0.0f);
  EXPECT_THROW(rotary(rand({1, 1, 2, 7}), 0, 10000.0f), std::invalid_argument);
}

TEST(KernelsTest, RotaryRotatesInterleavedPairs) {
  float theta = 10000.0f;
  int64_t d = 4;
  Tensor x = rand({2, 3, 2, d});
  Tensor y = rotary(x, 1, theta);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t s = 0; s < 3; ++s)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t i = 0; i < d / 2; ++i) {
          double angle = (1 + s) * std::pow(theta, -2.0 * i / d);
          int64_t base = ((b * 3 + s) * 2 + h) * d + 2 * i;
          double x0 = x.data()[base], x1 = x.data()[base + 1];
          EXPECT_NEAR(y.data()[base],
                      x0 * std::cos(angle) - x1 * std::sin(angle), 1e-5);
          EXPECT_NEAR(y.data()[base + 1],
                      x0 * std::sin(angle) + x1 * std::cos(angle), 1e-5);
        }
  // Pair 0 at position 1 rotates by exactly 1 radian.
  Tensor unit = Tensor::fromData({1, 1, 1, 2}, {1, 0});
  Tensor r = rotary(unit, 1, theta);
  EXPECT_NEAR(r.data()[0], std::cos(1.0), 1e-6);
  EXPECT_NEAR(r.data()[1], std::sin(1.0), 1e-6);
}

/// Naive attention with explicit GQA mapping.
Tensor naiveAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                      bool causal) {
  int64_t b = q.dim(0), s = q.dim(1), hq = q.dim(2), d = q.dim(3);
  int64_t t = k.dim(1), hkv = k.dim(2);
  Tensor out({b, s, hq, d});
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t h = 0; h < hq; ++h) {
      int64_t kh = h / (hq / hkv);
      for (int64_t i = 0; i < s; ++i) {
        std::vector<double> w(t, 0.0);
        double maxV = -1e30, sum = 0;
        int64_t visible = causal ? i + 1 : t;
        for (int64_t j = 0; j < visible; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += q.data()[((bi * s + i) * hq + h) * d + c] *
                   k.data()[((bi * t + j) * hkv + kh) * d + c];
          w[j] = dot / std::sqrt(static_cast<double>(d));
          maxV = std::max(maxV, w[j]);
        }
        for (int64_t j = 0; j < visible; ++j)
          sum += (w[j] = std::exp(w[j] - maxV));
        for (int64_t c = 0; c < d; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < visible; ++j)
            acc += w[j] / sum * v.data()[((bi * t + j) * hkv + kh) * d + c];
          out.data()[((bi * s + i) * hq + h) * d + c] = static_cast<float>(acc);
        }
      }
    }
  return out;
}

TEST(KernelsTest, AttentionMatchesNaive) {
  Tensor q = rand({2, 5, 4, 8}, "q"), k = rand({2, 5, 4, 8}, "k"),
         v = rand({2, 5, 4, 8}, "v");
  expectNear(attention(q, k, v, false), naiveAttention(q, k, v, false));
  expectNear(attention(q, k, v, true), naiveAttention(q, k, v, true));
}

TEST(KernelsTest, CausalFirstRowIsFirstValue) {
  Tensor q = rand({1, 4, 2, 4}, "q"), k = rand({1, 4, 2, 4}, "k"),
         v = rand({1, 4, 2, 4}, "v");
  Tensor o = attention(q, k, v, true);
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t c = 0; c < 4; ++c)
      EXPECT_NEAR(o.data()[h * 4 + c], v.data()[h * 4 + c], 1e-6);
}

TEST(KernelsTest, GroupedQueryAttentionSharesKvHeads) {
  // 4 query heads over 2 kv heads: heads 0,1 use kv 0 and heads 2,3 kv 1.
  Tensor q = rand({1, 3, 4, 4}, "q"), k = rand({1, 3, 2, 4}, "k"),
         v = rand({1, 3, 2, 4}, "v");
  Tensor o = attention(q, k, v, true);
  expectNear(o, naiveAttention(q, k, v, true));
  // Repeating the kv heads explicitly must give the same result.
  Tensor kRep({1, 3, 4, 4}), vRep({1, 3, 4, 4});
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t c = 0; c < 4; ++c) {
        kRep.data()[(s * 4 + h) * 4 + c] = k.data()[(s * 2 + h / 2) * 4 + c];
        vRep.data()[(s * 4 + h) * 4 + c] = v.data()[(s * 2 + h / 2) * 4 + c];
      }
  expectNear(o, attention(q, kRep, vRep, true));
  EXPECT_THROW(attention(q, rand({1, 3, 3, 4}), rand({1, 3, 3, 4}), true),
               std::invalid_argument);
  EXPECT_THROW(attention(q, rand({1, 2, 2, 4}), rand({1, 2, 2, 4}), true),
               std::invalid_argument);
}

TEST(KernelsTest, CrossEntropyKnownValues) {
  Tensor logits = Tensor::fromData({2, 3}, {1, 2, 3, 0, 0, 0});
  Tensor targets = Tensor::fromData({2}, {2, 1});
  Tensor loss = crossEntropy(logits, targets);
  EXPECT_EQ(loss.rank(), 0);
  EXPECT_EQ(loss.numel(), 1);
  double l0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3.0;
  double l1 = std::log(3.0);
  EXPECT_NEAR(loss.data()[0], (l0 + l1) / 2, 1e-6);
  Tensor ignored = Tensor::fromData({2}, {2, -100});
  EXPECT_NEAR(crossEntropy(logits, ignored).data()[0], l0, 1e-6);
  EXPECT_THROW(crossEntropy(logits, Tensor::fromData({2}, {3, 0})),
               std::invalid_argument);
  EXPECT_THROW(crossEntropy(logits, Tensor({3})), std::invalid_argument);
}

// A shard of the rows with the global divisor (the rows not ignored on
// every rank): the shards' parts add up to the mean over all rows, however
// unevenly the ignored rows fall; a shard with none counted gives 0, and no
// row counted anywhere (a divisor of 0) NaN, as the whole loss.
TEST(KernelsTest, CrossEntropyOverAGlobalDivisor) {
  Tensor logits =
      Tensor::fromData({4, 3}, {1, 2, 3, 0, 0, 0, 5, 1, 1, 0.5f, -1, 2});
  Tensor targets = Tensor::fromInts({4}, {2, 0, -100, 1});
  Tensor top = Tensor::fromData({2, 3}, {1, 2, 3, 0, 0, 0});
  Tensor bottom = Tensor::fromData({2, 3}, {5, 1, 1, 0.5f, -1, 2});
  Tensor t0 = Tensor::fromInts({2}, {2, 0});
  Tensor t1 = Tensor::fromInts({2}, {-100, 1});
  EXPECT_EQ(validRows(targets).at(0), 3.0f);
  EXPECT_EQ(validRows(t0).at(0) + validRows(t1).at(0), 3.0f);
  float whole = crossEntropy(logits, targets).at(0);
  float parts =
      crossEntropy(top, t0, 3.0).at(0) + crossEntropy(bottom, t1, 3.0).at(0);
  EXPECT_NEAR(parts, whole, 1e-6);
  // Each shard's own mean averaged (PyTorch DDP's) is another number.
  EXPECT_GT(
      std::abs((crossEntropy(top, t0).at(0) + crossEntropy(bottom, t1).at(0)) /
                   2 -
               whole),
      1e-2);
  Tensor none = Tensor::fromInts({2}, {-100, -100});
  EXPECT_EQ(crossEntropy(top, none, 2.0).at(0), 0.0f);
  EXPECT_TRUE(std::isnan(crossEntropy(top, none, 0.0).at(0)));
  expectInvalid([&] { validRows(Tensor({2, 2}, DType::I64)); },
                "validRows: targets");
}

TEST(KernelsTest, CrossEntropyTakesIntegerTargets) {
  Tensor logits = Tensor::fromData({3, 3}, {1, 2, 3, 0, 0, 0, 5, 1, 1});
  Tensor f32 = crossEntropy(logits, Tensor::fromData({3}, {2, -100, 0}));
  for (DType dtype : {DType::I64, DType::I32}) {
    Tensor t = Tensor::fromInts({3}, {2, -100, 0}, dtype);
    EXPECT_EQ(crossEntropy(logits, t), f32) << dtypeName(dtype);
    expectInvalid(
        [&] { crossEntropy(logits, Tensor::fromInts({3}, {0, 3, 1}, dtype)); },
        "crossEntropy: target 3 of row 1 out of range [0, 3)");
  }
  expectInvalid(
      [&] {
        crossEntropy(logits,
                     Tensor::fromInts({3}, {0, 1, -(int64_t(1) << 40)}));
      },
      "target -1099511627776 of row 2");
  expectInvalid([&] { crossEntropy(logits, Tensor({3}, DType::F16)); },
                "crossEntropy: targets are a F16 tensor");
}
} // namespace
