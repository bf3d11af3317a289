//===- GenericKernelTest.cpp - model.generic's loop nest --------*- C++ -*-===//
//
// The host kernel of model.generic against sums and products written out
// by hand: a broadcast operand, a reduction into an init, a result read
// transposed, NaN through maximumf, and the errors of operands that
// disagree on a loop's extent.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Generic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace mlir::tp::runtime;
using Kind = ScalarInstr::Kind;

namespace {
ScalarInstr op(Kind kind, int a, int b = -1, int c = -1) {
  ScalarInstr s;
  s.kind = kind;
  s.a = a;
  s.b = b;
  s.c = c;
  return s;
}
ScalarInstr constant(double value) {
  ScalarInstr s;
  s.kind = Kind::Constant;
  s.value = value;
  return s;
}
} // namespace

TEST(GenericKernel, ElementwiseWithABroadcastRow) {
  // out[i, j] = x[i, j] * w[0, j] + 1 (the init unread).
  GenericSpec spec;
  spec.loops = 2;
  spec.operandMaps = {{0, 1}, {-1, 1}, {0, 1}};
  spec.resultMap = {0, 1};
  spec.body = {op(Kind::Mul, 0, 1), constant(1.0), op(Kind::Add, 3, 4)};
  spec.yield = 5;
  Tensor x = Tensor::fromData({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor w = Tensor::fromData({1, 3}, {10, 20, 30});
  Tensor init({2, 3});
  Tensor out = generic(spec, {&x, &w, &init}, {2, 3});
  EXPECT_EQ(out.values(), (std::vector<float>{11, 41, 91, 41, 101, 181}));
}

TEST(GenericKernel, SumIntoTheInit) {
  // out[i] = init[i] + sum_j exp(x[i, j]).
  GenericSpec spec;
  spec.loops = 2;
  spec.operandMaps = {{0, 1}, {0}};
  spec.resultMap = {0};
  spec.hasInit = true;
  spec.body = {op(Kind::Exp, 0), op(Kind::Add, 1, 2)};
  spec.yield = 3;
  Tensor x = Tensor::fromData({2, 2}, {0, 1, 2, 3});
  Tensor init = Tensor::fromData({2}, {0.5f, -1});
  Tensor out = generic(spec, {&x, &init}, {-1});
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{2}));
  EXPECT_NEAR(out.at(0), 0.5 + std::exp(0.0) + std::exp(1.0), 1e-5);
  EXPECT_NEAR(out.at(1), -1 + std::exp(2.0) + std::exp(3.0), 1e-4);
  EXPECT_EQ(init.values(), (std::vector<float>{0.5f, -1})); // not written
}

TEST(GenericKernel, TransposedResultAndNaN) {
  // out[j, i] = maximumf(x[i, j], 0): NaN stays NaN.
  GenericSpec spec;
  spec.loops = 2;
  spec.operandMaps = {{0, 1}, {1, 0}};
  spec.resultMap = {1, 0};
  spec.body = {constant(0.0), op(Kind::Max, 0, 2)};
  spec.yield = 3;
  Tensor x = Tensor::fromData({2, 3}, {1, -2, NAN, -4, 5, 6});
  Tensor init({3, 2});
  Tensor out = generic(spec, {&x, &init}, {3, 2});
  ASSERT_EQ(out.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(out.at(0), 1);
  EXPECT_EQ(out.at(1), 0);
  EXPECT_EQ(out.at(2), 0);
  EXPECT_EQ(out.at(3), 5);
  EXPECT_TRUE(std::isnan(out.at(4)));
  EXPECT_EQ(out.at(5), 6);
}

TEST(GenericKernel, SelectAndCompare) {
  // out[i] = x[i] > 0 ? x[i] : 0.5 * x[i].
  GenericSpec spec;
  spec.loops = 1;
  spec.operandMaps = {{0}, {0}};
  spec.resultMap = {0};
  ScalarInstr gt = op(Kind::Compare, 0, 2);
  gt.predicate = 4;
  spec.body = {constant(0.0), gt, constant(0.5), op(Kind::Mul, 0, 4),
               op(Kind::Select, 3, 0, 5)};
  spec.yield = 6;
  Tensor x = Tensor::fromData({3}, {2, -2, 0});
  Tensor init({3});
  EXPECT_EQ(generic(spec, {&x, &init}, {3}).values(),
            (std::vector<float>{2, -1, 0}));
}

TEST(GenericKernel, ExtentsMustAgree) {
  GenericSpec spec;
  spec.loops = 1;
  spec.operandMaps = {{0}, {0}, {0}};
  spec.resultMap = {0};
  spec.body = {op(Kind::Add, 0, 1)};
  spec.yield = 3;
  Tensor a({3}), b({4}), init({3});
  EXPECT_THROW(generic(spec, {&a, &b, &init}, {3}), std::runtime_error);
  // A dim read at 0 must have size 1.
  spec.operandMaps = {{0}, {-1}, {0}};
  EXPECT_THROW(generic(spec, {&a, &b, &init}, {3}), std::runtime_error);
}
