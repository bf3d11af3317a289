//===- UnevenCollectivesTest.cpp - collectives of torch.chunk pieces ------===//
//
// padDim, allGatherUneven and reduceScatterUneven on the threads backend:
// the sizes of torch.chunk (10 over 4 is 3,3,3,1; 5 over 4 is 2,2,1,0, an
// empty piece included), 16-bit tensors, and the errors.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/UnevenCollectives.h"

#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include <gtest/gtest.h>

#include <mutex>

using namespace mlir::tp::runtime;

namespace {

/// [rows, cols] with element (r, c) = 100 r + c + offset.
Tensor grid(int64_t rows, int64_t cols, float offset = 0) {
  std::vector<float> v;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      v.push_back(100.0f * r + c + offset);
  return Tensor::fromData({rows, cols}, std::move(v));
}

TEST(UnevenCollectivesTest, PadDimAppendsZeros) {
  Tensor x = grid(2, 3);
  Tensor padded = padDim(x, -1, 5);
  ASSERT_EQ(padded.shape(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(sliceDim(padded, 1, 0, 3), x);
  EXPECT_EQ(sliceDim(padded, 1, 3, 2), Tensor({2, 2}));
  EXPECT_EQ(padDim(x, 0, 2), x);
  EXPECT_THROW(padDim(x, 0, 1), std::invalid_argument);
}

/// Every rank's result of gathering its torch.chunk of \p global's \p dim.
void checkGather(int n, const Tensor &global, int64_t dim) {
  std::vector<Tensor> out(n);
  std::mutex mu;
  runRanks(n, [&](Communicator &comm) {
    Tensor mine = chunkDim(global, dim, n, comm.rank());
    Tensor all = allGatherUneven(comm, mine, dim, global.dim(dim));
    std::lock_guard<std::mutex> lock(mu);
    out[comm.rank()] = std::move(all);
  });
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(out[r], global) << n << " ranks, rank " << r;
}

TEST(UnevenCollectivesTest, AllGatherReassemblesTorchChunks) {
  checkGather(4, grid(10, 3), 0); // 3, 3, 3, 1
  checkGather(4, grid(2, 5), 1);  // 2, 2, 1, 0: rank 3 holds nothing
  checkGather(3, grid(6, 2), 0);  // even: no padding
  checkGather(2, grid(0, 4), 0);  // nothing anywhere
}

TEST(UnevenCollectivesTest, AllGatherKeepsSixteenBitTensors) {
  Tensor global = grid(5, 2).to(DType::BF16);
  std::vector<Tensor> out(4);
  std::mutex mu;
  runRanks(4, [&](Communicator &comm) {
    Tensor all =
        allGatherUneven(comm, chunkDim(global, 0, 4, comm.rank()), 0, 5);
    std::lock_guard<std::mutex> lock(mu);
    out[comm.rank()] = std::move(all);
  });
  for (const Tensor &t : out) {
    EXPECT_EQ(t.dtype(), DType::BF16);
    EXPECT_EQ(t, global);
  }
}

TEST(UnevenCollectivesTest, AllGatherRejectsAPieceOfTheWrongSize) {
  EXPECT_THROW(runRanks(2,
                        [&](Communicator &comm) {
                          // 5 over 2 is 3, 2: every rank holding 3 is wrong
                          // on rank 1.
                          allGatherUneven(comm, grid(3, 2), 0, 5);
                        }),
               std::invalid_argument);
}

TEST(UnevenCollectivesTest, ReduceScatterKeepsEachRanksTorchChunk) {
  // Rank r holds grid + r; the sum over 4 ranks is 4 grid + 6.
  Tensor base = grid(10, 2);
  Tensor sum = grid(10, 2);
  for (int64_t i = 0; i < sum.numel(); ++i)
    sum.data()[i] = 4 * sum.data()[i] + 6;
  std::vector<Tensor> out(4);
  std::mutex mu;
  runRanks(4, [&](Communicator &comm) {
    Tensor mine =
        reduceScatterUneven(comm, grid(10, 2, comm.rank()), 0, ReduceOp::Sum);
    std::lock_guard<std::mutex> lock(mu);
    out[comm.rank()] = std::move(mine);
  });
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(out[r], chunkDim(sum, 0, 4, r)) << "rank " << r;
  EXPECT_EQ(out[3].dim(0), 1);

  // 2 columns over 4 ranks: 1, 1, 0, 0; max of equal values is the value.
  std::vector<Tensor> cols(4);
  runRanks(4, [&](Communicator &comm) {
    Tensor mine = reduceScatterUneven(comm, base, 1, ReduceOp::Max);
    std::lock_guard<std::mutex> lock(mu);
    cols[comm.rank()] = std::move(mine);
  });
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(cols[r], chunkDim(base, 1, 4, r)) << "rank " << r;
  EXPECT_EQ(cols[3].shape(), (std::vector<int64_t>{10, 0}));
}

} // namespace
