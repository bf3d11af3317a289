//===- CUDATest.cpp - Tests for TPRuntimeCUDA -------------------*- C++ -*-===//
//
// Every device kernel against the CPU kernel on random data, bf16/f16 device
// tensors (conversions bitwise against the host's, 16-bit GEMMs against f32
// references with stated tolerances), the nccl backend on one rank (and on
// two GPUs when there are two), and the threads backend over device memory on
// 2-4 ranks sharing one GPU. Every test skips with the reason when no CUDA
// device is usable.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CUDA.h"
#include "tp/Runtime/Init.h"
#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/NCCLCommunicator.h"
#include "tp/Runtime/UnevenCollectives.h"

#include "IntegerChecks.h"
#include "LowPrecisionChecks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>
#include <unistd.h>

using namespace mlir::tp::runtime;
using gpu::DeviceTensor;

namespace {
/// Skips the test when there is no usable CUDA device.
class GpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!cudaAvailable(&why))
      GTEST_SKIP() << why;
  }
};

Tensor rand(std::vector<int64_t> shape, const std::string &name = "x",
            float scale = 1.0f) {
  return initTensor(11, name, shape, scale);
}

DeviceTensor up(const Tensor &t) { return DeviceTensor::upload(t); }

/// |actual - expected| <= tol * max(1, |expected|) element-wise.
void expectClose(const Tensor &actual, const Tensor &expected,
                 float tol = 1e-5f) {
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    float e = expected.data()[i], a = actual.data()[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << "element " << i;
      continue;
    }
    ASSERT_NEAR(a, e, tol * std::max(1.0f, std::fabs(e))) << "element " << i;
  }
}

/// Rank r's distinct input: value = 100*r + i.
std::vector<float> rankData(int r, size_t count) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i)
    v[i] = static_cast<float>(100 * r + static_cast<int>(i));
  return v;
}

/// A device buffer holding \p v.
DeviceTensor deviceVector(const std::vector<float> &v) {
  return up(Tensor::fromData({static_cast<int64_t>(v.size())}, v));
}

std::vector<float> hostVector(const DeviceTensor &t) {
  return t.download().values();
}

/// Failing checks inside rank threads must stop the rank (runRanks rethrows).
void check(bool ok, const std::string &what) {
  if (!ok)
    throw std::runtime_error("check failed: " + what);
}

const DType kLowPrecision[] = {DType::BF16, DType::F16};

/// Unit roundoff of \p dtype: the largest relative error of one rounding to
/// nearest (2^-8 for bf16, 2^-11 for f16, 2^-24 for f32).
float unitRoundoff(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return 1.0f / 256.0f;
  case DType::F16:
    return 1.0f / 2048.0f;
  case DType::F32:
  case DType::I64:
  case DType::I32:
    break;
  }
  return 1.0f / 16777216.0f;
}

/// The bits of element \p i of a 16-bit or f32 tensor.
uint32_t bitsAt(const Tensor &t, int64_t i) {
  if (t.dtype() == DType::F32) {
    uint32_t u;
    std::memcpy(&u, static_cast<const float *>(t.raw()) + i, sizeof(u));
    return u;
  }
  return static_cast<const uint16_t *>(t.raw())[i];
}

/// Same dtype, shape and bits (so NaN payloads count), naming the first
/// differing element.
void expectSameBits(const Tensor &actual, const Tensor &expected,
                    const std::string &what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  if (std::memcmp(actual.raw(), expected.raw(), actual.bytes()) == 0)
    return;
  for (int64_t i = 0; i < actual.numel(); ++i)
    if (bitsAt(actual, i) != bitsAt(expected, i))
      FAIL() << what << ": element " << i << " has bits 0x" << std::hex
             << bitsAt(actual, i) << ", expected 0x" << bitsAt(expected, i);
}

/// A tensor of \p dtype holding the 16-bit \p bits.
Tensor fromBits(DType dtype, const std::vector<uint16_t> &bits) {
  Tensor t({static_cast<int64_t>(bits.size())}, dtype);
  std::memcpy(t.raw(), bits.data(), bits.size() * sizeof(uint16_t));
  return t;
}

/// An f32 tensor holding the f32 \p bits.
Tensor fromBits(const std::vector<uint32_t> &bits) {
  Tensor t({static_cast<int64_t>(bits.size())});
  std::memcpy(t.raw(), bits.data(), bits.size() * sizeof(uint32_t));
  return t;
}

Tensor absOf(const Tensor &t) {
  std::vector<float> v = t.values();
  for (float &x : v)
    x = std::fabs(x);
  return Tensor::fromData(t.shape(), v);
}

/// Checks a 16-bit GEMM result \p actual against two f32 references:
///  - \p exact, the f32 result on the unrounded f32 inputs: the inputs'
///    rounding (at most u each, so 2u + u^2 per product), the one output
///    rounding (u |exact|) and f32 accumulation allow
///    |actual - exact| <= u (3 S + |exact|) + k 2^-23 S, where S is the same
///    GEMM on absolute values (\p absScale) and u the unit roundoff;
///  - \p rounded, the host f32 GEMM on the rounded inputs widened back
///    (exactly what the device sees), rounded to the dtype: the two differ
///    only in f32 summation order, so by at most one 16-bit ulp (2u |rounded|)
///    plus k 2^-23 S.
/// Accumulating in 16 bits would miss the second bound by a factor of ~k u.
void expectLowPrecisionGemm(const Tensor &actual, const Tensor &exact,
                            const Tensor &rounded, const Tensor &absScale,
                            int64_t k, const std::string &what) {
  DType dtype = rounded.dtype();
  ASSERT_EQ(actual.dtype(), dtype) << what;
  ASSERT_EQ(actual.shape(), exact.shape()) << what;
  float u = unitRoundoff(dtype);
  float sumSlack = static_cast<float>(k) * 2.0f * unitRoundoff(DType::F32);
  for (int64_t i = 0; i < actual.numel(); ++i) {
    float a = actual.at(i), e = exact.at(i), r = rounded.at(i);
    float s = absScale.at(i);
    ASSERT_LE(std::fabs(a - e), u * (3.0f * s + std::fabs(e)) + sumSlack * s)
        << what << ": element " << i << " vs the f32 result";
    ASSERT_LE(std::fabs(a - r), 2.0f * u * std::fabs(r) + sumSlack * s)
        << what << ": element " << i << " vs the rounded-input reference";
  }
}

/// Runs \p fn and expects std::invalid_argument whose message contains every
/// string of \p parts.
template <typename Fn>
void expectInvalid(Fn &&fn, const std::vector<std::string> &parts) {
  try {
    fn();
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    for (const std::string &part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "'" << e.what() << "' lacks '" << part << "'";
  }
}
} // namespace

//===----------------------------------------------------------------------===//
// DeviceTensor
//===----------------------------------------------------------------------===//

