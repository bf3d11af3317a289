//===- TensorTest.cpp - Tests for Tensor and chunk arithmetic ---*- C++ -*-===//
//
// Shape bookkeeping, slicing, concatenation and torch.chunk rules.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Tensor.h"

#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/MemoryMeter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>

using namespace mlir::tp::runtime;

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

TEST(TensorTest, UninitializedHasShapeAndDtype) {
  Tensor t = Tensor::uninitialized({2, 3}, DType::BF16);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.dtype(), DType::BF16);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.bytes(), 12u);
  EXPECT_EQ(Tensor::uninitialized({0, 4}).numel(), 0);
  EXPECT_THROW(Tensor::uninitialized({-1}), std::invalid_argument);
}

TEST(TensorTest, ReshapedRvalueMovesTheElements) {
  Tensor t = Tensor::fromData({2, 3}, {1, 2, 3, 4, 5, 6});
  const float *data = t.data();
  Tensor r = std::move(t).reshaped({3, 2});
  EXPECT_EQ(r.data(), data);
  EXPECT_EQ(r.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.values(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_THROW(std::move(r).reshaped({4}), std::invalid_argument);
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

// concatDimOf reads the parts where they are: the result of concatDim, in
// any dtype, with its errors, and no part copied.
TEST(TensorTest, ConcatOfPointersReadsInPlace) {
  Tensor t = iota({4, 6}).to(DType::BF16);
  Tensor a = sliceDim(t, 1, 0, 2), b = sliceDim(t, 1, 2, 4);
  EXPECT_EQ(concatDimOf({&a, &b}, 1), t);
  EXPECT_EQ(concatDimOf({&a, &b}, -1), concatDim({a, b}, 1));
  MemoryMeter meter;
  {
    MemoryMeter::Scope metered(meter);
    Tensor joined = concatDimOf({&a, &b}, 1);
    EXPECT_EQ(meter.peak(), static_cast<int64_t>(joined.bytes()));
  }
  Tensor c({4, 6});
  EXPECT_THROW(concatDimOf({&a, &c}, 1), std::invalid_argument);
  EXPECT_THROW(concatDimOf({}, 0), std::invalid_argument);
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

TEST(TensorTest, PlacementBoxNestsInnerShardsInsideShards) {
  std::vector<int64_t> offsets, sizes;
  // [S0, S0] on 2x2: mesh order, rank (i, j) holds rows 2i+j of 8 by 2.
  placementBox({8, 4}, {"S0", "S0"}, {2, 2}, {1, 0}, offsets, sizes);
  EXPECT_EQ(offsets, (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 4}));
  // [I0, S0]: tp (axis 1) splits first, dp splits tp's piece: rank
  // (dp 1, tp 0) holds rows 2..3 of tp piece 0..3.
  placementBox({8, 4}, {"I0", "S0"}, {2, 2}, {1, 0}, offsets, sizes);
  EXPECT_EQ(offsets, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 4}));
  placementBox({8, 4}, {"I0", "S0"}, {2, 2}, {0, 1}, offsets, sizes);
  EXPECT_EQ(offsets, (std::vector<int64_t>{4, 0}));
  // Uneven: 11 rows over tp are 6 and 5, tp piece 1 (rows 6..10) over dp
  // is 3 and 2.
  placementBox({11}, {"I0", "S0"}, {2, 2}, {1, 1}, offsets, sizes);
  EXPECT_EQ(offsets, (std::vector<int64_t>{9}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{2}));
  // Replicate and Partial cut nothing; another dim is cut on its own.
  placementBox({8, 6}, {"S0", "Psum", "S1"}, {2, 2, 3}, {1, 1, 2}, offsets,
               sizes);
  EXPECT_EQ(offsets, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 2}));
  EXPECT_THROW(placementBox({8}, {"S1"}, {2}, {0}, offsets, sizes),
               std::runtime_error);
}

