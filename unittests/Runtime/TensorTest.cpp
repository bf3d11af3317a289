//===- TensorTest.cpp - Tests for Tensor and chunk arithmetic ---*- C++ -*-===//
//
// Shape bookkeeping, slicing, concatenation and torch.chunk rules.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

using namespace tp::runtime;

namespace {
Tensor iota(std::vector<int64_t> shape) {
  Tensor t(std::move(shape));
  std::iota(t.data(), t.data() + t.numel(), 0.0f);
  return t;
}

TEST(TensorTest, ConstructionAndShape) {
  Tensor t({4, 16});
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numel(), 64);
  EXPECT_EQ(t.bytes(), 256u);
  EXPECT_EQ(t.dim(0), 4);
  EXPECT_EQ(t.dim(-1), 16);
  EXPECT_EQ(t.dim(-2), 4);
  EXPECT_THROW(t.dim(2), std::out_of_range);
  EXPECT_THROW(t.dim(-3), std::out_of_range);
  EXPECT_EQ(t.shapeString(), "4x16");
  for (int64_t i = 0; i < t.numel(); ++i)
    EXPECT_EQ(t.data()[i], 0.0f);
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_STREQ(dtypeName(t.dtype()), "F32");
}

TEST(TensorTest, DefaultAndScalar) {
  Tensor empty;
  EXPECT_EQ(empty.rank(), 1);
  EXPECT_EQ(empty.numel(), 0);
  Tensor s = Tensor::scalar(2.5f);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.shapeString(), "");
  EXPECT_EQ(s.data()[0], 2.5f);
}

TEST(TensorTest, FromDataChecksSize) {
  Tensor t = Tensor::fromData({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(t.data()[3], 4.0f);
  EXPECT_THROW(Tensor::fromData({2, 3}, {1, 2, 3, 4}), std::invalid_argument);
  EXPECT_THROW(Tensor({2, -1}), std::invalid_argument);
}

TEST(TensorTest, Reshaped) {
  Tensor t = iota({2, 3});
  Tensor r = t.reshaped({3, 2});
  EXPECT_EQ(r.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.values(), t.values());
  EXPECT_THROW(t.reshaped({4, 2}), std::invalid_argument);
}

TEST(TensorTest, SliceDimMiddle) {
  Tensor t = iota({2, 4, 3});
  Tensor s = sliceDim(t, 1, 1, 2);
  ASSERT_EQ(s.shape(), (std::vector<int64_t>{2, 2, 3}));
  std::vector<float> expected = {3, 4, 5, 6, 7, 8, 15, 16, 17, 18, 19, 20};
  EXPECT_EQ(s.values(), expected);
  EXPECT_EQ(sliceDim(t, -1, 2, 1).values(),
            (std::vector<float>{2, 5, 8, 11, 14, 17, 20, 23}));
  EXPECT_EQ(sliceDim(t, 1, 4, 0).numel(), 0);
  EXPECT_THROW(sliceDim(t, 1, 3, 2), std::invalid_argument);
  EXPECT_THROW(sliceDim(t, 1, -1, 1), std::invalid_argument);
  EXPECT_THROW(sliceDim(t, 3, 0, 1), std::out_of_range);
}

TEST(TensorTest, ConcatInvertsSlices) {
  Tensor t = iota({3, 5, 2});
  for (int64_t dim = 0; dim < 3; ++dim) {
    int64_t extent = t.dim(dim);
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < 3; ++i) {
      Chunk c = chunkOf(extent, 3, i);
      parts.push_back(sliceDim(t, dim, c.offset, c.size));
    }
    EXPECT_EQ(concatDim(parts, dim), t) << "dim " << dim;
  }
  EXPECT_THROW(concatDim({}, 0), std::invalid_argument);
  EXPECT_THROW(concatDim({Tensor({2, 3}), Tensor({3, 3})}, 1),
               std::invalid_argument);
  EXPECT_THROW(concatDim({Tensor({2, 3}), Tensor({2, 3, 1})}, 0),
               std::invalid_argument);
}

TEST(TensorTest, ChunkOfFollowsTorch) {
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < 4; ++i)
    sizes.push_back(chunkOf(10, 4, i).size);
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(chunkOf(10, 4, 3).offset, 9);

  sizes.clear();
  for (int64_t i = 0; i < 4; ++i)
    sizes.push_back(chunkOf(5, 4, i).size);
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 1, 0}));
  EXPECT_EQ(chunkOf(5, 4, 2).offset, 4);
  EXPECT_EQ(chunkOf(5, 4, 3).offset, 5);

  EXPECT_EQ(chunkOf(8, 4, 2).offset, 4);
  EXPECT_EQ(chunkOf(8, 4, 2).size, 2);
  EXPECT_EQ(chunkOf(0, 2, 1).size, 0);
  EXPECT_THROW(chunkOf(5, 0, 0), std::invalid_argument);
  EXPECT_THROW(chunkOf(5, 2, 2), std::invalid_argument);
}

TEST(TensorTest, NormalizeDim) {
  EXPECT_EQ(normalizeDim(-1, 3), 2);
  EXPECT_EQ(normalizeDim(0, 3), 0);
  EXPECT_THROW(normalizeDim(3, 3), std::out_of_range);
  EXPECT_THROW(normalizeDim(0, 0), std::out_of_range);
}
} // namespace