TEST_F(GpuTest, DeviceTensorRoundTrip) {
  Tensor x = rand({3, 4, 5});
  DeviceTensor d = up(x);
  EXPECT_EQ(d.shape(), x.shape());
  EXPECT_EQ(d.numel(), 60);
  EXPECT_EQ(d.download(), x);
  DeviceTensor c = d.clone();
  c.reshape({12, 5});
  EXPECT_EQ(c.download(), x.reshaped({12, 5}));
  EXPECT_THROW(c.reshape({7}), std::invalid_argument);
  DeviceTensor z({2, 3});
  EXPECT_EQ(z.download(), Tensor({2, 3}));
  DeviceTensor moved = std::move(d);
  EXPECT_EQ(d.numel(), 0);
  EXPECT_EQ(moved.download(), x);
  DeviceTensor s = up(Tensor::scalar(3.5f));
  EXPECT_EQ(s.download().data()[0], 3.5f);
  EXPECT_EQ(DeviceTensor().download().numel(), 0);
  EXPECT_THROW(s.copyFrom(x), std::invalid_argument);
}

TEST_F(GpuTest, DeviceTensorKeepsDType) {
  Tensor x = rand({3, 4, 5});
  for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor h = x.to(dtype);
    DeviceTensor d = up(h);
    EXPECT_EQ(d.dtype(), dtype);
    EXPECT_EQ(d.bytes(), 60 * dtypeSize(dtype));
    expectSameBits(d.download(), h, "round trip");
    DeviceTensor c = d.clone();
    EXPECT_EQ(c.dtype(), dtype);
    expectSameBits(c.download(), h, "clone");
    DeviceTensor zero({2, 3}, dtype);
    expectSameBits(zero.download(), Tensor({2, 3}, dtype), "zero-filled");
    EXPECT_EQ(DeviceTensor::empty({4}, dtype).dtype(), dtype);
    DeviceTensor moved = std::move(d);
    EXPECT_EQ(moved.dtype(), dtype);
    EXPECT_EQ(d.dtype(), DType::F32);
    EXPECT_NE(moved.raw(), nullptr);
    if (dtype != DType::F32) {
      EXPECT_THROW(moved.data(), std::invalid_argument);
      const DeviceTensor &constRef = moved;
      EXPECT_THROW(constRef.data(), std::invalid_argument);
      // copyFrom needs the dtype as well as the shape.
      expectInvalid([&] { moved.copyFrom(x); }, {"F32", dtypeName(dtype)});
    }
  }
  // Special values survive the trip bit for bit.
  Tensor special = fromBits(DType::BF16, {0x7fc1, 0xff80, 0x0001, 0x8000});
  expectSameBits(up(special).download(), special, "bf16 specials");
}

TEST_F(GpuTest, DeviceTensorHoldsIntegers) {
  constexpr int64_t big = (int64_t(1) << 40) + 1;
  Tensor ids = Tensor::fromInts({2, 3}, {0, -1, big, -big, 7, 1 << 24});
  DeviceTensor d = up(ids);
  EXPECT_EQ(d.dtype(), DType::I64);
  EXPECT_EQ(d.bytes(), 48u);
  EXPECT_EQ(d.download(), ids);
  EXPECT_EQ(d.clone().download(), ids);
  EXPECT_EQ(gpu::sliceDim(d, 1, 1, 2).download(), sliceDim(ids, 1, 1, 2));
  EXPECT_EQ(gpu::reshape(d, {6}).download(), ids.reshaped({6}));
  Tensor i32 = Tensor::fromInts({3}, {-5, 2147483647, 3}, DType::I32);
  EXPECT_EQ(up(i32).download(), i32);
  EXPECT_EQ(DeviceTensor({4}, DType::I64).download(), Tensor({4}, DType::I64));
  // Integers are not converted on the device, nor computed with.
  expectInvalid([&] { gpu::convert(d, DType::F32); },
                {"gpu::convert", "I64 to F32"});
  expectInvalid([&] { gpu::convert(up(ids.to(DType::F32)), DType::I64); },
                {"F32 to I64"});
  expectInvalid([&] { gpu::add(d, d); }, {"add", "I64"});
  expectInvalid([&] { gpu::relu(d); }, {"relu", "I64"});
  expectInvalid([&] { gpu::matmul(d, d); }, {"matmul", "I64"});
}

TEST_F(GpuTest, ConvertMatchesHostOnAllBitPatterns) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    all[i] = static_cast<uint16_t>(i);
  for (DType dtype : kLowPrecision) {
    SCOPED_TRACE(dtypeName(dtype));
    DType other = dtype == DType::BF16 ? DType::F16 : DType::BF16;
    Tensor h = fromBits(dtype, all);
    DeviceTensor d = up(h);
    // Widening, narrowing back (NaNs get quieted), and across 16-bit types.
    DeviceTensor wide = gpu::convert(d, DType::F32);
    expectSameBits(wide.download(), h.to(DType::F32), "to F32");
    expectSameBits(gpu::convert(wide, dtype).download(),
                   h.to(DType::F32).to(dtype), "back from F32");
    expectSameBits(gpu::convert(d, other).download(), h.to(other),
                   std::string("to ") + dtypeName(other));
    expectSameBits(gpu::convert(d, dtype).download(), h, "to itself");

    // Every rounding case between two neighbouring finite 16-bit values of
    // one sign (normal, subnormal and across binades): the midpoint (a tie,
    // to even) and the f32 values just below and above it; plus the
    // overflow threshold to infinity.
    Tensor widened = h.to(DType::F32);
    std::vector<uint32_t> near;
    auto push = [&](float v) {
      for (float x : {v, std::nextafter(v, 0.0f), std::nextafter(v, 2 * v)}) {
        uint32_t u;
        std::memcpy(&u, &x, sizeof(u));
        near.push_back(u);
      }
    };
    for (uint32_t i = 0; i + 1 < 65536; ++i) {
      float lo = widened.at(i), hi = widened.at(i + 1);
      if ((i & 0x8000u) != ((i + 1) & 0x8000u) || !std::isfinite(lo) ||
          !std::isfinite(hi))
        continue;
      push(lo + (hi - lo) / 2); // exact: 16-bit values have few digits
    }
    float maxFinite =
        dtype == DType::BF16 ? bf16ToFloat(0x7f7f) : f16ToFloat(0x7bff);
    float halfUlpAboveMax =
        dtype == DType::BF16 ? std::ldexp(1.0f, 119) : 16.0f;
    push(maxFinite + halfUlpAboveMax);
    push(-(maxFinite + halfUlpAboveMax));
    Tensor nearT = fromBits(near);
    expectSameBits(gpu::convert(up(nearT), dtype).download(), nearT.to(dtype),
                   "rounding cases");
  }
}

TEST_F(GpuTest, ConvertMatchesHostOnRandomFloats) {
  std::mt19937 gen(7);
  // Random bit patterns (every class: NaNs with payloads, infinities,
  // subnormals) and random values spread over the f16 range, where random
  // bits would mostly overflow or underflow.
  std::vector<uint32_t> bits(1 << 20);
  for (uint32_t &b : bits)
    b = gen();
  std::vector<float> inRange(1 << 20);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-27, 16);
  for (float &v : inRange)
    v = std::ldexp(mantissa(gen), exponent(gen)) * (gen() & 1 ? -1.0f : 1.0f);
  Tensor randomBits = fromBits(bits);
  Tensor randomValues = Tensor::fromData({1 << 20}, inRange);
  for (DType dtype : kLowPrecision) {
    SCOPED_TRACE(dtypeName(dtype));
    for (const Tensor *t : {&randomBits, &randomValues}) {
      DeviceTensor narrow = gpu::convert(up(*t), dtype);
      EXPECT_EQ(narrow.dtype(), dtype);
      expectSameBits(narrow.download(), t->to(dtype), "f32 to 16 bits");
    }
  }
}

