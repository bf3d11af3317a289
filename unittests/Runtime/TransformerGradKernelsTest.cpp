//===- TransformerGradKernelsTest.cpp - Backward kernels --------*- C++ -*-===//
//
// Each backward kernel against central finite differences of its forward
// kernel, L = sum(r * F(inputs)) for a fixed random r, plus the identities
// that pin down what finite differences in f32 cannot: rotary's adjoint and
// inverse, the kv-head accumulation of grouped-query attention, and finite
// gradients when the scores are large.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/TransformerGradKernels.h"

#include "tp/Runtime/Init.h"
#include "tp/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace mlir::tp::runtime;

namespace {

// Finite differences of an f32 forward: a step of 1e-2 keeps the rounding
// error of L (about 1e-6 for these sizes) below 1e-4 after dividing by 2h,
// and the truncation error h^2/6 * L''' at a few 1e-5 for inputs of order
// 1. The observed errors stay below 2e-5; a wrong term or factor in a
// gradient is off by 1e-2 or more.
constexpr float kStep = 1e-2f;
constexpr double kAbsTol = 2e-4, kRelTol = 2e-3;

Tensor rand(std::vector<int64_t> shape, const std::string &name) {
  return initTensor(11, name, shape, 1.0f);
}

/// sum(r * y), in double.
double weightedSum(const Tensor &r, const Tensor &y) {
  EXPECT_EQ(r.shape(), y.shape());
  double sum = 0.0;
  for (int64_t i = 0; i < y.numel(); ++i)
    sum += static_cast<double>(r.data()[i]) * y.data()[i];
  return sum;
}

/// dL/dx by central differences for L(x) = sum(r * f(x)).
template <typename Fn>
std::vector<double> numericGrad(Tensor x, const Tensor &r, Fn f) {
  std::vector<double> grad(x.numel());
  for (int64_t i = 0; i < x.numel(); ++i) {
    float xi = x.data()[i];
    float plus = xi + kStep, minus = xi - kStep;
    x.data()[i] = plus;
    double lPlus = weightedSum(r, f(x));
    x.data()[i] = minus;
    double lMinus = weightedSum(r, f(x));
    x.data()[i] = xi;
    // The step actually taken, after rounding xi +- h to f32.
    grad[i] = (lPlus - lMinus) /
              (static_cast<double>(plus) - static_cast<double>(minus));
  }
  return grad;
}

void expectGradNear(const Tensor &actual, const std::vector<double> &expected,
                    const char *what) {
  ASSERT_EQ(actual.numel(), static_cast<int64_t>(expected.size())) << what;
  for (int64_t i = 0; i < actual.numel(); ++i)
    ASSERT_NEAR(actual.data()[i], expected[i],
                kAbsTol + kRelTol * std::fabs(expected[i]))
        << what << " element " << i;
}

template <typename Fn> void expectThrowsNaming(Fn fn, const std::string &op) {
  try {
    fn();
    ADD_FAILURE() << "expected std::invalid_argument from " << op;
  } catch (const std::invalid_argument &e) {
    EXPECT_EQ(std::string(e.what()).rfind(op + ": ", 0), 0u) << e.what();
  }
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

TEST(TransformerGrad, SoftmaxMatchesFiniteDifferences) {
  Tensor x = rand({2, 3, 4}, "x");
  for (int64_t dim : {0, 1, 2, -1}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    Tensor r = rand({2, 3, 4}, "r" + std::to_string(dim));
    Tensor gx = softmaxBackward(r, softmax(x, dim), dim);
    expectGradNear(
        gx,
        numericGrad(x, r, [&](const Tensor &xi) { return softmax(xi, dim); }),
        "gx");
  }
}

TEST(TransformerGrad, SoftmaxBackwardOfUniformGradientIsZero) {
  // A softmax row sums to 1, so a gradient constant along dim has no effect
  // on the inputs.
  Tensor x = rand({3, 5}, "x");
  Tensor gx = softmaxBackward(Tensor::full({3, 5}, 2.5f), softmax(x, 1), 1);
  for (float value : gx.values())
    EXPECT_NEAR(value, 0.0f, 1e-6f);
}

TEST(TransformerGrad, SoftmaxBackwardChecksOperands) {
  expectThrowsNaming([] { softmaxBackward(Tensor({2, 3}), Tensor({3, 2}), 1); },
                     "softmaxBackward");
  EXPECT_THROW(softmaxBackward(Tensor({2, 3}), Tensor({2, 3}), 2),
               std::out_of_range);
}

//===----------------------------------------------------------------------===//
// Rotary
//===----------------------------------------------------------------------===//

TEST(TransformerGrad, RotaryMatchesFiniteDifferences) {
  Tensor x = rand({2, 4, 3, 4}, "x"), r = rand({2, 4, 3, 4}, "r");
  // theta 10 turns the second pair by visible angles too.
  for (float theta : {10000.0f, 10.0f}) {
    SCOPED_TRACE("theta " + std::to_string(theta));
    Tensor gx = rotaryBackward(r, 7, theta);
    expectGradNear(
        gx,
        numericGrad(x, r,
                    [&](const Tensor &xi) { return rotary(xi, 7, theta); }),
        "gx");
  }
}

TEST(TransformerGrad, RotaryBackwardIsAdjointAndInverse) {
  Tensor x = rand({2, 5, 2, 8}, "x"), r = rand({2, 5, 2, 8}, "r");
  int64_t offset = 1000;
  float theta = 500000.0f;
  // <r, R x> = <R^T r, x>.
  EXPECT_NEAR(weightedSum(r, rotary(x, offset, theta)),
              weightedSum(rotaryBackward(r, offset, theta), x), 1e-5);
  // R^T R = I (the same rounded angles on both sides).
  Tensor back = rotaryBackward(rotary(x, offset, theta), offset, theta);
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_NEAR(back.data()[i], x.data()[i], 1e-6f) << "element " << i;
}

TEST(TransformerGrad, RotaryBackwardChecksOperands) {
  expectThrowsNaming([] { rotaryBackward(Tensor({1, 1, 2, 7}), 0, 1e4f); },
                     "rotaryBackward");
  expectThrowsNaming([] { rotaryBackward(Tensor({1, 2, 8}), 0, 1e4f); },
                     "rotaryBackward");
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

struct AttentionCase {
  int64_t b, s, t, hq, hkv, d, dv;
  bool causal;
};

std::string describe(const AttentionCase &c) {
  return "b" + std::to_string(c.b) + " s" + std::to_string(c.s) + " t" +
         std::to_string(c.t) + " hq" + std::to_string(c.hq) + " hkv" +
         std::to_string(c.hkv) + " d" + std::to_string(c.d) + " dv" +
         std::to_string(c.dv) + (c.causal ? " causal" : "");
}

TEST(TransformerGrad, AttentionMatchesFiniteDifferences) {
  const AttentionCase cases[] = {
      {2, 3, 3, 4, 2, 4, 3, false}, {2, 3, 3, 4, 2, 4, 3, true},
      {2, 5, 5, 4, 4, 4, 4, false}, {2, 5, 5, 4, 4, 4, 4, true},
      {2, 3, 5, 4, 2, 4, 3, false}, // cross attention, t != s
      {1, 4, 4, 4, 1, 4, 2, true},  // one kv head for all query heads
  };
  for (const AttentionCase &c : cases) {
    SCOPED_TRACE(describe(c));
    // Inputs of scale 2 so that the probabilities are far from uniform.
    Tensor q = scale(rand({c.b, c.s, c.hq, c.d}, "q"), 2.0f);
    Tensor k = scale(rand({c.b, c.t, c.hkv, c.d}, "k"), 2.0f);
    Tensor v = rand({c.b, c.t, c.hkv, c.dv}, "v");
    Tensor r = rand({c.b, c.s, c.hq, c.dv}, "r");
    AttentionGrads grads = attentionBackward(r, q, k, v, c.causal);
    ASSERT_EQ(grads.gq.shape(), q.shape());
    ASSERT_EQ(grads.gk.shape(), k.shape());
    ASSERT_EQ(grads.gv.shape(), v.shape());
    expectGradNear(grads.gq,
                   numericGrad(q, r,
                               [&](const Tensor &x) {
                                 return attention(x, k, v, c.causal);
                               }),
                   "gq");
    expectGradNear(grads.gk,
                   numericGrad(k, r,
                               [&](const Tensor &x) {
                                 return attention(q, x, v, c.causal);
                               }),
                   "gk");
    expectGradNear(grads.gv,
                   numericGrad(v, r,
                               [&](const Tensor &x) {
                                 return attention(q, k, x, c.causal);
                               }),
                   "gv");
  }
}

TEST(TransformerGrad, AttentionKvGradientsSumOverTheirQueryHeads) {
  // 4 query heads over 2 kv heads; repeating the kv heads explicitly gives
  // one gradient per query head, and a group's sum is its kv head's.
  int64_t s = 4, hq = 4, hkv = 2, d = 4;
  Tensor q = rand({1, s, hq, d}, "q"), k = rand({1, s, hkv, d}, "k"),
         v = rand({1, s, hkv, d}, "v"), g = rand({1, s, hq, d}, "g");
  Tensor kRep({1, s, hq, d}), vRep({1, s, hq, d});
  for (int64_t j = 0; j < s; ++j)
    for (int64_t h = 0; h < hq; ++h)
      for (int64_t c = 0; c < d; ++c) {
        kRep.data()[(j * hq + h) * d + c] = k.data()[(j * hkv + h / 2) * d + c];
        vRep.data()[(j * hq + h) * d + c] = v.data()[(j * hkv + h / 2) * d + c];
      }
  AttentionGrads grouped = attentionBackward(g, q, k, v, true);
  AttentionGrads repeated = attentionBackward(g, q, kRep, vRep, true);
  for (int64_t i = 0; i < q.numel(); ++i)
    ASSERT_NEAR(grouped.gq.data()[i], repeated.gq.data()[i], 1e-6f);
  for (int64_t j = 0; j < s; ++j)
    for (int64_t kh = 0; kh < hkv; ++kh)
      for (int64_t c = 0; c < d; ++c) {
        auto rep = [&](const Tensor &t, int64_t h) {
          return t.data()[(j * hq + h) * d + c];
        };
        int64_t idx = (j * hkv + kh) * d + c;
        EXPECT_NEAR(grouped.gk.data()[idx],
                    rep(repeated.gk, 2 * kh) + rep(repeated.gk, 2 * kh + 1),
                    1e-6f);
        EXPECT_NEAR(grouped.gv.data()[idx],
                    rep(repeated.gv, 2 * kh) + rep(repeated.gv, 2 * kh + 1),
                    1e-6f);
      }
}

TEST(TransformerGrad, AttentionBackwardIsStableForLargeScores) {
  // Scores up to about 1e4: exp without the max subtraction would overflow.
  // The probabilities are then (nearly) one-hot; every row still sums to 1,
  // so a kv head's gv summed over keys equals its query heads' g summed
  // over queries.
  int64_t b = 2, s = 3, hq = 4, hkv = 2, d = 4, dv = 3;
  Tensor q = scale(rand({b, s, hq, d}, "q"), 100.0f);
  Tensor k = scale(rand({b, s, hkv, d}, "k"), 100.0f);
  Tensor v = rand({b, s, hkv, dv}, "v"), g = rand({b, s, hq, dv}, "g");
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "full");
    AttentionGrads grads = attentionBackward(g, q, k, v, causal);
    for (const Tensor *t : {&grads.gq, &grads.gk, &grads.gv})
      for (float value : t->values())
        ASSERT_TRUE(std::isfinite(value));
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t kh = 0; kh < hkv; ++kh)
        for (int64_t c = 0; c < dv; ++c) {
          double gvSum = 0.0, gSum = 0.0;
          for (int64_t j = 0; j < s; ++j)
            gvSum += grads.gv.data()[((bi * s + j) * hkv + kh) * dv + c];
          for (int64_t i = 0; i < s; ++i)
            for (int64_t h = kh * 2; h < kh * 2 + 2; ++h)
              gSum += g.data()[((bi * s + i) * hq + h) * dv + c];
          EXPECT_NEAR(gvSum, gSum, 1e-5);
        }
  }
}