namespace {
uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float floatOf(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

TEST(DTypeTest, NamesSizesAndParsing) {
  EXPECT_STREQ(dtypeName(DType::BF16), "BF16");
  EXPECT_STREQ(dtypeName(DType::F16), "F16");
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  DType d = DType::F32;
  EXPECT_TRUE(parseDType("bfloat16", d));
  EXPECT_EQ(d, DType::BF16);
  EXPECT_TRUE(parseDType("half", d));
  EXPECT_EQ(d, DType::F16);
  EXPECT_TRUE(parseDType("F32", d));
  EXPECT_EQ(d, DType::F32);
  EXPECT_FALSE(parseDType("float64", d));
  EXPECT_FALSE(parseDType("", d));
}

TEST(DTypeTest, BF16RoundsToNearestEven) {
  // Every bf16 value survives the round trip.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float x = bf16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(x))
      EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(x))));
    else
      EXPECT_EQ(floatToBF16(x), h);
  }
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even 1.0.
  EXPECT_EQ(floatToBF16(1.0f + 1.0f / 256), floatToBF16(1.0f));
  // 1 + 3*2^-8 is halfway between 1+2^-7 and 1+2^-6: the even one is 1+2^-6.
  EXPECT_EQ(bf16ToFloat(floatToBF16(1.0f + 3.0f / 256)), 1.0f + 1.0f / 64);
  // Just above the halfway point rounds up.
  EXPECT_EQ(bf16ToFloat(floatToBF16(floatOf(bitsOf(1.0f + 1.0f / 256) + 1))),
            1.0f + 1.0f / 128);
  // The largest finite float rounds to infinity, like PyTorch.
  EXPECT_TRUE(std::isinf(bf16ToFloat(floatToBF16(3.4028235e38f))));
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(std::nanf("")))));
  // A NaN whose payload lives only in the low bits stays a NaN.
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(floatOf(0x7f800001u)))));
}

TEST(DTypeTest, F16RoundsToNearestEven) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float x = f16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(x))
      EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(x))));
    else
      EXPECT_EQ(floatToF16(x), h) << "f16 bits " << h;
  }
  EXPECT_EQ(f16ToFloat(floatToF16(65504.0f)), 65504.0f);
  EXPECT_EQ(f16ToFloat(floatToF16(65519.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(f16ToFloat(floatToF16(65520.0f))));
  EXPECT_TRUE(std::isinf(f16ToFloat(floatToF16(-1e10f))));
  EXPECT_LT(f16ToFloat(floatToF16(-1e10f)), 0.0f);
  // Subnormals: the smallest is 2^-24; half of it ties to even zero, a bit
  // more rounds up to it.
  EXPECT_EQ(f16ToFloat(floatToF16(std::ldexp(1.0f, -24))),
            std::ldexp(1.0f, -24));
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -25)), 0u);
  EXPECT_EQ(floatToF16(std::ldexp(1.5f, -25)), 1u);
  EXPECT_EQ(floatToF16(-0.0f), 0x8000u);
  // 1 + 2^-11 ties between 1 and 1 + 2^-10: even is 1.
  EXPECT_EQ(f16ToFloat(floatToF16(1.0f + 1.0f / 2048)), 1.0f);
  EXPECT_EQ(f16ToFloat(floatToF16(1.0f + 3.0f / 2048)), 1.0f + 1.0f / 512);
#ifdef __FLT16_MAX__
  // Against the compiler's own conversion on a dense sweep of floats.
  for (uint32_t u = 0; u < 0xffffffffu - 4093; u += 4093) {
    float x = floatOf(u);
    if (std::isnan(x))
      continue;
    _Float16 ref = static_cast<_Float16>(x);
    uint16_t refBits;
    std::memcpy(&refBits, &ref, sizeof refBits);
    ASSERT_EQ(floatToF16(x), refBits) << "float bits " << u;
  }
#endif
}

TEST(DTypeTest, TensorsOfEveryDtype) {
  Tensor t = iota({2, 3});
  Tensor b = t.to(DType::BF16);
  EXPECT_EQ(b.dtype(), DType::BF16);
  EXPECT_EQ(b.bytes(), 12u);
  EXPECT_EQ(b.at(5), 5.0f);
  EXPECT_THROW(b.data(), std::invalid_argument);
  EXPECT_EQ(b.to(DType::F32), t);
  EXPECT_EQ(b.to(DType::F16).to(DType::F32), t);
  EXPECT_NE(b, t);
  // Rounding happens on the way down.
  Tensor third = Tensor::full({3}, 1.0f / 3).to(DType::F16);
  EXPECT_EQ(third.at(0), f16ToFloat(floatToF16(1.0f / 3)));
  EXPECT_NE(third.at(0), 1.0f / 3);
  // Layout helpers keep the dtype and move the right elements.
  Tensor s = sliceDim(b, 1, 1, 2);
  EXPECT_EQ(s.dtype(), DType::BF16);
  EXPECT_EQ(s.to(DType::F32), sliceDim(t, 1, 1, 2));
  Tensor c = concatDim({b, b}, 1);
  EXPECT_EQ(c.to(DType::F32), concatDim({t, t}, 1));
  EXPECT_THROW(concatDim({b, t}, 0), std::invalid_argument);
  EXPECT_EQ(b.reshaped({3, 2}).to(DType::F32), t.reshaped({3, 2}));
  // Odd element counts.
  Tensor odd({3}, DType::F16);
  EXPECT_EQ(odd.bytes(), 6u);
  EXPECT_EQ(odd.at(2), 0.0f);
  EXPECT_THROW(odd.at(3), std::out_of_range);
}
} // namespace

TEST(HostMemoryTest, IsPositive) { EXPECT_GT(hostMemoryBytes(), 0); }