//===----------------------------------------------------------------------===//
// Kernels against the CPU kernels
//===----------------------------------------------------------------------===//

TEST_F(GpuTest, LinearMatchesCpu) {
  Tensor x = rand({2, 3, 40}, "x"), w = rand({24, 40}, "w"),
         b = rand({24}, "b");
  expectClose(gpu::linear(up(x), up(w), nullptr).download(),
              linear(x, w, nullptr), 1e-5f);
  DeviceTensor db = up(b);
  expectClose(gpu::linear(up(x), up(w), &db).download(), linear(x, w, &b),
              1e-5f);
  // An empty inner dimension gives the bias.
  Tensor e({3, 0}), we({2, 0});
  Tensor b2 = Tensor::fromData({2}, {1, 2});
  DeviceTensor db2 = up(b2);
  EXPECT_EQ(gpu::linear(up(e), up(we), &db2).download(), linear(e, we, &b2));
  EXPECT_THROW(gpu::linear(up(x), up(rand({4, 6})), nullptr),
               std::invalid_argument);
}

TEST_F(GpuTest, MatmulMatchesCpu) {
  Tensor a = rand({2, 3, 17}, "a"), b = rand({2, 17, 5}, "b");
  expectClose(gpu::matmul(up(a), up(b)).download(), matmul(a, b));
  Tensor b2 = rand({17, 5}, "b2");
  expectClose(gpu::matmul(up(a), up(b2)).download(), matmul(a, b2));
  Tensor a1 = rand({1, 3, 17}, "a1");
  expectClose(gpu::matmul(up(a1), up(b)).download(), matmul(a1, b));
  Tensor a2 = rand({3, 17}, "a2");
  expectClose(gpu::matmul(up(a2), up(b)).download(), matmul(a2, b));
  // General broadcast of the batch dimensions: [2, 1] x [1, 3].
  Tensor a4 = rand({2, 1, 3, 17}, "a4"), b4 = rand({1, 3, 17, 5}, "b4");
  expectClose(gpu::matmul(up(a4), up(b4)).download(), matmul(a4, b4));
  EXPECT_THROW(gpu::matmul(up(a), up(rand({2, 5, 5}))), std::invalid_argument);
}

TEST_F(GpuTest, LowPrecisionLinearMatchesF32) {
  Tensor x = rand({2, 3, 96}, "x"), w = rand({24, 96}, "w"),
         b = rand({24}, "b");
  Tensor exact = linear(x, w, &b), exactNoBias = linear(x, w, nullptr);
  Tensor absB = absOf(b);
  Tensor absScale = linear(absOf(x), absOf(w), &absB);
  Tensor absScaleNoBias = linear(absOf(x), absOf(w), nullptr);
  for (DType dtype : kLowPrecision) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor xl = x.to(dtype), wl = w.to(dtype), bl = b.to(dtype);
    Tensor bw = bl.to(DType::F32);
    Tensor rounded =
        linear(xl.to(DType::F32), wl.to(DType::F32), &bw).to(dtype);
    Tensor roundedNoBias =
        linear(xl.to(DType::F32), wl.to(DType::F32), nullptr).to(dtype);
    DeviceTensor dx = up(xl), dw = up(wl), db = up(bl);
    expectLowPrecisionGemm(gpu::linear(dx, dw, &db).download(), exact, rounded,
                           absScale, 96, "linear with bias");
    expectLowPrecisionGemm(gpu::linear(dx, dw, nullptr).download(), exactNoBias,
                           roundedNoBias, absScaleNoBias, 96, "linear");
    // An empty inner dimension gives the bias, bit for bit.
    Tensor b2 = Tensor::fromData({2}, {1.1f, -2.3f}).to(dtype);
    DeviceTensor db2 = up(b2);
    Tensor fromEmpty =
        gpu::linear(up(Tensor({3, 0}, dtype)), up(Tensor({2, 0}, dtype)), &db2)
            .download();
    Tensor expectedBias = concatDim(
        {b2.reshaped({1, 2}), b2.reshaped({1, 2}), b2.reshaped({1, 2})}, 0);
    expectSameBits(fromEmpty, expectedBias, "empty inner dimension");
  }
}

TEST_F(GpuTest, LowPrecisionMatmulMatchesF32) {
  struct Case {
    std::vector<int64_t> a, b;
  };
  // Equal batches, shared rhs, one lhs batch, 2-d lhs, general broadcast.
  std::vector<Case> cases = {{{2, 3, 70}, {2, 70, 5}},
                             {{2, 3, 70}, {70, 5}},
                             {{1, 3, 70}, {2, 70, 5}},
                             {{3, 70}, {2, 70, 5}},
                             {{2, 1, 3, 70}, {1, 3, 70, 5}}};
  for (const Case &c : cases) {
    Tensor a = rand(c.a, "a"), b = rand(c.b, "b");
    Tensor exact = matmul(a, b), absScale = matmul(absOf(a), absOf(b));
    for (DType dtype : kLowPrecision) {
      std::string what = std::string(dtypeName(dtype)) + " matmul " +
                         a.shapeString() + " @ " + b.shapeString();
      Tensor al = a.to(dtype), bl = b.to(dtype);
      Tensor rounded = matmul(al.to(DType::F32), bl.to(DType::F32)).to(dtype);
      expectLowPrecisionGemm(gpu::matmul(up(al), up(bl)).download(), exact,
                             rounded, absScale, 70, what);
    }
  }
  Tensor zeros = gpu::matmul(up(Tensor({2, 0}, DType::BF16)),
                             up(Tensor({0, 3}, DType::BF16)))
                     .download();
  expectSameBits(zeros, Tensor({2, 3}, DType::BF16), "empty inner dimension");
}

