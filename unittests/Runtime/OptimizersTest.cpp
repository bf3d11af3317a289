//===- OptimizersTest.cpp - SGD, AdamW and gradient clipping ----*- C++ -*-===//
//
// Hand-computed first steps, then three steps against the PyTorch
// algorithms written out in double in the test, for each option that
// changes the update; clipping at norms above, at and below the maximum.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Optimizers.h"

#include "tp/Runtime/Init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace mlir::tp::runtime;

namespace {

constexpr int64_t kSize = 6;
constexpr int kSteps = 3;

Tensor rand(const std::string &name) {
  return initTensor(5, name, {2, kSize / 2}, 1.0f);
}

std::vector<double> toDouble(const Tensor &t) {
  return std::vector<double>(t.data(), t.data() + t.numel());
}

/// The f32 result within a few f32 roundings of the double reference.
void expectClose(const Tensor &actual, const std::vector<double> &expected,
                 const char *what) {
  ASSERT_EQ(actual.numel(), static_cast<int64_t>(expected.size()));
  for (int64_t i = 0; i < actual.numel(); ++i)
    EXPECT_NEAR(actual.data()[i], expected[i],
                1e-6 * std::max(1.0, std::fabs(expected[i])))
        << what << " element " << i;
}

/// The gradient of step \p step (1-based): a different one each step.
Tensor gradAt(int step) { return rand("g" + std::to_string(step)); }

//===----------------------------------------------------------------------===//
// SGD
//===----------------------------------------------------------------------===//

/// torch.optim.SGD's documented algorithm, in double.
void sgdReference(std::vector<double> &param, std::vector<double> &buf,
                  const std::vector<double> &grad, int64_t step,
                  const SGDOptions &o) {
  for (size_t i = 0; i < param.size(); ++i) {
    double g = grad[i] + double(o.weightDecay) * param[i];
    if (o.momentum != 0) {
      buf[i] = step == 1 ? g
                         : double(o.momentum) * buf[i] +
                               (1.0 - double(o.dampening)) * g;
      g = o.nesterov ? g + double(o.momentum) * buf[i] : buf[i];
    }
    param[i] -= double(o.lr) * g;
  }
}

TEST(Optimizers, SgdHandComputedSteps) {
  Tensor grad = Tensor::fromData({1}, {1.0f});
  // Plain: 1 - 0.1 * 1.
  Tensor p = Tensor::fromData({1}, {1.0f});
  sgdStep(p, grad, nullptr, 1, {0.1f});
  EXPECT_NEAR(p.data()[0], 0.9, 1e-7);
  // Momentum 0.9: buffer 1 then 0.9 + 1; params 0.9 then 0.9 - 0.19.
  SGDOptions momentum{0.1f};
  momentum.momentum = 0.9f;
  p = Tensor::fromData({1}, {1.0f});
  Tensor buf = Tensor::fromData({1}, {123.0f}); // ignored at step 1
  sgdStep(p, grad, &buf, 1, momentum);
  EXPECT_NEAR(buf.data()[0], 1.0, 1e-7);
  EXPECT_NEAR(p.data()[0], 0.9, 1e-7);
  sgdStep(p, grad, &buf, 2, momentum);
  EXPECT_NEAR(buf.data()[0], 1.9, 1e-6);
  EXPECT_NEAR(p.data()[0], 0.71, 1e-6);
  // Nesterov: steps use g + 0.9 * buf = 1.9, then 1 + 0.9 * 1.9 = 2.71.
  SGDOptions nesterov = momentum;
  nesterov.nesterov = true;
  p = Tensor::fromData({1}, {1.0f});
  sgdStep(p, grad, &buf, 1, nesterov);
  EXPECT_NEAR(p.data()[0], 0.81, 1e-6);
  sgdStep(p, grad, &buf, 2, nesterov);
  EXPECT_NEAR(p.data()[0], 0.539, 1e-6);
  // Weight decay 0.5 adds 0.5 * param to the gradient: 2 - 0.1 * (1 + 1).
  SGDOptions decay{0.1f};
  decay.weightDecay = 0.5f;
  p = Tensor::fromData({1}, {2.0f});
  sgdStep(p, grad, nullptr, 1, decay);
  EXPECT_NEAR(p.data()[0], 1.8, 1e-6);
}

TEST(Optimizers, SgdMatchesReferenceOverSteps) {
  struct Case {
    const char *name;
    SGDOptions options;
  };
  const Case cases[] = {
      {"plain", {0.1f}},
      {"momentum", {0.1f, 0.9f}},
      {"dampening", {0.05f, 0.8f, 0.3f}},
      {"weight decay", {0.1f, 0.0f, 0.0f, 0.2f}},
      {"momentum and weight decay", {0.1f, 0.9f, 0.0f, 0.01f}},
      {"nesterov", {0.1f, 0.9f, 0.0f, 0.0f, true}},
      {"nesterov and weight decay", {0.02f, 0.5f, 0.0f, 0.1f, true}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Tensor param = rand("p"), buf({2, kSize / 2});
    std::vector<double> refParam = toDouble(param), refBuf(kSize);
    for (int step = 1; step <= kSteps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      Tensor grad = gradAt(step);
      sgdStep(param, grad, &buf, step, c.options);
      sgdReference(refParam, refBuf, toDouble(grad), step, c.options);
      expectClose(param, refParam, "param");
      if (c.options.momentum != 0)
        expectClose(buf, refBuf, "momentum buffer");
    }
  }
}

TEST(Optimizers, SgdChecksArguments) {
  Tensor p({2, 3}), g({2, 3}), buf({2, 3});
  SGDOptions momentum{0.1f, 0.9f};
  EXPECT_THROW(sgdStep(p, Tensor({3, 2}), nullptr, 1, {0.1f}),
               std::invalid_argument);
  EXPECT_THROW(sgdStep(p, g, nullptr, 1, momentum), std::invalid_argument);
  Tensor wrongBuf({6});
  EXPECT_THROW(sgdStep(p, g, &wrongBuf, 1, momentum), std::invalid_argument);
  EXPECT_THROW(sgdStep(p, g, &buf, 0, momentum), std::invalid_argument);
  SGDOptions badNesterov{0.1f, 0.9f, 0.1f, 0.0f, true};
  EXPECT_THROW(sgdStep(p, g, &buf, 1, badNesterov), std::invalid_argument);
  SGDOptions noMomentumNesterov{0.1f, 0.0f, 0.0f, 0.0f, true};
  EXPECT_THROW(sgdStep(p, g, &buf, 1, noMomentumNesterov),
               std::invalid_argument);
  EXPECT_THROW(sgdStep(p, g, nullptr, 1, {-0.1f}), std::invalid_argument);
  Tensor half = p.to(DType::BF16);
  EXPECT_THROW(sgdStep(half, g, nullptr, 1, {0.1f}), std::invalid_argument);
}

//===----------------------------------------------------------------------===//
// AdamW
//===----------------------------------------------------------------------===//

/// torch.optim.AdamW's documented algorithm, in double.
void adamwReference(std::vector<double> &param, std::vector<double> &m,
                    std::vector<double> &v, const std::vector<double> &grad,
                    int64_t step, const AdamWOptions &o) {
  double lr = o.lr, beta1 = o.beta1, beta2 = o.beta2;
  for (size_t i = 0; i < param.size(); ++i) {
    param[i] *= 1.0 - lr * double(o.weightDecay);
    m[i] = beta1 * m[i] + (1.0 - beta1) * grad[i];
    v[i] = beta2 * v[i] + (1.0 - beta2) * grad[i] * grad[i];
    double mHat = m[i] / (1.0 - std::pow(beta1, double(step)));
    double vHat = v[i] / (1.0 - std::pow(beta2, double(step)));
    param[i] -= lr * mHat / (std::sqrt(vHat) + double(o.eps));
  }
}

TEST(Optimizers, AdamWHandComputedBiasCorrection) {
  // Gradient 0.5 twice, lr 0.1, weight decay 0.01. The bias-corrected
  // averages are 0.5 and 0.25 at both steps, so each step moves by lr:
  // step 1: 1 * 0.999 - 0.1; step 2: 0.899 * 0.999 - 0.1. Without the
  // corrections step 1 would move by 0.1 * 0.05 / sqrt(0.00025) = 0.316.
  // The averages are within 2e-5 relative: 1 - 0.999f is 1.3e-5 from 0.001.
  Tensor p = Tensor::fromData({1}, {1.0f}), m({1}), v({1});
  Tensor grad = Tensor::fromData({1}, {0.5f});
  AdamWOptions options{0.1f};
  adamwStep(p, grad, m, v, 1, options);
  EXPECT_NEAR(m.data()[0], 0.05, 1e-7);
  EXPECT_NEAR(v.data()[0], 0.00025, 5e-9);
  EXPECT_NEAR(p.data()[0], 0.899, 1e-6);
  adamwStep(p, grad, m, v, 2, options);
  EXPECT_NEAR(m.data()[0], 0.095, 2e-7);
  EXPECT_NEAR(v.data()[0], 0.00049975, 1e-8);
  EXPECT_NEAR(p.data()[0], 0.798101, 1e-6);
}

TEST(Optimizers, AdamWAddsEpsAfterTheCorrectedRoot) {
  // With grad = eps = 1e-8 at step 1, sqrt(v_hat) = 1e-8 and the update is
  // lr * 1e-8 / (1e-8 + 1e-8) = lr / 2. Adding eps inside the root would
  // give about lr * 1e-4, before the bias correction about lr * 0.03.
  Tensor p = Tensor::fromData({1}, {1.0f}), m({1}), v({1});
  Tensor grad = Tensor::fromData({1}, {1e-8f});
  AdamWOptions options{0.1f};
  options.weightDecay = 0.0f;
  adamwStep(p, grad, m, v, 1, options);
  EXPECT_NEAR(p.data()[0], 0.95, 1e-6);
}

TEST(Optimizers, AdamWMatchesReferenceOverSteps) {
  struct Case {
    const char *name;
    AdamWOptions options;
  };
  const Case cases[] = {
      {"defaults", {1e-2f}},
      {"no weight decay", {1e-2f, 0.9f, 0.999f, 1e-8f, 0.0f}},
      {"strong decay, other betas", {0.1f, 0.8f, 0.95f, 1e-6f, 0.5f}},
      {"large eps", {0.05f, 0.9f, 0.999f, 0.1f, 0.01f}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Tensor param = rand("p"), m({2, kSize / 2}), v({2, kSize / 2});
    std::vector<double> refParam = toDouble(param), refM(kSize), refV(kSize);
    for (int step = 1; step <= kSteps; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      Tensor grad = gradAt(step);
      adamwStep(param, grad, m, v, step, c.options);
      adamwReference(refParam, refM, refV, toDouble(grad), step, c.options);
      expectClose(param, refParam, "param");
      expectClose(m, refM, "exp_avg");
      expectClose(v, refV, "exp_avg_sq");
    }
  }
}

TEST(Optimizers, AdamWChecksArguments) {
  Tensor p({2, 3}), g({2, 3}), m({2, 3}), v({2, 3}), wrong({3, 2});
  EXPECT_THROW(adamwStep(p, wrong, m, v, 1, {0.1f}), std::invalid_argument);
  EXPECT_THROW(adamwStep(p, g, wrong, v, 1, {0.1f}), std::invalid_argument);
  EXPECT_THROW(adamwStep(p, g, m, wrong, 1, {0.1f}), std::invalid_argument);
  EXPECT_THROW(adamwStep(p, g, m, v, 0, {0.1f}), std::invalid_argument);
  EXPECT_THROW(adamwStep(p, g, m, v, 1, {0.1f, 1.0f}), std::invalid_argument);
  EXPECT_THROW(adamwStep(p, g, m, v, 1, {0.1f, 0.9f, -0.5f}),
               std::invalid_argument);
}

//===----------------------------------------------------------------------===//
// 16-bit parameters
//===----------------------------------------------------------------------===//

namespace {
const std::vector<float> kHalfParam{0.5f,        -1.25f, 3.0f,    1e-3f,
                                    -0.0078125f, 100.0f, 2.5e-2f, -7.0f};
const std::vector<std::vector<float>> kHalfGrads{
    {0.1f, -0.2f, 0.3f, 1e-4f, 5.0f, -3.0f, 0.0f, 0.75f},
    {-0.05f, 0.4f, 0.3f, -1e-4f, 2.0f, 1.0f, 0.5f, -0.25f}};

/// Expects \p t (a BF16 tensor) to hold \p want within two bf16 ulps
/// (2^-7 relative) of each element: PyTorch's bf16 CPU kernels round a
/// product once in their vectorized body and twice in their scalar tail,
/// so which of the two an element gets depends on its index and the SIMD
/// width; tp rounds once per op.
void expectBF16Near(const Tensor &t, const std::vector<double> &want,
                    const char *what) {
  ASSERT_EQ(t.dtype(), DType::BF16) << what;
  std::vector<float> got = t.to(DType::F32).values();
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], std::fabs(want[i]) * 0x1p-7 + 1e-30)
        << what << "[" << i << "]";
}
} // namespace

// torch 1.13 on the CPU steps a bfloat16 parameter with tensor ops on
// bfloat16 tensors, each rounded; these are its values for two steps
// (torch.optim.AdamW(lr=0.01, weight_decay=0.01); SGD(lr=0.1,
// momentum=0.9, weight_decay=0.01, nesterov=True)) from the tensors above.
TEST(Optimizers, AdamWStepsBF16AsPyTorch) {
  Tensor p = Tensor::fromData({8}, kHalfParam).to(DType::BF16);
  Tensor m({8}, DType::BF16), v({8}, DType::BF16);
  for (int step = 1; step <= 2; ++step) {
    Tensor g = Tensor::fromData({8}, kHalfGrads[step - 1]).to(DType::BF16);
    adamwStep(p, g, m, v, step, {0.01f});
  }
  expectBF16Near(p,
                 {0.48828125, -1.2421875, 2.96875, -0.00848388671875,
                  -0.0267333984375, 100.0, 0.017578125, -7.0},
                 "param");
  expectBF16Near(m,
                 {0.00396728515625, 0.0220947265625, 0.05712890625,
                  -1.0132789611816406e-06, 0.6484375, -0.169921875,
                  0.050048828125, 0.04248046875},
                 "exp_avg");
  expectBF16Near(v,
                 {1.2516975402832031e-05, 0.0002002716064453125,
                  0.0001811981201171875, 2.000888343900442e-11, 0.029052734375,
                  0.00994873046875, 0.0002498626708984375,
                  0.000621795654296875},
                 "exp_avg_sq");
}

TEST(Optimizers, SgdStepsBF16AsPyTorch) {
  Tensor p = Tensor::fromData({8}, kHalfParam).to(DType::BF16);
  Tensor buf({8}, DType::BF16);
  SGDOptions o{0.1f, 0.9f, 0.0f, 0.01f, true};
  for (int step = 1; step <= 2; ++step) {
    Tensor g = Tensor::fromData({8}, kHalfGrads[step - 1]).to(DType::BF16);
    sgdStep(p, g, &buf, step, o);
  }
  expectBF16Near(p,
                 {0.48046875, -1.265625, 2.84375, 0.00098419189453125,
                  -1.7421875, 100.5, -0.0703125, -7.125},
                 "param");
}

TEST(Optimizers, HalfPrecisionStepsTakeOneDType) {
  Tensor p = Tensor({4}).to(DType::F16), g({4}, DType::BF16);
  Tensor m({4}, DType::F16), v({4}, DType::F16);
  // The gradient in another dtype than the parameter.
  EXPECT_THROW(adamwStep(p, g, m, v, 1, {0.1f}), std::invalid_argument);
  Tensor gf16({4}, DType::F16);
  Tensor v32({4});
  EXPECT_THROW(adamwStep(p, gf16, m, v32, 1, {0.1f}), std::invalid_argument);
  // Integers are not parameters.
  Tensor ids({4}, DType::I64);
  EXPECT_THROW(sgdStep(ids, ids, nullptr, 1, {0.1f}), std::invalid_argument);
  // f16 follows the same rule as bf16: every value it stores is an f16.
  Tensor one = Tensor::full({4}, 1.0f).to(DType::F16);
  adamwStep(one, Tensor::full({4}, 0.5f).to(DType::F16), m, v, 1, {0.1f});
  for (float x : one.to(DType::F32).values())
    EXPECT_EQ(x, f16ToFloat(floatToF16(x)));
  // One step of lr 0.1 moves each element by about lr (Adam's first step).
  EXPECT_NEAR(one.to(DType::F32).values()[0], 1.0f - 0.1f * 0.01f - 0.1f, 1e-3);
}

//===----------------------------------------------------------------------===//
// Clipping
//===----------------------------------------------------------------------===//

TEST(Optimizers, ClipCoefficientAboveAtAndBelowTheMaximum) {
  // Norm 5 against 1: scaled to 1 / (5 + 1e-6).
  EXPECT_NEAR(clipCoefficient(25.0, 1.0f), 1.0 / (5.0 + 1e-6), 1e-7);
  // Norm 0.5 against 1: clamped to 1.
  EXPECT_EQ(clipCoefficient(0.25, 1.0f), 1.0f);
  EXPECT_EQ(clipCoefficient(0.0, 1.0f), 1.0f);
  // At the maximum the 1e-6 still makes it scale, as in PyTorch.
  EXPECT_LT(clipCoefficient(4.0, 2.0f), 1.0f);
  EXPECT_NEAR(clipCoefficient(4.0, 2.0f), 2.0 / (2.0 + 1e-6), 1e-7);
  // Non-finite norms: inf gives 0, NaN stays NaN.
  EXPECT_EQ(clipCoefficient(std::numeric_limits<double>::infinity(), 1.0f),
            0.0f);
  EXPECT_TRUE(
      std::isnan(clipCoefficient(std::numeric_limits<double>::quiet_NaN(), 1)));
  EXPECT_THROW(clipCoefficient(-1.0, 1.0f), std::invalid_argument);
}

TEST(Optimizers, ClippingTwoGradientsGivesTheMaximumNorm) {
  Tensor a = Tensor::fromData({2}, {3.0f, 0.0f});
  Tensor b = Tensor::fromData({1, 2}, {0.0f, -4.0f});
  // Sum of squares 9 + 16: global norm 5, clipped to 2.
  float coef = clipCoefficient(25.0, 2.0f);
  scaleInPlace(a, coef);
  scaleInPlace(b, coef);
  EXPECT_NEAR(a.data()[0], 1.2, 1e-6);
  EXPECT_NEAR(b.data()[1], -1.6, 1e-6);
  double norm =
      std::sqrt(a.data()[0] * a.data()[0] + b.data()[1] * b.data()[1]);
  EXPECT_NEAR(norm, 2.0, 1e-6);
  Tensor ids = Tensor::fromInts({2}, {1, 2});
  EXPECT_THROW(scaleInPlace(ids, 0.5f), std::invalid_argument);
}

} // namespace
