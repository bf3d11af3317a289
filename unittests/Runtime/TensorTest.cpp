//===- TensorTest.cpp - Tests for Tensor and chunk arithmetic ---*- C++ -*-===//
//
// Shape bookkeeping, slicing, concatenation and torch.chunk rules.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Tensor.h"

#include <gtest/gtest.h>

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
