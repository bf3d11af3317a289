//===- GradKernelsTest.cpp - Tests for the backward CPU kernels -*- C++ -*-===//
//
// Each backward kernel against central finite differences of its forward
// kernel (L = sum(r * F(x)) for a fixed random r, so the upstream gradient is
// r), or against closed forms where F is not differentiable (ties of a max),
// plus the shape errors.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/GradKernels.h"

#include "tp/Runtime/Init.h"
#include "tp/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace mlir::tp::runtime;

namespace {

using Shape = std::vector<int64_t>;

/// Uniform in [-scale, scale), seeded by \p name.
Tensor rand(const Shape &shape, const std::string &name, float scale = 1.0f) {
  return initTensor(11, name, shape, scale);
}

/// \p t with \p offset added to every element (to keep a kink or a pole
/// away from the finite-difference steps).
Tensor shifted(Tensor t, float offset) {
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data()[i] += offset;
  return t;
}

/// sum(r * y) in double.
double weightedSum(const Tensor &y, const Tensor &r) {
  EXPECT_EQ(y.shape(), r.shape());
  double s = 0.0;
  for (int64_t i = 0; i < y.numel(); ++i)
    s += static_cast<double>(r.data()[i]) * y.data()[i];
  return s;
}

// Finite differences in f32: a step of 1e-2 keeps the rounding of the
// forward (about 1e-7 relative, over a few dozen terms, divided by 2h) near
// 1e-5, and the truncation error h^2 f''' / 6 below 1e-4 for the smooth
// kernels and inputs here. A gradient passes when it is within
// kAbsTol + kRelTol * |numeric|.
constexpr float kStep = 1e-2f;
constexpr double kRelTol = 1e-2;
constexpr double kAbsTol = 2e-3;

/// Expects \p analytic to be the gradient of L = sum(r * forward()) with
/// respect to \p x, which forward() reads (it is perturbed in place and
/// restored), by central differences.
void expectMatchesFiniteDifferences(const Tensor &analytic, Tensor &x,
                                    const Tensor &r,
                                    const std::function<Tensor()> &forward,
                                    const std::string &what) {
  ASSERT_EQ(analytic.shape(), x.shape()) << what;
  for (int64_t i = 0; i < x.numel(); ++i) {
    float v = x.data()[i];
    float up = v + kStep, down = v - kStep;
    x.data()[i] = up;
    double lUp = weightedSum(forward(), r);
    x.data()[i] = down;
    double lDown = weightedSum(forward(), r);
    x.data()[i] = v;
    // The steps as rounded to f32.
    double numeric = (lUp - lDown) / (static_cast<double>(up) - down);
    EXPECT_NEAR(analytic.data()[i], numeric,
                kAbsTol + kRelTol * std::fabs(numeric))
        << what << ", element " << i;
  }
}

/// Expects \p fn to throw std::invalid_argument whose message names \p op.
template <typename Fn> void expectThrowsNaming(Fn fn, const std::string &op) {
  try {
    fn();
    ADD_FAILURE() << "expected " << op << " to throw";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
  }
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// The loops of linear's gradients in double: gx = g w, gw = g^T x.
void expectLinearGradsMatchLoops(const Shape &xShape, int64_t out) {
  Tensor x = rand(xShape, "x");
  int64_t in = xShape.back(), rows = x.numel() / in;
  Tensor w = rand({out, in}, "w");
  Shape gShape = xShape;
  gShape.back() = out;
  Tensor g = rand(gShape, "g");
  Tensor gx = linearBackwardInput(g, w);
  Tensor gw = linearBackwardWeight(g, x);
  ASSERT_EQ(gx.shape(), xShape);
  ASSERT_EQ(gw.shape(), (Shape{out, in}));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < in; ++i) {
      double s = 0.0;
      for (int64_t o = 0; o < out; ++o)
        s += static_cast<double>(g.data()[r * out + o]) * w.data()[o * in + i];
      EXPECT_NEAR(gx.data()[r * in + i], s, 1e-5 * (1 + out));
    }
  for (int64_t o = 0; o < out; ++o)
    for (int64_t i = 0; i < in; ++i) {
      double s = 0.0;
      for (int64_t r = 0; r < rows; ++r)
        s += static_cast<double>(g.data()[r * out + o]) * x.data()[r * in + i];
      EXPECT_NEAR(gw.data()[o * in + i], s, 1e-5 * (1 + rows));
    }
}

TEST(GradKernels, LinearMatchesLoops) {
  expectLinearGradsMatchLoops({3, 5}, 4);
  expectLinearGradsMatchLoops({2, 3, 5}, 4);
  // Big enough for OpenBLAS's blocked paths.
  expectLinearGradsMatchLoops({3, 17, 33}, 19);
}

TEST(GradKernels, LinearMatchesFiniteDifferences) {
  // A 3-D input with a bias [out] broadcast over [b, s, out].
  Tensor x = rand({2, 3, 5}, "x"), w = rand({4, 5}, "w"),
         bias = rand({4}, "bias"), r = rand({2, 3, 4}, "r");
  auto forward = [&] { return linear(x, w, &bias); };
  expectMatchesFiniteDifferences(linearBackwardInput(r, w), x, r, forward,
                                 "input");
  expectMatchesFiniteDifferences(linearBackwardWeight(r, x), w, r, forward,
                                 "weight");
  expectMatchesFiniteDifferences(sumToShape(r, {4}), bias, r, forward, "bias");
}

TEST(GradKernels, LinearEmptyExtents) {
  // No rows: the weight gradient is zero; no outputs: the input's is.
  Tensor gw = linearBackwardWeight(Tensor({0, 4}), Tensor({0, 5}));
  EXPECT_EQ(gw, Tensor({4, 5}));
  Tensor gx = linearBackwardInput(Tensor({2, 3, 0}), Tensor({0, 5}));
  EXPECT_EQ(gx, Tensor({2, 3, 5}));
}

TEST(GradKernels, LinearShapeErrors) {
  Tensor g = rand({2, 3, 4}, "g");
  expectThrowsNaming([&] { linearBackwardInput(g, rand({5, 4}, "w")); },
                     "linearBackwardInput");
  expectThrowsNaming([&] { linearBackwardInput(g, rand({4}, "w")); },
                     "linearBackwardInput");
  expectThrowsNaming([&] { linearBackwardWeight(g, rand({2, 4, 5}, "x")); },
                     "linearBackwardWeight");
  expectThrowsNaming([&] { linearBackwardWeight(g, rand({6, 5}, "x")); },
                     "linearBackwardWeight");
}

TEST(GradKernels, SumToShapeReducesBroadcastDims) {
  Tensor g = Tensor::fromData({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(sumToShape(g, {3}).values(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(sumToShape(g, {2, 1}).values(), (std::vector<float>{6, 15}));
  EXPECT_EQ(sumToShape(g, {1, 1}).values(), (std::vector<float>{21}));
  EXPECT_EQ(sumToShape(g, {}).values(), (std::vector<float>{21}));
  EXPECT_EQ(sumToShape(g, {2, 3}), g);
  // Against the broadcast it undoes: t broadcast into r's shape by add.
  for (Shape shape : {Shape{5}, Shape{1, 5}, Shape{3, 1}, Shape{4, 1, 1},
                      Shape{1, 3, 5}, Shape{4, 1, 5}}) {
    Tensor r = rand({4, 3, 5}, "r"), t = rand(shape, "t"), zeros({4, 3, 5});
    expectMatchesFiniteDifferences(
        sumToShape(r, shape), t, r, [&] { return add(zeros, t); },
        "sumToShape to " + shapeToString(shape));
  }
  expectThrowsNaming([&] { sumToShape(g, {4}); }, "sumToShape");
  expectThrowsNaming([&] { sumToShape(g, {2, 2, 3}); }, "sumToShape");
  // A shape of higher rank than the gradient's was not broadcast to it.
  expectThrowsNaming([&] { sumToShape(g, {1, 2, 3}); }, "sumToShape");
  expectThrowsNaming([&] { sumToShape(g.to(DType::BF16), {2, 3}); },
                     "sumToShape");
}

TEST(GradKernels, MatmulMatchesFiniteDifferences) {
  struct Case {
    Shape a, b;
  };
  for (const Case &c :
       {Case{{3, 4}, {4, 5}}, Case{{2, 3, 4}, {2, 4, 5}},
        Case{{2, 3, 4}, {4, 5}}, Case{{1, 3, 4}, {2, 4, 5}},
        Case{{3, 4}, {2, 4, 5}}, Case{{2, 1, 3, 4}, {3, 4, 2}}}) {
    std::string what = shapeToString(c.a) + " @ " + shapeToString(c.b);
    Tensor a = rand(c.a, "a"), b = rand(c.b, "b");
    Tensor r = rand(matmul(a, b).shape(), "r");
    BinaryGrads grads = matmulBackward(r, a, b);
    auto forward = [&] { return matmul(a, b); };
    expectMatchesFiniteDifferences(grads.a, a, r, forward, "a of " + what);
    expectMatchesFiniteDifferences(grads.b, b, r, forward, "b of " + what);
  }
  Tensor a = rand({2, 3, 4}, "a"), b = rand({4, 5}, "b");
  expectThrowsNaming([&] { matmulBackward(rand({2, 3, 4}, "g"), a, b); },
                     "matmulBackward");
  expectThrowsNaming(
      [&] { matmulBackward(rand({2, 3, 5}, "g"), a, rand({5, 5}, "b")); },
      "matmulBackward");
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

TEST(GradKernels, UnaryMatchFiniteDifferences) {
  Shape shape{3, 7};
  Tensor r = rand(shape, "r");
  // Values in [-2.5, 2.5), none within 0.05 of relu's kink.
  Tensor x = rand(shape, "x", 2.5f);
  for (int64_t i = 0; i < x.numel(); ++i)
    if (std::fabs(x.data()[i]) < 0.05f)
      x.data()[i] = 0.5f;
  expectMatchesFiniteDifferences(
      reluBackward(r, x), x, r, [&] { return relu(x); }, "relu");
  expectMatchesFiniteDifferences(
      geluBackward(r, x), x, r, [&] { return gelu(x); }, "gelu");
  expectMatchesFiniteDifferences(
      geluTanhBackward(r, x), x, r, [&] { return geluTanh(x); }, "geluTanh");
  expectMatchesFiniteDifferences(
      siluBackward(r, x), x, r, [&] { return silu(x); }, "silu");
  expectMatchesFiniteDifferences(
      expBackward(r, exp(x)), x, r, [&] { return exp(x); }, "exp");
  Tensor positive = shifted(rand(shape, "p"), 1.5f); // [0.5, 2.5)
  expectMatchesFiniteDifferences(
      logBackward(r, positive), positive, r, [&] { return log(positive); },
      "log");
}

TEST(GradKernels, GeluBackwardMatchesFormula) {
  // gelu'(x) = Phi(x) + x phi(x), through the vectorized erf and exp: within
  // a few f32 roundings of the formula in double on a dense grid.
  std::vector<float> values;
  for (int i = -150000; i <= 150000; ++i)
    values.push_back(i * 1.0e-4f);
  int64_t n = static_cast<int64_t>(values.size());
  Tensor g = Tensor::full({n}, 1.0f);
  Tensor y = geluBackward(g, Tensor::fromData({n}, values));
  for (int64_t i = 0; i < n; ++i) {
    double v = values[i];
    double want = 0.5 * (1.0 + std::erf(v / std::sqrt(2.0))) +
                  v * std::exp(-0.5 * v * v) / std::sqrt(2.0 * M_PI);
    ASSERT_NEAR(y.data()[i], want, 4e-7 * std::max(1.0, std::fabs(v)))
        << "at x = " << v;
  }
}

TEST(GradKernels, UnaryKnownValues) {
  Tensor x = Tensor::fromData({4}, {-1, 0, 2, std::nanf("")});
  Tensor g = Tensor::fromData({4}, {3, 3, 3, 3});
  // relu's subgradient at 0 is 0; NaN passes the gradient as relu passes NaN.
  EXPECT_EQ(reluBackward(g, x).values(), (std::vector<float>{0, 0, 3, 3}));
  // gelu'(0) = silu'(0) = 0.5.
  EXPECT_FLOAT_EQ(geluBackward(g, x).data()[1], 1.5f);
  EXPECT_FLOAT_EQ(geluTanhBackward(g, x).data()[1], 1.5f);
  EXPECT_FLOAT_EQ(siluBackward(g, x).data()[1], 1.5f);
  EXPECT_FLOAT_EQ(logBackward(g, x).data()[2], 1.5f);
  EXPECT_TRUE(std::isnan(geluBackward(g, x).data()[3]));
  for (auto *fn : {reluBackward, geluBackward, geluTanhBackward, siluBackward,
                   expBackward, logBackward})
    EXPECT_THROW(fn(g, Tensor({3})), std::invalid_argument);
  expectThrowsNaming([&] { siluBackward(g, Tensor({2, 2})); }, "siluBackward");
}

TEST(GradKernels, MulDivMatchFiniteDifferencesWithBroadcasting) {
  struct Case {
    Shape a, b;
  };
  for (const Case &c : {Case{{3, 4}, {3, 4}}, Case{{1, 4}, {3, 4}},
                        Case{{3, 4}, {4}}, Case{{2, 1, 3}, {4, 1}},
                        Case{{}, {2, 3}}, Case{{2, 3, 1}, {1, 3, 4}}}) {
    std::string what = shapeToString(c.a) + " and " + shapeToString(c.b);
    Tensor a = rand(c.a, "a");
    // Divisors in [1, 2) or (-2, -1]: far from the pole.
    Tensor b = rand(c.b, "b", 2.0f);
    for (int64_t i = 0; i < b.numel(); ++i)
      if (std::fabs(b.data()[i]) < 1.0f)
        b.data()[i] = std::copysign(1.0f + std::fabs(b.data()[i]), b.data()[i]);
    Tensor r = rand(broadcastShapes(c.a, c.b), "r");
    BinaryGrads m = mulBackward(r, a, b);
    auto mulF = [&] { return mul(a, b); };
    expectMatchesFiniteDifferences(m.a, a, r, mulF, "mul a, " + what);
    expectMatchesFiniteDifferences(m.b, b, r, mulF, "mul b, " + what);
    BinaryGrads d = divBackward(r, a, b);
    auto divF = [&] { return div(a, b); };
    expectMatchesFiniteDifferences(d.a, a, r, divF, "div a, " + what);
    expectMatchesFiniteDifferences(d.b, b, r, divF, "div b, " + what);
  }
  Tensor a = rand({3, 4}, "a"), b = rand({4}, "b");
  expectThrowsNaming([&] { mulBackward(rand({4}, "g"), a, b); }, "mulBackward");
  expectThrowsNaming([&] { divBackward(rand({3, 4}, "g"), a, rand({3}, "b")); },
                     "divBackward");
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

TEST(GradKernels, LayerNormMatchesFiniteDifferences) {
  const float eps = 1e-5f;
  Tensor x = rand({2, 3, 6}, "x", 2.0f), w = shifted(rand({6}, "w"), 1.0f),
         bias = rand({6}, "bias"), r = rand({2, 3, 6}, "r");
  for (bool withWeight : {true, false})
    for (bool withBias : {true, false}) {
      Tensor *wp = withWeight ? &w : nullptr, *bp = withBias ? &bias : nullptr;
      std::string what = std::string("layerNorm, weight ") +
                         (withWeight ? "yes" : "no") + ", bias " +
                         (withBias ? "yes" : "no");
      LayerNormGrads grads = layerNormBackward(r, x, wp, bp, eps);
      auto forward = [&] { return layerNorm(x, wp, bp, eps); };
      expectMatchesFiniteDifferences(grads.x, x, r, forward, what + ": x");
      if (withWeight)
        expectMatchesFiniteDifferences(grads.weight, w, r, forward,
                                       what + ": weight");
      else
        EXPECT_EQ(grads.weight.numel(), 0);
      if (withBias)
        expectMatchesFiniteDifferences(grads.bias, bias, r, forward,
                                       what + ": bias");
      else
        EXPECT_EQ(grads.bias.numel(), 0);
    }
  expectThrowsNaming(
      [&] { layerNormBackward(rand({2, 3, 5}, "g"), x, &w, &bias, eps); },
      "layerNormBackward");
  Tensor w5({5});
  expectThrowsNaming([&] { layerNormBackward(r, x, &w5, nullptr, eps); },
                     "layerNormBackward");
}

TEST(GradKernels, RMSNormMatchesFiniteDifferences) {
  const float eps = 1e-6f;
  Tensor x = rand({4, 5}, "x", 2.0f), w = shifted(rand({5}, "w"), 1.0f),
         r = rand({4, 5}, "r");
  RMSNormGrads grads = rmsNormBackward(r, x, &w, eps);
  auto forward = [&] { return rmsNorm(x, &w, eps); };
  expectMatchesFiniteDifferences(grads.x, x, r, forward, "rmsNorm: x");
  expectMatchesFiniteDifferences(grads.weight, w, r, forward,
                                 "rmsNorm: weight");
  RMSNormGrads plain = rmsNormBackward(r, x, nullptr, eps);
  EXPECT_EQ(plain.weight.numel(), 0);
  expectMatchesFiniteDifferences(
      plain.x, x, r, [&] { return rmsNorm(x, nullptr, eps); },
      "rmsNorm without weight: x");
  expectThrowsNaming([&] { rmsNormBackward(rand({4, 4}, "g"), x, &w, eps); },
                     "rmsNormBackward");
  Tensor w4({4});
  expectThrowsNaming([&] { rmsNormBackward(r, x, &w4, eps); },
                     "rmsNormBackward");
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

TEST(GradKernels, EmbeddingAccumulatesRepeatedIds) {
  // Id 2 three times, 0 twice, 4 never: every dtype of ids.
  std::vector<int64_t> values{2, 0, 2, 1, 0, 2};
  Tensor weight = rand({5, 3}, "w"), r = rand({2, 3, 3}, "r");
  for (DType dtype : {DType::I64, DType::I32, DType::F32}) {
    Tensor ids = Tensor::fromInts({2, 3}, values).to(dtype);
    Tensor grad = embeddingBackward(r, ids, 5);
    expectMatchesFiniteDifferences(
        grad, weight, r, [&] { return embedding(ids, weight); },
        std::string("embedding with ") + dtypeName(dtype) + " ids");
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_FLOAT_EQ(grad.data()[2 * 3 + j], r.data()[0 * 3 + j] +
                                                  r.data()[2 * 3 + j] +
                                                  r.data()[5 * 3 + j]);
      EXPECT_EQ(grad.data()[4 * 3 + j], 0.0f);
    }
  }
  Tensor ids = Tensor::fromInts({2, 3}, values);
  expectThrowsNaming([&] { embeddingBackward(r, ids, 2); },
                     "embeddingBackward");
  expectThrowsNaming(
      [&] {
        embeddingBackward(r, Tensor::fromInts({2, 3}, {0, 0, 0, 0, -1, 0}), 5);
      },
      "embeddingBackward");
  expectThrowsNaming([&] { embeddingBackward(rand({2, 3}, "g"), ids, 5); },
                     "embeddingBackward");
  expectThrowsNaming(
      [&] { embeddingBackward(r, Tensor::full({2, 3}, 0.5f), 5); },
      "embeddingBackward");
}

TEST(GradKernels, EmbeddingMaskedKeepsItsShard) {
  // Rows [3, 6) of a vocabulary of 8; ids outside the shard contribute
  // nothing, and the shards' gradients concatenate to the full one.
  Tensor ids = Tensor::fromInts({7}, {3, 7, 5, 0, 5, 4, 2});
  Tensor r = rand({7, 2}, "r");
  Tensor shard = rand({3, 2}, "w");
  Tensor grad = embeddingMaskedBackward(r, ids, 3, 3);
  expectMatchesFiniteDifferences(
      grad, shard, r, [&] { return embeddingMasked(ids, shard, 3); },
      "embeddingMasked");
  Tensor whole = embeddingBackward(r, ids, 8);
  Tensor pieces = concatDim({embeddingMaskedBackward(r, ids, 3, 0), grad,
                             embeddingMaskedBackward(r, ids, 2, 6)},
                            0);
  EXPECT_EQ(pieces, whole);
  expectThrowsNaming(
      [&] {
        embeddingMaskedBackward(
            r, Tensor::fromInts({7}, {3, 7, 5, 0, -2, 4, 2}), 3, 3);
      },
      "embeddingMaskedBackward");
}

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

TEST(GradKernels, CrossEntropyMatchesFiniteDifferences) {
  // Rows 1 and 3 ignored: zero gradients, and the mean is over 3 rows.
  Tensor logits = rand({5, 4}, "logits", 2.0f);
  Tensor targets = Tensor::fromInts({5}, {2, -100, 0, -100, 3});
  Tensor gLoss = Tensor::scalar(2.5f);
  Tensor grad = crossEntropyBackward(logits, targets, gLoss);
  expectMatchesFiniteDifferences(
      grad, logits, gLoss, [&] { return crossEntropy(logits, targets); },
      "crossEntropy");
  for (int64_t j = 0; j < 4; ++j) {
    EXPECT_EQ(grad.data()[1 * 4 + j], 0.0f);
    EXPECT_EQ(grad.data()[3 * 4 + j], 0.0f);
  }
  // Each counted row sums to zero (softmax minus a one-hot).
  double rowSum = 0.0;
  for (int64_t j = 0; j < 4; ++j)
    rowSum += grad.data()[j];
  EXPECT_NEAR(rowSum, 0.0, 1e-6);
  EXPECT_EQ(crossEntropyBackward(logits, Tensor::full({5}, -100.0f), gLoss),
            Tensor({5, 4}));
  // With the global divisor of a shard of rows (here 6 rows counted over
  // all shards, 3 of them here): the gradient of this shard's part.
  Tensor part = crossEntropyBackward(logits, targets, gLoss, 6.0);
  for (int64_t i = 0; i < part.numel(); ++i)
    EXPECT_NEAR(part.data()[i], grad.data()[i] / 2, 1e-7);
  expectMatchesFiniteDifferences(
      part, logits, gLoss, [&] { return crossEntropy(logits, targets, 6.0); },
      "crossEntropy");
  expectThrowsNaming(
      [&] {
        crossEntropyBackward(logits, Tensor::fromInts({5}, {0, 0, 4, 0, 0}),
                             gLoss);
      },
      "crossEntropyBackward");
  expectThrowsNaming(
      [&] {
        crossEntropyBackward(logits, Tensor::fromInts({4}, {0, 0, 0, 0}),
                             gLoss);
      },
      "crossEntropyBackward");
  expectThrowsNaming(
      [&] { crossEntropyBackward(logits, targets, Tensor({1})); },
      "crossEntropyBackward");
}

TEST(GradKernels, TargetLogitScattersIntoItsShard) {
  // Classes [4, 7) of a shard; targets 1 and 9 lie outside.
  Tensor logits = rand({4, 3}, "logits");
  Tensor targets = Tensor::fromInts({4}, {5, 1, 4, 9});
  Tensor r = rand({4, 1}, "r");
  Tensor grad = targetLogitBackward(r, targets, 3, 4);
  expectMatchesFiniteDifferences(
      grad, logits, r, [&] { return targetLogit(logits, targets, 4); },
      "targetLogit");
  EXPECT_EQ(grad.values(), (std::vector<float>{0, r.data()[0], 0, 0, 0, 0,
                                               r.data()[2], 0, 0, 0, 0, 0}));
  expectThrowsNaming([&] { targetLogitBackward(rand({4}, "g"), targets, 3); },
                     "targetLogitBackward");
  expectThrowsNaming([&] { targetLogitBackward(r, targets, 3, -1); },
                     "targetLogitBackward");
}

TEST(GradKernels, MeanAndReduceSumMatchFiniteDifferences) {
  Tensor x = rand({3, 4, 2}, "x");
  Tensor gMean = Tensor::scalar(1.5f);
  expectMatchesFiniteDifferences(
      meanBackward(gMean, x.shape()), x, gMean, [&] { return mean(x); },
      "mean");
  EXPECT_FLOAT_EQ(meanBackward(gMean, {3, 4, 2}).data()[5], 1.5f / 24);
  expectThrowsNaming([&] { meanBackward(Tensor({1}), {2}); }, "meanBackward");
  for (int64_t dim : {0, 1, 2, -1}) {
    Shape kept = x.shape();
    kept[normalizeDim(dim, 3)] = 1;
    Tensor r = rand(kept, "r");
    expectMatchesFiniteDifferences(
        reduceSumBackward(r, x.shape(), dim), x, r,
        [&] { return reduceSum(x, dim); },
        "reduceSum along " + std::to_string(dim));
  }
  expectThrowsNaming(
      [&] { reduceSumBackward(rand({3, 4, 1}, "g"), {3, 4, 2}, 1); },
      "reduceSumBackward");
  EXPECT_THROW(reduceSumBackward(rand({3, 4, 1}, "g"), {3, 4, 2}, 3),
               std::out_of_range);
}

TEST(GradKernels, ReduceMaxMatchesFiniteDifferencesWithoutTies) {
  // A permutation of well-separated values: no two within a step.
  Tensor x({3, 4, 2});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.data()[i] = 0.1f * static_cast<float>((i * 7) % 24) - 1.0f;
  for (int64_t dim : {0, 1, 2}) {
    Shape kept = x.shape();
    kept[dim] = 1;
    Tensor r = rand(kept, "r");
    expectMatchesFiniteDifferences(
        reduceMaxBackward(r, x, dim), x, r, [&] { return reduceMax(x, dim); },
        "reduceMax along " + std::to_string(dim));
  }
}

TEST(GradKernels, ReduceMaxSplitsTiesEvenly) {
  // amax semantics: the maxima of a slice share its gradient.
  Tensor x = Tensor::fromData({2, 4}, {1, 3, 3, 3, 5, -1, 5, 2});
  Tensor g = Tensor::fromData({2, 1}, {6, 4});
  EXPECT_EQ(reduceMaxBackward(g, x, 1).values(),
            (std::vector<float>{0, 2, 2, 2, 2, 0, 2, 0}));
  // Along dim 0: columns 0 and 2 have one maximum, the others too.
  Tensor g0 = Tensor::fromData({1, 4}, {1, 1, 1, 1});
  EXPECT_EQ(reduceMaxBackward(g0, x, 0).values(),
            (std::vector<float>{0, 1, 0, 1, 1, 0, 1, 0}));
  // A column of equal values, and -inf everywhere.
  Tensor flat = Tensor::full({3, 1}, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(reduceMaxBackward(Tensor::fromData({1, 1}, {3}), flat, 0).values(),
            (std::vector<float>{1, 1, 1}));
  // A NaN maximum gives NaN everywhere in its slice, as PyTorch.
  Tensor withNaN = Tensor::fromData({1, 3}, {1, std::nanf(""), 2});
  Tensor gNaN = reduceMaxBackward(Tensor::fromData({1, 1}, {1}), withNaN, 1);
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_TRUE(std::isnan(gNaN.data()[i]));
  expectThrowsNaming([&] { reduceMaxBackward(g, x, 0); }, "reduceMaxBackward");
  expectThrowsNaming(
      [&] { reduceMaxBackward(Tensor({2, 1}), Tensor({2, 0}), 1); },
      "reduceMaxBackward");
}

TEST(GradKernels, SumOfSquaresAccumulatesInDouble) {
  Tensor x = Tensor::fromData({2, 2}, {1, -2, 3, 0.5f});
  EXPECT_DOUBLE_EQ(sumOfSquares(x), 14.25);
  // Squares beyond f32's range, and a sum f32 would round.
  Tensor big = Tensor::fromData({2}, {1e20f, 1e20f});
  EXPECT_NEAR(sumOfSquares(big) / 2e40, 1.0, 1e-6);
  // 1e8 + 1 is not an f32 (the 1 would be lost), but is a double.
  EXPECT_EQ(sumOfSquares(Tensor::fromData({2}, {1e4f, 1})), 100000001.0);
  EXPECT_EQ(sumOfSquares(Tensor({0})), 0.0);
}

} // namespace