TEST(TensorTest, BoolMasksConvert) {
  Tensor m =
      Tensor::fromData({4}, {0.0f, 2.5f, -1.0f, std::nanf("")}).to(DType::Bool);
  EXPECT_EQ(m.dtype(), DType::Bool);
  EXPECT_EQ(m.bytes(), 4u);
  // Nonzero is true, NaN too (PyTorch's .bool()).
  EXPECT_EQ(std::vector<uint8_t>(m.dataBool(), m.dataBool() + 4),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(m.to(DType::F32).values(), (std::vector<float>{0, 1, 1, 1}));
  EXPECT_EQ(m.atInt(1), 1);
  // Ids: exactly nonzero, beyond what f32 holds.
  Tensor ids = Tensor::fromInts({2}, {0, int64_t{1} << 40});
  Tensor b = ids.to(DType::Bool);
  EXPECT_EQ(b.dataBool()[0], 0);
  EXPECT_EQ(b.dataBool()[1], 1);
  EXPECT_EQ(b.to(DType::I64).dataI64()[1], 1);
  DType d;
  ASSERT_TRUE(parseDType("BOOL", d));
  EXPECT_EQ(d, DType::Bool);
  EXPECT_STREQ(dtypeName(DType::Bool), "BOOL");
  EXPECT_THROW(m.data(), std::invalid_argument);
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

//===----------------------------------------------------------------------===//
// Integer tensors
//===----------------------------------------------------------------------===//

constexpr int64_t kBig = (int64_t(1) << 40) + 1; // not exact in f32

/// Expects \p fn to throw std::invalid_argument whose message contains every
/// string of \p parts.
template <class Fn>
void expectInvalid(Fn fn, const std::vector<std::string> &parts) {
  try {
    fn();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument &e) {
    std::string what = e.what();
    for (const std::string &p : parts)
      EXPECT_NE(what.find(p), std::string::npos)
          << "'" << p << "' not in: " << what;
  }
}

TEST(IntTensorTest, NamesSizesAndParsing) {
  EXPECT_STREQ(dtypeName(DType::I64), "I64");
  EXPECT_STREQ(dtypeName(DType::I32), "I32");
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  EXPECT_EQ(dtypeSize(DType::I32), 4u);
  EXPECT_TRUE(isIntegerDType(DType::I64));
  EXPECT_FALSE(isIntegerDType(DType::F32));
  for (const char *name : {"I64", "int64", "long", "i64"}) {
    DType d = DType::F32;
    EXPECT_TRUE(parseDType(name, d)) << name;
    EXPECT_EQ(d, DType::I64) << name;
  }
  for (const char *name : {"I32", "int32", "int", "i32"}) {
    DType d = DType::F32;
    EXPECT_TRUE(parseDType(name, d)) << name;
    EXPECT_EQ(d, DType::I32) << name;
  }
  DType d;
  EXPECT_FALSE(parseDType("U8", d));
  EXPECT_FALSE(parseDType("int8", d));
}

TEST(IntTensorTest, ConstructionAndAccessors) {
  Tensor z({2, 3}, DType::I64);
  EXPECT_EQ(z.bytes(), 48u);
  for (int64_t i = 0; i < z.numel(); ++i)
    EXPECT_EQ(z.dataI64()[i], 0);
  Tensor t =
      Tensor::fromInts({3}, {-7, kBig, std::numeric_limits<int64_t>::max()});
  EXPECT_EQ(t.dtype(), DType::I64);
  EXPECT_EQ(t.dataI64()[1], kBig);
  EXPECT_EQ(t.atInt(2), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(t.at(0), -7.0f);
  // at() is the f32 value: 2^40 + 1 rounds to 2^40.
  EXPECT_EQ(t.at(1), 1099511627776.0f);
  EXPECT_THROW(t.atInt(3), std::out_of_range);
  // Typed accessors check the dtype, as data() does.
  expectInvalid([&] { (void)t.data(); }, {"a I64 tensor", "f32 elements"});
  expectInvalid([&] { (void)t.dataI32(); }, {"i32 elements"});
  expectInvalid([&] { (void)Tensor({2}).dataI64(); }, {"a F32 tensor"});
  Tensor i32 = Tensor::fromInts({2}, {-5, 2147483647}, DType::I32);
  EXPECT_EQ(i32.dtype(), DType::I32);
  EXPECT_EQ(i32.bytes(), 8u);
  EXPECT_EQ(i32.dataI32()[1], 2147483647);
  EXPECT_EQ(i32.atInt(0), -5);
  expectInvalid([] { Tensor::fromInts({1}, {int64_t(1) << 31}, DType::I32); },
                {"element 0", "2147483648", "I32", "out of range"});
  EXPECT_THROW(Tensor::fromInts({2}, {1}), std::invalid_argument);
  EXPECT_THROW(Tensor::fromInts({1}, {1}, DType::F32), std::invalid_argument);
  // atInt on floats: exact integers only.
  EXPECT_EQ(Tensor::fromData({2}, {3, -4}).atInt(1), -4);
  EXPECT_THROW(Tensor::fromData({1}, {0.5f}).atInt(0), std::invalid_argument);
}

TEST(IntTensorTest, BuffersAreAlignedForInt64) {
  for (int64_t n : {1, 2, 3, 17, 1000}) {
    Tensor t({n}, DType::I64);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw()) % alignof(int64_t), 0u) << n;
    Tensor c = sliceDim(Tensor::fromInts({n + 1}, std::vector<int64_t>(n + 1)),
                        0, 1, n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.raw()) % alignof(int64_t), 0u);
    Tensor moved = std::move(t).reshaped({1, n});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(moved.raw()) % alignof(int64_t), 0u);
  }
}