TEST_F(GpuTest, LowPrecisionElementwiseMatchesHost) {
  Tensor a = rand({2, 3, 4}, "a", 3.0f), row = rand({4}, "row"),
         same = rand({2, 3, 4}, "same");
  Tensor pos = add(Tensor::full({3, 1}, 2.0f), rand({3, 1}, "pos"));
  for (DType dtype : kLowPrecision) {
    SCOPED_TRACE(dtypeName(dtype));
    // One f32 operation on the widened operands, rounded once: exactly the
    // host kernel between to(F32) and to(dtype).
    auto host = [&](Tensor (*fn)(const Tensor &, const Tensor &),
                    const Tensor &x, const Tensor &y) {
      return fn(x.to(dtype).to(DType::F32), y.to(dtype).to(DType::F32))
          .to(dtype);
    };
    DeviceTensor da = up(a.to(dtype));
    for (const Tensor *other : {&row, &same, &pos}) {
      DeviceTensor dother = up(other->to(dtype));
      expectSameBits(gpu::add(da, dother).download(), host(add, a, *other),
                     "add");
      expectSameBits(gpu::sub(dother, da).download(), host(sub, *other, a),
                     "sub");
      expectSameBits(gpu::mul(da, dother).download(), host(mul, a, *other),
                     "mul");
      expectSameBits(gpu::div(da, dother).download(), host(div, a, *other),
                     "div");
    }
    Tensor wide = a.to(dtype).to(DType::F32);
    expectSameBits(gpu::relu(da).download(), relu(wide).to(dtype), "relu");
    expectSameBits(gpu::neg(da).download(), neg(wide).to(dtype), "neg");
    expectSameBits(gpu::scale(da, 0.3f).download(), scale(wide, 0.3f).to(dtype),
                   "scale");
    // Transcendental functions differ from the host's in the last f32 bits,
    // which can move the rounded result by one 16-bit ulp.
    float ulp = 2.0f * unitRoundoff(dtype);
    expectClose(gpu::gelu(da).download().to(DType::F32),
                gelu(wide).to(dtype).to(DType::F32), ulp);
    expectClose(gpu::silu(da).download().to(DType::F32),
                silu(wide).to(dtype).to(DType::F32), ulp);
    expectClose(gpu::exp(da).download().to(DType::F32),
                mlir::tp::runtime::exp(wide).to(dtype).to(DType::F32), ulp);
  }
}

TEST_F(GpuTest, MixedAndUnsupportedDTypesAreRejected) {
  Tensor x = rand({2, 8}, "x"), w = rand({4, 8}, "w"), b = rand({4}, "b");
  DeviceTensor xb = up(x.to(DType::BF16)), wh = up(w.to(DType::F16)),
               wb = up(w.to(DType::BF16)), bf = up(b), xf = up(x);
  expectInvalid([&] { gpu::linear(xb, wh, nullptr); },
                {"linear", "BF16", "F16"});
  expectInvalid([&] { gpu::linear(xb, wb, &bf); }, {"linear", "BF16", "F32"});
  Tensor sq = rand({8, 8}, "sq");
  expectInvalid([&] { gpu::matmul(xf, up(sq.to(DType::BF16))); },
                {"matmul", "F32", "BF16"});
  expectInvalid([&] { gpu::add(xb, xf); }, {"add", "BF16", "F32"});
  expectInvalid([&] { gpu::mul(xf, up(x.to(DType::F16))); },
                {"mul", "F32", "F16"});
  // Kernels that only exist in f32 refuse 16-bit operands.
  expectInvalid([&] { gpu::softmax(xb, -1); }, {"softmax", "BF16"});
  DeviceTensor w8 = up(rand({8}, "w8").to(DType::F16));
  expectInvalid([&] { gpu::layerNorm(xf, &w8, nullptr, 1e-5f); },
                {"layerNorm", "F16"});
  expectInvalid([&] { gpu::rmsNorm(xb, nullptr, 1e-6f); }, {"rmsNorm", "BF16"});
  expectInvalid([&] { gpu::embedding(xf, wb); }, {"embedding", "BF16"});
  DeviceTensor q = up(rand({1, 2, 2, 8}, "q").to(DType::BF16));
  expectInvalid([&] { gpu::rotary(q, 0, 10000.0f); }, {"rotary", "BF16"});
  expectInvalid([&] { gpu::attention(q, q, q, true); }, {"attention", "BF16"});
}

TEST_F(GpuTest, BinaryOpsBroadcastLikeCpu) {
  Tensor a = rand({2, 3, 4}, "a"), row = rand({4}, "row"),
         col = rand({2, 1, 1}, "col"), same = rand({2, 3, 4}, "same");
  Tensor pos = add(Tensor::full({3, 1}, 2.0f), rand({3, 1}, "pos"));
  for (const Tensor *other : {&row, &col, &same, &pos}) {
    EXPECT_EQ(gpu::add(up(a), up(*other)).download(), add(a, *other));
    EXPECT_EQ(gpu::sub(up(*other), up(a)).download(), sub(*other, a));
    EXPECT_EQ(gpu::mul(up(a), up(*other)).download(), mul(a, *other));
    EXPECT_EQ(gpu::div(up(a), up(*other)).download(), div(a, *other));
  }
  Tensor s = Tensor::scalar(2.0f);
  EXPECT_EQ(gpu::mul(up(a), up(s)).download(), mul(a, s));
  EXPECT_THROW(gpu::add(up(a), up(Tensor({5}))), std::invalid_argument);
}

TEST_F(GpuTest, UnaryOpsMatchCpu) {
  Tensor x = rand({5, 77}, "x", 6.0f);
  DeviceTensor d = up(x);
  EXPECT_EQ(gpu::relu(d).download(), relu(x));
  EXPECT_EQ(gpu::neg(d).download(), neg(x));
  EXPECT_EQ(gpu::scale(d, 0.25f).download(), scale(x, 0.25f));
  expectClose(gpu::gelu(d).download(), gelu(x), 1e-6f);
  expectClose(gpu::geluTanh(d).download(), geluTanh(x), 1e-6f);
  expectClose(gpu::silu(d).download(), silu(x), 1e-6f);
  expectClose(gpu::exp(d).download(), mlir::tp::runtime::exp(x), 1e-6f);
}

TEST_F(GpuTest, SoftmaxMatchesCpu) {
  Tensor x = rand({3, 5, 7}, "x", 5.0f);
  for (int64_t dim : {0, 1, 2, -1})
    expectClose(gpu::softmax(up(x), dim).download(), softmax(x, dim), 1e-6f);
  Tensor wide = rand({4, 1000}, "wide", 10.0f);
  expectClose(gpu::softmax(up(wide), -1).download(), softmax(wide, -1), 1e-6f);
  EXPECT_THROW(gpu::softmax(up(x), 3), std::out_of_range);
}

TEST_F(GpuTest, NormsMatchCpu) {
  Tensor x = add(rand({6, 300}, "x", 3.0f), Tensor::scalar(1.5f));
  Tensor w = rand({300}, "w"), b = rand({300}, "b");
  DeviceTensor dx = up(x), dw = up(w), db = up(b);
  expectClose(gpu::layerNorm(dx, &dw, &db, 1e-5f).download(),
              layerNorm(x, &w, &b, 1e-5f), 1e-5f);
  expectClose(gpu::layerNorm(dx, nullptr, nullptr, 1e-5f).download(),
              layerNorm(x, nullptr, nullptr, 1e-5f), 1e-5f);
  expectClose(gpu::rmsNorm(dx, &dw, 1e-6f).download(), rmsNorm(x, &w, 1e-6f),
              1e-5f);
  expectClose(gpu::rmsNorm(dx, nullptr, 1e-6f).download(),
              rmsNorm(x, nullptr, 1e-6f), 1e-5f);
  Tensor small = rand({2, 3, 7}, "small");
  expectClose(gpu::rmsNorm(up(small), nullptr, 1e-6f).download(),
              rmsNorm(small, nullptr, 1e-6f), 1e-5f);
  DeviceTensor bad = up(Tensor({299}));
  EXPECT_THROW(gpu::layerNorm(dx, &bad, nullptr, 1e-5f), std::invalid_argument);
}

