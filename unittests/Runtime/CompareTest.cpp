//===- CompareTest.cpp - results against references -------------*- C++ -*-===//
//
// The errors and non-finite rules behind tp-run --verify: errors over the
// elements finite in both, NaN matching NaN and infinities matching the
// same infinity (torch.testing.assert_close with equal_nan=True).
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::tp::runtime;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
} // namespace

TEST(Compare, FiniteErrors) {
  Comparison c = compareWithReference(Tensor::fromData({3}, {1, 2.5f, -4}),
                                      Tensor::fromData({3}, {1, 2, -5}));
  EXPECT_DOUBLE_EQ(c.maxAbsError, 1.0);
  EXPECT_DOUBLE_EQ(c.maxReference, 5.0);
  EXPECT_EQ(c.nonFinite, 0);
  EXPECT_EQ(c.firstNonFinite, -1);
  EXPECT_EQ(c.firstMismatch, -1);
  EXPECT_THROW(compareWithReference(Tensor({2}), Tensor({3})),
               std::invalid_argument);
}

TEST(Compare, NaNAndInfAtTheSamePlacesMatch) {
  Tensor t = Tensor::fromData({2, 2}, {1, kNaN, -kInf, 2});
  Comparison c = compareWithReference(t, t);
  EXPECT_EQ(c.nonFinite, 2);
  EXPECT_EQ(c.firstNonFinite, 1);
  EXPECT_EQ(c.firstMismatch, -1);
  // The errors stay finite: non-finite elements are not in them.
  EXPECT_DOUBLE_EQ(c.maxAbsError, 0.0);
  EXPECT_DOUBLE_EQ(c.maxReference, 2.0);
}

TEST(Compare, NonFiniteOnOneSideIsAMismatch) {
  Tensor ref = Tensor::fromData({4}, {1, 2, kInf, kNaN});
  // NaN where the reference has a number.
  Comparison a =
      compareWithReference(Tensor::fromData({4}, {1, kNaN, kInf, kNaN}), ref);
  EXPECT_EQ(a.firstMismatch, 1);
  EXPECT_EQ(a.firstNonFinite, 1);
  // A number where the reference has NaN, or the other infinity.
  Comparison b =
      compareWithReference(Tensor::fromData({4}, {1, 2, kInf, 0}), ref);
  EXPECT_EQ(b.firstMismatch, 3);
  EXPECT_EQ(b.firstNonFinite, 2);
  Comparison c =
      compareWithReference(Tensor::fromData({4}, {1, 2, -kInf, kNaN}), ref);
  EXPECT_EQ(c.firstMismatch, 2);
  // 16-bit tensors are read as f32.
  Comparison h =
      compareWithReference(Tensor::fromData({2}, {kNaN, 1}).to(DType::BF16),
                           Tensor::fromData({2}, {kNaN, 1}));
  EXPECT_EQ(h.nonFinite, 1);
  EXPECT_EQ(h.firstMismatch, -1);
}

TEST(Compare, FindAndPrint) {
  EXPECT_EQ(findNonFinite(Tensor::fromData({3}, {1, 2, 3})), -1);
  EXPECT_EQ(findNonFinite(Tensor::fromData({3}, {1, kInf, kNaN})), 1);
  EXPECT_EQ(findNonFinite(Tensor::fromData({2}, {1, kNaN}).to(DType::F16)), 1);
  EXPECT_EQ(indexString({2, 3, 4}, 13), "[1, 0, 1]");
  EXPECT_EQ(indexString({}, 0), "[]");
  EXPECT_EQ(valueString(kNaN), "nan");
  EXPECT_EQ(valueString(-kInf), "-inf");
  EXPECT_EQ(valueString(0.25f), "0.25");
}