TEST(IntTensorTest, FloatToIntIsExactOrThrows) {
  Tensor f = Tensor::fromData({4}, {0, -3, 16777216, 1e10f});
  Tensor i = f.to(DType::I64);
  EXPECT_EQ(i, Tensor::fromInts({4}, {0, -3, 16777216, 10000000000}));
  EXPECT_EQ(f.to(DType::BF16).to(DType::I64).atInt(1), -3);
  expectInvalid([] { Tensor::fromData({3}, {1, 2, 1.5f}).to(DType::I64); },
                {"element 2", "1.5", "I64", "not an integer"});
  expectInvalid(
      [] {
        Tensor::fromData({2}, {0, std::numeric_limits<float>::quiet_NaN()})
            .to(DType::I64);
      },
      {"element 1", "nan", "not an integer"});
  expectInvalid(
      [] {
        Tensor::fromData({1}, {std::numeric_limits<float>::infinity()})
            .to(DType::I32);
      },
      {"element 0", "inf"});
  // 2^63 is the first float beyond int64; -2^63 is the last one inside.
  expectInvalid([] { Tensor::fromData({1}, {9.223372e18f}).to(DType::I64); },
                {"element 0", "out of range"});
  EXPECT_EQ(Tensor::fromData({1}, {-9.223372e18f}).to(DType::I64).atInt(0),
            std::numeric_limits<int64_t>::min());
  expectInvalid(
      [] { Tensor::fromData({2}, {0, 2147483648.0f}).to(DType::I32); },
      {"element 1", "2147483648", "out of range"});
  EXPECT_EQ(Tensor::fromData({1}, {-2147483648.0f}).to(DType::I32).atInt(0),
            std::numeric_limits<int32_t>::min());
  // fromFloat is the same conversion on raw buffers.
  float src[2] = {4, 4.25f};
  int64_t dst[2];
  expectInvalid([&] { fromFloat(src, DType::I64, dst, 2); },
                {"element 1", "4.25"});
}