TEST_F(GpuTest, EmbeddingMatchesCpu) {
  Tensor weight = rand({10, 6}, "weight");
  Tensor ids = initTokens(3, "ids", {2, 5}, 10);
  EXPECT_EQ(gpu::embedding(up(ids), up(weight)).download(),
            embedding(ids, weight));
  // The shard holding rows [4, 7): other ids give zero rows.
  Tensor shard = sliceDim(weight, 0, 4, 3);
  EXPECT_EQ(gpu::embeddingMasked(up(ids), up(shard), 4).download(),
            embeddingMasked(ids, shard, 4));
  // Bad ids throw with the CPU kernel's message.
  Tensor outOfRange = Tensor::fromData({3}, {1, 12, 2});
  try {
    gpu::embedding(up(outOfRange), up(weight));
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "embedding: id 12 out of range [0, 10)");
  }
  EXPECT_THROW(gpu::embedding(up(Tensor::fromData({1}, {1.5f})), up(weight)),
               std::invalid_argument);
  EXPECT_THROW(
      gpu::embeddingMasked(up(Tensor::fromData({1}, {-1})), up(shard), 4),
      std::invalid_argument);
}

TEST_F(GpuTest, EmbeddingTakesIntegerIdsLikeCpu) {
  Tensor weight = rand({10, 6}, "weight");
  Tensor shard = sliceDim(weight, 0, 4, 3);
  Tensor ids = Tensor::fromInts({2, 4}, {0, 9, 4, 6, 7, 3, 5, 1});
  for (DType dtype : {DType::I64, DType::I32, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor typed = ids.to(dtype);
    EXPECT_EQ(gpu::embedding(up(typed), up(weight)).download(),
              embedding(typed, weight));
    EXPECT_EQ(gpu::embeddingMasked(up(typed), up(shard), 4).download(),
              embeddingMasked(typed, shard, 4));
    // The first bad id, with the CPU kernel's message.
    Tensor bad = Tensor::fromInts({4}, {1, 2, 12, -3}).to(dtype);
    expectInvalid([&] { gpu::embedding(up(bad), up(weight)); },
                  {"embedding: id 12 out of range [0, 10)"});
    expectInvalid([&] { gpu::embeddingMasked(up(bad), up(shard), 4); },
                  {"embeddingMasked: id -3 out of range [4, 7)"});
  }
  // Beyond 2^24, where f32 ids would round: exact on the device too.
  constexpr int64_t big = (int64_t(1) << 40) + 1;
  expectInvalid(
      [&] { gpu::embedding(up(Tensor::fromInts({1}, {big})), up(weight)); },
      {"id 1099511627777 out of range"});
  Tensor far = Tensor::fromInts({2}, {big, big + 2});
  Tensor farShard = sliceDim(weight, 0, 0, 2);
  EXPECT_EQ(gpu::embeddingMasked(up(far), up(farShard), big).download(),
            embeddingMasked(far, farShard, big));
  expectInvalid([&] { gpu::embedding(up(ids.to(DType::BF16)), up(weight)); },
                {"embedding: ids are a BF16 tensor"});
}

TEST_F(GpuTest, RotaryMatchesCpu) {
  Tensor x = rand({2, 9, 3, 16}, "x");
  for (int64_t offset : {0, 1000})
    expectClose(gpu::rotary(up(x), offset, 10000.0f).download(),
                rotary(x, offset, 10000.0f), 1e-5f);
  EXPECT_THROW(gpu::rotary(up(rand({2, 9, 3, 15})), 0, 10000.0f),
               std::invalid_argument);
}

TEST_F(GpuTest, AttentionMatchesCpu) {
  // Grouped-query: 4 query heads over 2 kv heads.
  Tensor q = rand({2, 7, 4, 40}, "q"), k = rand({2, 7, 2, 40}, "k"),
         v = rand({2, 7, 2, 24}, "v");
  for (bool causal : {true, false})
    expectClose(gpu::attention(up(q), up(k), up(v), causal).download(),
                attention(q, k, v, causal), 1e-5f);
  // Cross attention with more keys than queries.
  Tensor k2 = rand({2, 11, 2, 40}, "k2"), v2 = rand({2, 11, 2, 24}, "v2");
  expectClose(gpu::attention(up(q), up(k2), up(v2), false).download(),
              attention(q, k2, v2, false), 1e-5f);
  EXPECT_THROW(gpu::attention(up(q), up(k2), up(v2), true),
               std::invalid_argument);
  Tensor k0({2, 0, 2, 40}), v0({2, 0, 2, 24});
  EXPECT_EQ(gpu::attention(up(q), up(k0), up(v0), false).download(),
            attention(q, k0, v0, false));
}

/// The same values as \p expected: NaN where it is NaN, the same infinity,
/// within \p tol elsewhere.
void expectSameNonFinite(const Tensor &actual, const Tensor &expected,
                         const char *what, float tol = 1e-5f) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    float e = expected.data()[i], a = actual.data()[i];
    if (std::isnan(e))
      EXPECT_TRUE(std::isnan(a)) << what << " element " << i << ": " << a;
    else if (std::isinf(e))
      EXPECT_EQ(a, e) << what << " element " << i;
    else
      EXPECT_NEAR(a, e, tol * std::max(1.0f, std::fabs(e)))
          << what << " element " << i;
  }
}

TEST_F(GpuTest, NonFiniteMatchesCpu) {
  // NaN and infinities go where the CPU kernels (PyTorch's semantics) put
  // them: relu(NaN) = NaN, a softmax or norm row with a NaN or inf is NaN.
  const float nan = NAN, inf = INFINITY;
  Tensor x = Tensor::fromData(
      {4, 3}, {1, nan, 2, 1, inf, 2, -inf, -inf, -inf, nan, -1, 0});
  DeviceTensor d = up(x);
  expectSameNonFinite(gpu::relu(d).download(), relu(x), "relu");
  expectSameNonFinite(gpu::gelu(d).download(), gelu(x), "gelu");
  expectSameNonFinite(gpu::silu(d).download(), silu(x), "silu");
  expectSameNonFinite(gpu::softmax(d, -1).download(), softmax(x, -1),
                      "softmax");
  expectSameNonFinite(gpu::softmax(d, 0).download(), softmax(x, 0),
                      "softmax dim 0");
  expectSameNonFinite(gpu::layerNorm(d, nullptr, nullptr, 1e-5f).download(),
                      layerNorm(x, nullptr, nullptr, 1e-5f), "layerNorm");
  expectSameNonFinite(gpu::rmsNorm(d, nullptr, 1e-6f).download(),
                      rmsNorm(x, nullptr, 1e-6f), "rmsNorm");
  // A NaN key spoils the queries that see it.
  Tensor q = rand({1, 5, 2, 8}, "q"), v = rand({1, 5, 2, 8}, "v");
  Tensor k = rand({1, 5, 2, 8}, "k");
  k.data()[2 * 16 + 3] = nan; // position 2, head 0
  for (bool causal : {true, false})
    expectSameNonFinite(gpu::attention(up(q), up(k), up(v), causal).download(),
                        attention(q, k, v, causal), "attention");
  // Max and min across device ranks keep a NaN from any rank.
  gpu::runDeviceRanks(3, [&](Communicator &comm) {
    int r = comm.rank();
    for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
      std::vector<float> in(4, static_cast<float>(r));
      in[r] = nan;
      DeviceTensor red({4});
      comm.allReduce(deviceVector(in).data(), red.data(), 4, op);
      std::vector<float> got = hostVector(red);
      for (int p = 0; p < 3; ++p)
        check(std::isnan(got[p]),
              std::string("all_reduce ") + reduceOpName(op) + " keeps NaN");
      check(got[3] == (op == ReduceOp::Max ? 2.0f : 0.0f),
            std::string("all_reduce ") + reduceOpName(op));
    }
  });
}