TEST(TransformerGrad, AttentionBackwardWithoutKeysIsZero) {
  Tensor q = rand({1, 2, 2, 4}, "q"), g = rand({1, 2, 2, 3}, "g");
  AttentionGrads grads =
      attentionBackward(g, q, Tensor({1, 0, 2, 4}), Tensor({1, 0, 2, 3}),
                        /*causal=*/false);
  EXPECT_EQ(grads.gq, Tensor({1, 2, 2, 4}));
  EXPECT_EQ(grads.gk.shape(), (std::vector<int64_t>{1, 0, 2, 4}));
  EXPECT_EQ(grads.gv.shape(), (std::vector<int64_t>{1, 0, 2, 3}));
}

TEST(TransformerGrad, AttentionBackwardChecksOperands) {
  Tensor q({1, 3, 4, 4}), k({1, 3, 2, 4}), v({1, 3, 2, 3});
  // The gradient must have the output's shape [b, s, hq, dv].
  expectThrowsNaming(
      [&] { attentionBackward(Tensor({1, 3, 4, 4}), q, k, v, true); },
      "attentionBackward");
  // attention()'s own checks, named after the backward.
  Tensor g({1, 3, 4, 3});
  expectThrowsNaming(
      [&] { attentionBackward(g, q, Tensor({1, 3, 3, 4}), v, true); },
      "attentionBackward");
  expectThrowsNaming(
      [&] {
        attentionBackward(g, q, Tensor({1, 2, 2, 4}), Tensor({1, 2, 2, 3}),
                          true);
      },
      "attentionBackward");
}

} // namespace