TEST(IntTensorTest, IntToFloatAndBetweenInts) {
  Tensor i = Tensor::fromInts({4}, {-16777216, 3, 16777217, kBig});
  Tensor f = i.to(DType::F32);
  EXPECT_EQ(f.data()[0], -16777216.0f);
  EXPECT_EQ(f.data()[1], 3.0f);
  // Beyond 2^24 f32 rounds, as static_cast does.
  EXPECT_EQ(f.data()[2], static_cast<float>(int64_t(16777217)));
  EXPECT_EQ(f.data()[3], static_cast<float>(kBig));
  float out[4];
  toFloat(i.raw(), DType::I64, out, 4);
  EXPECT_EQ(std::vector<float>(out, out + 4), f.values());
  EXPECT_EQ(i.to(DType::BF16).at(1), 3.0f);
  Tensor small = Tensor::fromInts({3}, {-2147483648LL, 0, 2147483647});
  Tensor s32 = small.to(DType::I32);
  EXPECT_EQ(s32.dtype(), DType::I32);
  EXPECT_EQ(s32.to(DType::I64), small);
  EXPECT_EQ(s32.to(DType::F32).data()[1], 0.0f);
  expectInvalid([&] { i.to(DType::I32); },
                {"element 3", "1099511627777", "I32", "out of range"});
  // Integers survive a trip through f32 while they are below 2^24.
  Tensor ids = Tensor::fromInts({3}, {0, 12345, 16777216});
  EXPECT_EQ(ids.to(DType::F32).to(DType::I64), ids);
}

TEST(IntTensorTest, EqualityIsExact) {
  Tensor a = Tensor::fromInts({2}, {kBig, 1});
  Tensor b = Tensor::fromInts({2}, {kBig - 1, 1});
  // Equal as floats, different as integers.
  EXPECT_EQ(a.at(0), b.at(0));
  EXPECT_NE(a, b);
  EXPECT_EQ(a, Tensor::fromInts({2}, {kBig, 1}));
  EXPECT_NE(a, a.reshaped({1, 2}));
  EXPECT_NE(Tensor::fromInts({2}, {1, 2}, DType::I32),
            Tensor::fromInts({2}, {1, 2}));
  EXPECT_NE(Tensor::fromInts({2}, {1, 2}), Tensor::fromData({2}, {1, 2}));
  EXPECT_EQ(Tensor({0}, DType::I64), Tensor({0}, DType::I64));
}

TEST(IntTensorTest, LayoutHelpersMoveInt64Exactly) {
  std::vector<int64_t> v(24);
  for (int64_t i = 0; i < 24; ++i)
    v[i] = (i % 2 ? -1 : 1) * (kBig + i);
  Tensor t = Tensor::fromInts({2, 4, 3}, v);
  Tensor s = sliceDim(t, 1, 1, 2);
  ASSERT_EQ(s.dtype(), DType::I64);
  ASSERT_EQ(s.shape(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(s.atInt(0), v[3]);
  EXPECT_EQ(s.atInt(6), v[15]);
  for (int64_t dim = 0; dim < 3; ++dim) {
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < 3; ++i)
      parts.push_back(chunkDim(t, dim, 3, i));
    EXPECT_EQ(parts[0].dtype(), DType::I64);
    EXPECT_EQ(concatDim(parts, dim), t) << "dim " << dim;
  }
  Tensor r = t.reshaped({6, 4});
  EXPECT_EQ(r.atInt(23), v[23]);
  EXPECT_EQ(reshape(t, {24}).atInt(5), v[5]);
  EXPECT_THROW(concatDim({t, t.to(DType::F32)}, 0), std::invalid_argument);
  // I32 with an odd element count.
  Tensor odd = Tensor::fromInts({3}, {1, -2, 3}, DType::I32);
  EXPECT_EQ(concatDim({odd, odd}, 0),
            Tensor::fromInts({6}, {1, -2, 3, 1, -2, 3}, DType::I32));
  EXPECT_EQ(sliceDim(odd, 0, 1, 2), Tensor::fromInts({2}, {-2, 3}, DType::I32));
}
} // namespace

TEST(HostMemoryTest, IsPositive) { EXPECT_GT(hostMemoryBytes(), 0); }