//===----------------------------------------------------------------------===//
// nccl backend
//===----------------------------------------------------------------------===//

TEST_F(GpuTest, LayoutHelpersMatchHost) {
  for (DType dtype : {DType::F32, DType::F16}) {
    Tensor x = rand({3, 5, 4}).to(dtype);
    DeviceTensor d = up(x);
    for (int64_t dim : {0, 1, 2, -1}) {
      EXPECT_EQ(gpu::sliceDim(d, dim, 1, 2).download(), sliceDim(x, dim, 1, 2));
      EXPECT_EQ(gpu::sliceDim(d, dim, 0, 0).download(), sliceDim(x, dim, 0, 0));
      for (int64_t i = 0; i < 4; ++i)
        EXPECT_EQ(gpu::chunkDim(d, dim, 4, i).download(),
                  chunkDim(x, dim, 4, i));
      std::vector<DeviceTensor> parts;
      parts.push_back(d.clone());
      parts.push_back(gpu::sliceDim(d, dim, 1, 1));
      EXPECT_EQ(gpu::concatDim(parts, dim).download(),
                concatDim({x, sliceDim(x, dim, 1, 1)}, dim));
    }
    EXPECT_EQ(gpu::reshape(d, {5, 12}).download(), x.reshaped({5, 12}));
    EXPECT_THROW(gpu::sliceDim(d, 1, 4, 2), std::invalid_argument);
    EXPECT_THROW(gpu::reshape(d, {7}), std::invalid_argument);
  }
  std::vector<DeviceTensor> mixed;
  mixed.push_back(up(rand({2})));
  mixed.push_back(up(rand({2}).to(DType::BF16)));
  EXPECT_THROW(gpu::concatDim(mixed, 0), std::invalid_argument);
}

TEST_F(GpuTest, NCCLOneRankCollectives) {
  auto comm = NCCLCommunicator::create(1, 0, ncclNewId());
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  std::vector<float> data = rankData(0, 6);
  DeviceTensor in = deviceVector(data), out({6});
  comm->allGather(in.data(), 6, out.data());
  EXPECT_EQ(hostVector(out), data);
  for (ReduceOp op :
       {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min}) {
    DeviceTensor r({6});
    comm->allReduce(in.data(), r.data(), 6, op);
    EXPECT_EQ(hostVector(r), data) << reduceOpName(op);
  }
  comm->allReduce(in.data(), in.data(), 6, ReduceOp::Sum); // In place.
  EXPECT_EQ(hostVector(in), data);
  DeviceTensor rs({6});
  comm->reduceScatter(in.data(), rs.data(), 6, ReduceOp::Sum);
  EXPECT_EQ(hostVector(rs), data);
  DeviceTensor a2a({6});
  comm->allToAll(in.data(), a2a.data(), 6);
  EXPECT_EQ(hostVector(a2a), data);
  comm->allToAll(a2a.data(), a2a.data(), 6); // Staged through scratch.
  EXPECT_EQ(hostVector(a2a), data);
  comm->broadcast(in.data(), 6, 0);
  EXPECT_EQ(hostVector(in), data);
  comm->barrier();
  // Kernels and collectives interleave on the default stream.
  DeviceTensor doubled = gpu::scale(in, 2.0f);
  comm->allReduce(doubled.data(), doubled.data(), 6, ReduceOp::Sum);
  EXPECT_EQ(hostVector(doubled)[5], 10.0f);

  EXPECT_EQ(comm->stats().counts.at("all_reduce"), 6);
  EXPECT_EQ(comm->stats().counts.at("barrier"), 1);
  std::vector<float> host(6);
  EXPECT_THROW(comm->allReduce(host.data(), host.data(), 6, ReduceOp::Sum),
               std::invalid_argument);
  EXPECT_THROW(comm->broadcast(in.data(), 6, 1), std::invalid_argument);

  // Integers: NCCL's int64 and int32 types.
  auto upload = [](const Tensor &t) { return up(t); };
  auto download = [](const DeviceTensor &t) { return t.download(); };
  EXPECT_NO_THROW(
      test::checkIntegerCollectives(*comm, DType::I64, upload, download));
  EXPECT_NO_THROW(
      test::checkIntegerCollectives(*comm, DType::I32, upload, download));

  std::unique_ptr<Communicator> sub = comm->split(5, 0);
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->size(), 1);
  DeviceTensor subOut({6});
  sub->allReduce(in.data(), subOut.data(), 6, ReduceOp::Max);
  EXPECT_EQ(hostVector(subOut), data);
  EXPECT_EQ(comm->split(-1, 0), nullptr);
  EXPECT_FALSE(comm->aborted());
}

TEST_F(GpuTest, NCCLIdFileRendezvous) {
  std::string path =
      ::testing::TempDir() + "tp-nccl-id-" + std::to_string(::getpid());
  std::remove(path.c_str());
  {
    auto comm = NCCLCommunicator::fromIdFile(path, 1, 0);
    DeviceTensor x = deviceVector({1, 2, 3});
    comm->allReduce(x.data(), x.data(), 3, ReduceOp::Sum);
    EXPECT_EQ(hostVector(x), (std::vector<float>{1, 2, 3}));
  }
  // Rank 0 removed the file once every rank had joined.
  EXPECT_FALSE(std::ifstream(path).good());
  // A stale file is refused instead of hanging the other ranks.
  std::ofstream(path) << "stale";
  EXPECT_THROW(ncclIdFromFile(path, 0), CommError);
  std::remove(path.c_str());
  // A rank other than 0 gives up after its timeout.
  EXPECT_THROW(ncclIdFromFile(path, 1, std::chrono::milliseconds(50)),
               CommError);
}

TEST_F(GpuTest, NCCLInitTimesOutWhenARankIsMissing) {
  NCCLOptions options;
  options.timeout = std::chrono::seconds(3);
  options.pollInterval = std::chrono::milliseconds(20);
  auto start = std::chrono::steady_clock::now();
  try {
    NCCLCommunicator::create(2, 0, ncclNewId(), options);
    FAIL() << "expected a timeout";
  } catch (const CommError &e) {
    EXPECT_NE(std::string(e.what()).find("timeout"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST_F(GpuTest, NCCLTwoRanksInThreads) {
  // Two GPUs: a real two-rank NCCL job. One GPU: NCCL (before 2.30) rejects
  // two ranks on one device; the backend must report it, not hang.
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  NCCLId id = ncclNewId();
  std::string errors[2];
  std::vector<float> results[2];
  auto body = [&](int r) {
    try {
      NCCLOptions options;
      options.device = devices >= 2 ? r : 0;
      options.timeout = std::chrono::seconds(30);
      auto comm = NCCLCommunicator::create(2, r, id, options);
      DeviceTensor x = deviceVector(rankData(r, 4));
      comm->allReduce(x.data(), x.data(), 4, ReduceOp::Sum);
      DeviceTensor g({8});
      comm->allGather(x.data(), 4, g.data());
      results[r] = hostVector(g);
    } catch (const std::exception &e) {
      errors[r] = e.what();
    }
  };
  std::thread t0(body, 0), t1(body, 1);
  t0.join();
  t1.join();
  if (devices >= 2) {
    EXPECT_EQ(errors[0], "");
    EXPECT_EQ(errors[1], "");
    std::vector<float> sum = {100, 102, 104, 106};
    std::vector<float> expected = sum;
    expected.insert(expected.end(), sum.begin(), sum.end());
    EXPECT_EQ(results[0], expected);
    EXPECT_EQ(results[1], expected);
  } else {
    EXPECT_NE(errors[0] + errors[1], "") << "NCCL accepted two ranks on one "
                                            "GPU (NCCL >= 2.30?)";
  }
}

//===----------------------------------------------------------------------===//
// Threads backend over device memory (several ranks on one GPU)
//===----------------------------------------------------------------------===//

class DeviceRanksTest : public GpuTest,
                        public ::testing::WithParamInterface<int> {};

TEST_P(DeviceRanksTest, Collectives) {
  int n = GetParam();
  gpu::runDeviceRanks(n, [&](Communicator &comm) {
    int r = comm.rank();
    const size_t c = 5;
    DeviceTensor in = deviceVector(rankData(r, c));
    DeviceTensor out({static_cast<int64_t>(n * c)});
    comm.allGather(in.data(), c, out.data());
    std::vector<float> all;
    for (int p = 0; p < n; ++p) {
      std::vector<float> v = rankData(p, c);
      all.insert(all.end(), v.begin(), v.end());
    }
    check(hostVector(out) == all, "all_gather");
    // In place: the input is this rank's block of the output.
    DeviceTensor buf = deviceVector(std::vector<float>(n * c, -1.0f));
    // On the thread's default stream, which the collective synchronizes.
    check(cudaMemcpyAsync(buf.data() + r * c, in.data(), c * sizeof(float),
                          cudaMemcpyDeviceToDevice,
                          gpu::defaultStream()) == cudaSuccess,
          "cudaMemcpyAsync");
    comm.allGather(buf.data() + r * c, c, buf.data());
    check(hostVector(buf) == all, "in-place all_gather");

    for (ReduceOp op :
         {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min}) {
      std::vector<float> expected(c);
      for (size_t i = 0; i < c; ++i) {
        float acc = rankData(0, c)[i];
        for (int p = 1; p < n; ++p) {
          float v = rankData(p, c)[i];
          acc = op == ReduceOp::Max   ? std::max(acc, v)
                : op == ReduceOp::Min ? std::min(acc, v)
                                      : acc + v;
        }
        expected[i] = op == ReduceOp::Avg ? acc / n : acc;
      }
      DeviceTensor red({static_cast<int64_t>(c)});
      comm.allReduce(in.data(), red.data(), c, op);
      check(hostVector(red) == expected,
            std::string("all_reduce ") + reduceOpName(op));
      DeviceTensor inPlace = in.clone();
      comm.allReduce(inPlace.data(), inPlace.data(), c, op);
      check(hostVector(inPlace) == expected, "in-place all_reduce");
    }

    // reduce_scatter over n blocks of c: rank r gets the sum of blocks r.
    DeviceTensor blocks = deviceVector(rankData(r, n * c));
    DeviceTensor mine({static_cast<int64_t>(c)});
    comm.reduceScatter(blocks.data(), mine.data(), c, ReduceOp::Sum);
    std::vector<float> rs(c, 0.0f);
    for (size_t i = 0; i < c; ++i)
      for (int p = 0; p < n; ++p)
        rs[i] += rankData(p, n * c)[r * c + i];
    check(hostVector(mine) == rs, "reduce_scatter");

    // all_to_all: block j of rank i's input becomes block i of rank j's.
    DeviceTensor a2a({static_cast<int64_t>(n * c)});
    comm.allToAll(blocks.data(), a2a.data(), c);
    std::vector<float> got = hostVector(a2a);
    for (int p = 0; p < n; ++p)
      for (size_t i = 0; i < c; ++i)
        check(got[p * c + i] == rankData(p, n * c)[r * c + i], "all_to_all");

    DeviceTensor bc = deviceVector(rankData(r, c));
    comm.broadcast(bc.data(), c, n - 1);
    check(hostVector(bc) == rankData(n - 1, c), "broadcast");
    comm.barrier();

    // Rows and columns of a 2 x (n/2) mesh for even n.
    std::unique_ptr<Communicator> sub = comm.split(r % 2, r);
    DeviceTensor s = deviceVector({static_cast<float>(r)});
    sub->allReduce(s.data(), s.data(), 1, ReduceOp::Sum);
    float expectedSum = 0;
    for (int p = r % 2; p < n; p += 2)
      expectedSum += p;
    check(hostVector(s)[0] == expectedSum, "split all_reduce");
  });
}

TEST_P(DeviceRanksTest, TensorParallelMlpMatchesOneRank) {
  int n = GetParam(); // 2, 3 or 4: all divide the 24 hidden units.
  Tensor x = rand({4, 8}, "x"), w1 = rand({24, 8}, "w1"),
         w2 = rand({8, 24}, "w2");
  Tensor expected = linear(relu(linear(x, w1, nullptr)), w2, nullptr);
  std::vector<Tensor> results(n);
  gpu::runDeviceRanks(n, [&](Communicator &comm) {
    int r = comm.rank();
    int64_t piece = 24 / n;
    // Column-parallel first layer, row-parallel second, one all-reduce.
    DeviceTensor w1r = up(sliceDim(w1, 0, r * piece, piece));
    DeviceTensor w2r = up(sliceDim(w2, 1, r * piece, piece));
    DeviceTensor h = gpu::relu(gpu::linear(up(x), w1r, nullptr));
    DeviceTensor y = gpu::linear(h, w2r, nullptr);
    comm.allReduce(y.data(), y.data(), y.numel(), ReduceOp::Sum);
    results[r] = y.download();
  });
  for (int r = 0; r < n; ++r)
    expectClose(results[r], expected, 1e-5f);
  for (int r = 1; r < n; ++r)
    EXPECT_EQ(results[r], results[0]) << "ranks must agree bitwise";
}

TEST_P(DeviceRanksTest, UnevenCollectivesMatchHost) {
  // 5 rows over 2, 3 and 4 ranks: 3,2 / 2,2,1 / 2,2,1,0 (an empty piece).
  int n = GetParam();
  for (DType dtype : {DType::F32, DType::BF16}) {
    Tensor global = rand({5, 3}, "uneven").to(dtype);
    gpu::runDeviceRanks(n, [&](Communicator &comm) {
      int r = comm.rank();
      Tensor piece = chunkDim(global, 0, n, r);
      DeviceTensor mine = up(piece);
      check(gpu::allGatherUneven(comm, mine, 0, 5).download() == global,
            "allGatherUneven");
      // Max of equal values is the value: each rank keeps its rows.
      check(gpu::reduceScatterUneven(comm, up(global), 0, ReduceOp::Max)
                    .download() == piece,
            "reduceScatterUneven");
      check(gpu::padDim(mine, 1, 4).download() == padDim(piece, 1, 4),
            "padDim");
    });
  }
}

TEST_P(DeviceRanksTest, LowPrecisionCollectivesMatchHostReduction) {
  int n = GetParam();
  const size_t count = 1001;
  for (DType dtype : kLowPrecision) {
    // Every rank's input, and the host reduction of all of them.
    std::vector<std::vector<uint16_t>> inputs(n, std::vector<uint16_t>(count));
    std::vector<const void *> srcs;
    for (int r = 0; r < n; ++r) {
      for (size_t i = 0; i < count; ++i)
        inputs[r][i] = test::lowPrecisionValue(dtype, r, i);
      srcs.push_back(inputs[r].data());
    }
    gpu::runDeviceRanks(n, [&](Communicator &comm) {
      int r = comm.rank();
      std::string tag =
          std::string(dtypeName(dtype)) + " rank " + std::to_string(r) + ": ";
      DeviceTensor in = up(fromBits(dtype, inputs[r]));
      for (ReduceOp op :
           {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min}) {
        std::vector<uint16_t> expected(count);
        reduceBuffers(expected.data(), srcs.data(), n, count, dtype, op);
        DeviceTensor out({static_cast<int64_t>(count)}, dtype);
        comm.allReduce(in.raw(), out.raw(), count, dtype, op);
        Tensor got = out.download();
        check(std::memcmp(got.raw(), expected.data(), got.bytes()) == 0,
              tag + "all_reduce " + reduceOpName(op));
        DeviceTensor inPlace = in.clone();
        comm.allReduce(inPlace.raw(), inPlace.raw(), count, dtype, op);
        Tensor gotInPlace = inPlace.download();
        check(std::memcmp(gotInPlace.raw(), expected.data(), got.bytes()) == 0,
              tag + "in-place all_reduce " + reduceOpName(op));
      }
      // reduce_scatter: rank r gets block r of the sum.
      const size_t per = count / n;
      std::vector<uint16_t> sum(count);
      reduceBuffers(sum.data(), srcs.data(), n, count, dtype, ReduceOp::Sum);
      DeviceTensor mine({static_cast<int64_t>(per)}, dtype);
      comm.reduceScatter(in.raw(), mine.raw(), per, dtype, ReduceOp::Sum);
      Tensor gotMine = mine.download();
      check(std::memcmp(gotMine.raw(), sum.data() + r * per, gotMine.bytes()) ==
                0,
            tag + "reduce_scatter");
      // all_gather moves the bits.
      DeviceTensor all({static_cast<int64_t>(n * count)}, dtype);
      comm.allGather(in.raw(), count, all.raw(), dtype);
      Tensor gotAll = all.download();
      for (int p = 0; p < n; ++p)
        check(
            std::memcmp(static_cast<const uint16_t *>(gotAll.raw()) + p * count,
                        inputs[p].data(), count * sizeof(uint16_t)) == 0,
            tag + "all_gather block " + std::to_string(p));
    });
  }
}

TEST_P(DeviceRanksTest, TensorCollectivesMatchHost) {
  // The dimension-aware collectives on device tensors (packing and
  // unpacking around the raw collectives) give the host helpers' results,
  // in f32 and bf16, on every dimension.
  int n = GetParam();
  for (DType dtype : {DType::F32, DType::BF16}) {
    std::vector<Tensor> inputs;
    for (int r = 0; r < n; ++r)
      inputs.push_back(
          initTensor(5, "x" + std::to_string(r), {2 * n, 3, 2 * n}, 1.0f)
              .to(dtype));
    for (int64_t dim : {0, 1, 2}) {
      std::vector<Tensor> hostGather(n), hostScatter(n), hostA2A(n);
      runRanks(n, [&](Communicator &comm) {
        int r = comm.rank();
        hostGather[r] = allGatherDim(comm, inputs[r], dim);
        if (inputs[r].shape()[dim] % n == 0) {
          hostScatter[r] =
              reduceScatterDim(comm, inputs[r], dim, ReduceOp::Sum);
          hostA2A[r] = allToAllDims(comm, inputs[r], dim, (dim + 1) % 3);
        }
      });
      std::vector<Tensor> devGather(n), devScatter(n), devA2A(n);
      gpu::runDeviceRanks(n, [&](Communicator &comm) {
        int r = comm.rank();
        DeviceTensor x = DeviceTensor::upload(inputs[r]);
        devGather[r] = gpu::allGatherDim(comm, x, dim).download();
        if (inputs[r].shape()[dim] % n == 0) {
          devScatter[r] =
              gpu::reduceScatterDim(comm, x, dim, ReduceOp::Sum).download();
          devA2A[r] = gpu::allToAllDims(comm, x, dim, (dim + 1) % 3).download();
        }
      });
      for (int r = 0; r < n; ++r) {
        EXPECT_EQ(devGather[r], hostGather[r]) << "all_gather dim " << dim;
        EXPECT_EQ(devScatter[r], hostScatter[r])
            << "reduce_scatter dim " << dim;
        EXPECT_EQ(devA2A[r], hostA2A[r]) << "all_to_all dim " << dim;
      }
    }
  }
}

TEST_P(DeviceRanksTest, IntegerCollectivesAreExact) {
  auto upload = [](const Tensor &t) { return up(t); };
  auto download = [](const DeviceTensor &t) { return t.download(); };
  gpu::runDeviceRanks(GetParam(), [&](Communicator &comm) {
    test::checkIntegerCollectives(comm, DType::I64, upload, download);
    test::checkIntegerCollectives(comm, DType::I32, upload, download);
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, DeviceRanksTest, ::testing::Values(2, 3, 4));

TEST_F(GpuTest, DeviceRanksMismatchIsReported) {
  try {
    gpu::runDeviceRanks(2, [&](Communicator &comm) {
      DeviceTensor x({8});
      comm.allReduce(x.data(), x.data(), comm.rank() == 0 ? 4 : 8,
                     ReduceOp::Sum);
    });
    FAIL() << "expected a CommError";
  } catch (const CommError &e) {
    EXPECT_NE(std::string(e.what()).find("collective mismatch"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(gpu::runDeviceRanks(65, [](Communicator &) {}),
               std::invalid_argument);
}
