//===- MPICommunicatorTest.cpp - Tests for the mpi backend ------*- C++ -*-===//
//
// Run under mpirun (ctest does, with 2 and 4 processes): every rank runs every
// test and checks its own results; the exit code is the same on all ranks.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/MPICommunicator.h"

#include "IntegerChecks.h"
#include "LowPrecisionChecks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>

using namespace mlir::tp::runtime;

namespace {
/// Rank r's distinct input: value = 100*r + i.
std::vector<float> rankData(int r, size_t count) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i)
    v[i] = static_cast<float>(100 * r + static_cast<int>(i));
  return v;
}

/// A world communicator that aborts the job if a test desynchronizes the
/// ranks (a hang) instead of letting ctest time out.
std::unique_ptr<MPICommunicator> makeWorld(bool check = true) {
  MPIOptions options;
  options.checkCollectives = check;
  options.timeout = std::chrono::seconds(60);
  return MPICommunicator::world(options);
}

float reduced(ReduceOp op, int n, size_t i, int block = 0, size_t count = 0) {
  // Element i of block `block` of rank p is 100*p + block*count + i.
  float base = static_cast<float>(block * count + i);
  switch (op) {
  case ReduceOp::Sum:
    return 100.0f * n * (n - 1) / 2 + n * base;
  case ReduceOp::Avg:
    return (100.0f * n * (n - 1) / 2 + n * base) / n;
  case ReduceOp::Max:
    return 100.0f * (n - 1) + base;
  case ReduceOp::Min:
    return base;
  }
  return 0;
}

const ReduceOp allOps[] = {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max,
                           ReduceOp::Min};

TEST(MPICommunicatorTest, WorldMatchesMPI) {
  auto comm = makeWorld();
  EXPECT_EQ(comm->rank(), MPIEnvironment::worldRank());
  EXPECT_EQ(comm->size(), MPIEnvironment::worldSize());
  ASSERT_EQ(comm->worldRanks().size(), static_cast<size_t>(comm->size()));
  for (int r = 0; r < comm->size(); ++r)
    EXPECT_EQ(comm->worldRanks()[r], r);
}

TEST(MPICommunicatorTest, AllGather) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  std::vector<float> in = rankData(r, 5), out(5 * n);
  comm->allGather(in.data(), 5, out.data());
  for (int p = 0; p < n; ++p)
    EXPECT_TRUE(std::equal(out.begin() + 5 * p, out.begin() + 5 * (p + 1),
                           rankData(p, 5).begin()))
        << "block " << p;
  // In place: the input is this rank's block of the output.
  std::vector<float> buf(3 * n, -1.0f);
  std::vector<float> mine = rankData(r, 3);
  std::copy(mine.begin(), mine.end(), buf.begin() + 3 * r);
  comm->allGather(buf.data() + 3 * r, 3, buf.data());
  for (int p = 0; p < n; ++p)
    EXPECT_EQ(buf[3 * p + 2], 100 * p + 2);
  // Overlapping but not in place: staged through the scratch buffer.
  std::vector<float> big(4 * n + 4, -1.0f);
  std::copy(mine.begin(), mine.end(), big.begin());
  comm->allGather(big.data(), 3, big.data() + 1);
  for (int p = 0; p < n; ++p)
    EXPECT_EQ(big[1 + 3 * p + 1], 100 * p + 1);
}

TEST(MPICommunicatorTest, AllReduceOps) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  const size_t count = 37;
  for (ReduceOp op : allOps) {
    std::vector<float> in = rankData(r, count), out(count);
    comm->allReduce(in.data(), out.data(), count, op);
    for (size_t i = 0; i < count; ++i)
      ASSERT_FLOAT_EQ(out[i], reduced(op, n, i))
          << reduceOpName(op) << " element " << i;
    // In place.
    comm->allReduce(in.data(), in.data(), count, op);
    EXPECT_EQ(in, out) << reduceOpName(op) << " in place";
  }
}

TEST(MPICommunicatorTest, AllReduceMaxMinKeepNaN) {
  // MPI_MAX and MPI_MIN drop a NaN depending on rank order; element p is
  // NaN on rank p only, and every rank must get NaN there.
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
    std::vector<float> in(n + 1, static_cast<float>(r)), out(n + 1);
    in[r] = std::numeric_limits<float>::quiet_NaN();
    comm->allReduce(in.data(), out.data(), in.size(), op);
    for (int p = 0; p < n; ++p)
      EXPECT_TRUE(std::isnan(out[p])) << reduceOpName(op) << " element " << p;
    EXPECT_EQ(out[n], op == ReduceOp::Max ? n - 1 : 0) << reduceOpName(op);
  }
}

TEST(MPICommunicatorTest, AllReduceLarge) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  const size_t count = 1 << 18; // 1 MiB: OpenMPI's large-message algorithms.
  std::vector<float> in(count, static_cast<float>(r + 1)), out(count);
  comm->allReduce(in.data(), out.data(), count, ReduceOp::Sum);
  float expected = n * (n + 1) / 2.0f;
  EXPECT_EQ(std::count(out.begin(), out.end(), expected),
            static_cast<long>(count));
}

TEST(MPICommunicatorTest, ReduceScatterOps) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  const size_t count = 7;
  for (ReduceOp op : allOps) {
    std::vector<float> in = rankData(r, count * n), out(count);
    comm->reduceScatter(in.data(), out.data(), count, op);
    for (size_t i = 0; i < count; ++i)
      ASSERT_FLOAT_EQ(out[i], reduced(op, n, i, r, count))
          << reduceOpName(op) << " element " << i;
    // The output may overlap the input.
    comm->reduceScatter(in.data(), in.data() + 1, count, op);
    EXPECT_TRUE(std::equal(out.begin(), out.end(), in.begin() + 1))
        << reduceOpName(op) << " overlapping";
  }
  // Zero-sized blocks are allowed.
  comm->reduceScatter(nullptr, nullptr, 0, ReduceOp::Sum);
}

TEST(MPICommunicatorTest, ReduceScatterAvgIsSumOverN) {
  auto comm = makeWorld();
  int n = comm->size();
  std::vector<float> in(4 * n, 1.0f / 3.0f), sum(4), avg(4);
  comm->reduceScatter(in.data(), sum.data(), 4, ReduceOp::Sum);
  comm->reduceScatter(in.data(), avg.data(), 4, ReduceOp::Avg);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(avg[i], sum[i] / static_cast<float>(n));
}

TEST(MPICommunicatorTest, AllToAll) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  const size_t count = 3;
  // Block j of rank i's input holds 1000*i + 10*j + k.
  std::vector<float> in(count * n), out(count * n);
  for (int j = 0; j < n; ++j)
    for (size_t k = 0; k < count; ++k)
      in[j * count + k] = 1000.0f * r + 10.0f * j + k;
  comm->allToAll(in.data(), out.data(), count);
  for (int i = 0; i < n; ++i)
    for (size_t k = 0; k < count; ++k)
      EXPECT_EQ(out[i * count + k], 1000.0f * i + 10.0f * r + k);
  // In place.
  comm->allToAll(in.data(), in.data(), count);
  EXPECT_EQ(in, out);
}

TEST(MPICommunicatorTest, BroadcastFromEveryRoot) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  for (int root = 0; root < n; ++root) {
    std::vector<float> buf = rankData(r, 6);
    comm->broadcast(buf.data(), buf.size(), root);
    EXPECT_EQ(buf, rankData(root, 6)) << "root " << root;
  }
  float x = 0;
  EXPECT_THROW(comm->broadcast(&x, 1, n), std::invalid_argument);
  EXPECT_THROW(comm->broadcast(&x, 1, -1), std::invalid_argument);
}

TEST(MPICommunicatorTest, BarrierAndTensorHelpers) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  comm->barrier();
  // [2, 3] per rank gathered along dim 1 -> [2, 3n].
  Tensor local({2, 3});
  for (int64_t i = 0; i < 6; ++i)
    local.data()[i] = 100.0f * r + i;
  Tensor g = allGatherDim(*comm, local, 1);
  ASSERT_EQ(g.shape(), (std::vector<int64_t>{2, 3 * n}));
  for (int p = 0; p < n; ++p)
    EXPECT_EQ(g.data()[1 * 3 * n + 3 * p + 2], 100.0f * p + 5);
  // Reduce-scatter along dim 1 returns this rank's columns of the sum.
  Tensor rs = reduceScatterDim(*comm, g, 1, ReduceOp::Sum);
  ASSERT_EQ(rs.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(rs.data()[4], n * (100.0f * r + 4));
}

TEST(MPICommunicatorTest, SplitIntoRowAndColumnGroups) {
  auto comm = makeWorld();
  if (comm->size() != 4)
    GTEST_SKIP() << "needs 4 ranks";
  int r = comm->rank();
  // A 2x2 mesh: rows {0,1}, {2,3}; columns {0,2}, {1,3}.
  std::unique_ptr<Communicator> row = comm->split(r / 2, r % 2);
  std::unique_ptr<Communicator> col = comm->split(r % 2, r / 2);
  ASSERT_TRUE(row && col);
  EXPECT_EQ(row->size(), 2);
  EXPECT_EQ(col->size(), 2);
  EXPECT_EQ(row->rank(), r % 2);
  EXPECT_EQ(col->rank(), r / 2);
  float x = static_cast<float>(r), rowSum = 0, colSum = 0;
  row->allReduce(&x, &rowSum, 1, ReduceOp::Sum);
  col->allReduce(&x, &colSum, 1, ReduceOp::Sum);
  EXPECT_EQ(rowSum, r / 2 == 0 ? 1.0f : 5.0f);
  EXPECT_EQ(colSum, r % 2 == 0 ? 2.0f : 4.0f);
  // Members are reported by world rank.
  auto *mpiRow = dynamic_cast<MPICommunicator *>(row.get());
  ASSERT_NE(mpiRow, nullptr);
  EXPECT_EQ(mpiRow->worldRanks(), (std::vector<int>{r / 2 * 2, r / 2 * 2 + 1}));
  // A mismatch inside a row names world ranks.
  float y = 0;
  try {
    if (r % 2 == 0)
      row->allReduce(&x, &y, 1, ReduceOp::Sum);
    else
      row->broadcast(&x, 1, 0);
    ADD_FAILURE() << "no CommError";
  } catch (const CommError &e) {
    std::string base = std::to_string(r / 2 * 2);
    std::string next = std::to_string(r / 2 * 2 + 1);
    EXPECT_NE(std::string(e.what()).find("rank " + base +
                                         " called all_reduce(count=1, "
                                         "op=sum), rank " +
                                         next +
                                         " called broadcast(count=1, "
                                         "root=0)"),
              std::string::npos)
        << e.what();
  }
}

TEST(MPICommunicatorTest, SplitOrdersByKeyAndDropsNegativeColors) {
  auto comm = makeWorld();
  int n = comm->size(), r = comm->rank();
  // One group in reverse rank order.
  std::unique_ptr<Communicator> rev = comm->split(0, -r);
  ASSERT_TRUE(rev);
  EXPECT_EQ(rev->rank(), n - 1 - r);
  std::vector<float> out(n);
  float x = static_cast<float>(r);
  rev->allGather(&x, 1, out.data());
  for (int p = 0; p < n; ++p)
    EXPECT_EQ(out[p], static_cast<float>(n - 1 - p));
  // Rank 0 opts out.
  std::unique_ptr<Communicator> rest = comm->split(r == 0 ? -1 : 1, r);
  if (r == 0) {
    EXPECT_EQ(rest, nullptr);
  } else {
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->size(), n - 1);
    EXPECT_EQ(rest->rank(), r - 1);
    rest->barrier();
  }
}

/// Runs \p fn, expects a CommError whose message contains every string of
/// \p needles, and returns the message.
template <typename Fn>
std::string expectMismatch(Fn fn, std::vector<std::string> needles) {
  try {
    fn();
  } catch (const CommError &e) {
    std::string msg = e.what();
    for (const std::string &s : needles)
      EXPECT_NE(msg.find(s), std::string::npos)
          << "'" << s << "' not in: " << msg;
    return msg;
  }
  ADD_FAILURE() << "no CommError";
  return "";
}

TEST(MPICommunicatorTest, MismatchedKindsAreReported) {
  auto comm = makeWorld();
  int r = comm->rank();
  std::vector<float> in(4 * comm->size(), 1.0f), out(4 * comm->size());
  std::string msg = expectMismatch(
      [&] {
        if (r % 2 == 0)
          comm->allReduce(in.data(), out.data(), 4, ReduceOp::Sum);
        else
          comm->allGather(in.data(), 4, out.data());
      },
      {"collective mismatch: rank 0 called all_reduce(count=4, op=sum)",
       "rank 1 called all_gather(count=4)"});
  // Ranks calling the same thing as rank 0 are not listed.
  if (comm->size() == 4) {
    EXPECT_EQ(msg.find("rank 2 called"), std::string::npos) << msg;
  }
  // Nothing was sent: the communicator is still usable.
  float x = 1, sum = 0;
  comm->allReduce(&x, &sum, 1, ReduceOp::Sum);
  EXPECT_EQ(sum, static_cast<float>(comm->size()));
}

TEST(MPICommunicatorTest, MismatchedCountsOpsAndRootsAreReported) {
  auto comm = makeWorld();
  int r = comm->rank(), n = comm->size();
  std::vector<float> in(8 * n, 1.0f), out(8 * n);
  expectMismatch(
      [&] {
        comm->allReduce(in.data(), out.data(), r == n - 1 ? 3 : 8,
                        ReduceOp::Sum);
      },
      {"rank 0 called all_reduce(count=8, op=sum)",
       "rank " + std::to_string(n - 1) +
           " called all_reduce(count=3, op=sum)"});
  expectMismatch(
      [&] {
        comm->reduceScatter(in.data(), out.data(), 2,
                            r == 1 ? ReduceOp::Max : ReduceOp::Sum);
      },
      {"rank 0 called reduce_scatter(count=2, op=sum)",
       "rank 1 called reduce_scatter(count=2, op=max)"});
  expectMismatch([&] { comm->broadcast(in.data(), 2, r == 1 ? 1 : 0); },
                 {"rank 0 called broadcast(count=2, root=0)",
                  "rank 1 called broadcast(count=2, root=1)"});
  expectMismatch(
      [&] {
        if (r == 0)
          comm->barrier();
        else
          comm->allToAll(in.data(), out.data(), 1);
      },
      {"rank 0 called barrier()", "rank 1 called all_to_all(count=1)"});
  comm->barrier();
}

TEST(MPICommunicatorTest, BF16AndF16Collectives) {
  auto comm = makeWorld();
  EXPECT_NO_THROW(test::checkLowPrecisionCollectives(*comm, DType::BF16));
  EXPECT_NO_THROW(test::checkLowPrecisionCollectives(*comm, DType::F16));
}

TEST(MPICommunicatorTest, MismatchedDtypesAreReported) {
  auto comm = makeWorld();
  int r = comm->rank(), n = comm->size();
  std::vector<float> in(8 * n, 1.0f), out(8 * n);
  expectMismatch(
      [&] {
        comm->allReduce(in.data(), out.data(), 4,
                        r == 1 ? DType::F16 : DType::F32, ReduceOp::Sum);
      },
      {"rank 0 called all_reduce(count=4, op=sum)",
       "rank 1 called all_reduce(count=4, dtype=F16, op=sum)"});
  comm->barrier();
}

TEST(MPICommunicatorTest, IntegerCollectivesAreExact) {
  auto comm = makeWorld();
  auto same = [](Tensor t) { return t; };
  EXPECT_NO_THROW(test::checkIntegerCollectives(*comm, DType::I64, same, same));
  EXPECT_NO_THROW(test::checkIntegerCollectives(*comm, DType::I32, same, same));
  // The raw form a caller writes to move int64 values between ranks.
  int64_t mine = (int64_t(1) << 50) + comm->rank();
  std::vector<int64_t> all(comm->size());
  comm->allGather(&mine, 1, all.data(), DType::I64);
  for (int p = 0; p < comm->size(); ++p)
    EXPECT_EQ(all[p], (int64_t(1) << 50) + p);
}

TEST(MPICommunicatorTest, IntegerAndFloatDtypesMismatch) {
  auto comm = makeWorld();
  int r = comm->rank(), n = comm->size();
  std::vector<int64_t> in(8 * n, 1), out(8 * n);
  expectMismatch(
      [&] {
        comm->allGather(in.data(), 2, out.data(),
                        r == 1 ? DType::I64 : DType::F32);
      },
      {"rank 0 called all_gather(count=2)",
       "rank 1 called all_gather(count=2, dtype=I64)"});
  expectMismatch(
      [&] {
        comm->allReduce(in.data(), out.data(), 2,
                        r == 0 ? DType::I64 : DType::I32, ReduceOp::Max);
      },
      {"rank 0 called all_reduce(count=2, dtype=I64, op=max)",
       "rank 1 called all_reduce(count=2, dtype=I32, op=max)"});
  comm->barrier();
}

TEST(MPICommunicatorTest, UncheckedModeStillWorks) {
  auto comm = makeWorld(/*check=*/false);
  EXPECT_FALSE(comm->options().checkCollectives);
  int n = comm->size();
  std::vector<float> in(2 * n, 2.0f), out(2);
  comm->reduceScatter(in.data(), out.data(), 2, ReduceOp::Avg);
  EXPECT_EQ(out[0], 2.0f);
  auto sub = comm->split(0, 0);
  ASSERT_TRUE(sub);
  EXPECT_FALSE(static_cast<MPICommunicator &>(*sub).options().checkCollectives);
}

TEST(MPICommunicatorTest, StatsCountCallsAndInputBytes) {
  auto comm = makeWorld();
  int n = comm->size();
  std::vector<float> buf(4 * n);
  comm->allGather(buf.data() + 4 * comm->rank(), 4, buf.data());
  comm->allReduce(buf.data(), buf.data(), 4, ReduceOp::Sum);
  comm->reduceScatter(buf.data(), buf.data(), 2, ReduceOp::Sum);
  comm->allToAll(buf.data(), buf.data(), 1);
  comm->broadcast(buf.data(), 3, 0);
  comm->barrier();
  auto sub = comm->split(0, 0);
  const CollectiveStats &s = comm->stats();
  for (const char *k : {"all_gather", "all_reduce", "reduce_scatter",
                        "all_to_all", "broadcast", "barrier", "split"})
    EXPECT_EQ(s.counts.at(k), 1) << k;
  // The check's own all-gather is not counted.
  EXPECT_EQ(s.counts.size(), 7u);
  EXPECT_EQ(s.bytes, 4 * (4 + 4 + 2 * n + n + 3));
  comm->resetStats();
  EXPECT_TRUE(comm->stats().counts.empty());
}

TEST(MPICommunicatorTest, TwoThreadsRunCollectivesOnTwoCommunicators) {
  // MPIEnvironment asks for MPI_THREAD_MULTIPLE; Open MPI grants it. A
  // second thread then gathers on a duplicate of the world while the main
  // thread reduces on the world (the executor's communication thread and
  // its main one), each with the collective check and the watchdog armed.
  auto comm = makeWorld();
  ASSERT_TRUE(comm->allowsConcurrentThreads());
  auto dup = comm->split(0, comm->rank());
  ASSERT_TRUE(dup);
  EXPECT_TRUE(dup->allowsConcurrentThreads());
  int n = comm->size(), r = comm->rank();
  constexpr size_t kCount = 4096;
  std::vector<float> mine = rankData(r, kCount), gathered(kCount * n);
  std::vector<float> sums(kCount, static_cast<float>(r + 1));
  std::thread other([&] {
    for (int i = 0; i < 20; ++i)
      dup->allGather(mine.data(), kCount, gathered.data());
  });
  for (int i = 0; i < 20; ++i) {
    std::vector<float> x(kCount, static_cast<float>(r + 1));
    comm->allReduce(x.data(), x.data(), kCount, ReduceOp::Sum);
    sums = x;
  }
  other.join();
  for (int p = 0; p < n; ++p)
    EXPECT_EQ(gathered[p * kCount + 7], 100.0f * p + 7) << "rank " << p;
  EXPECT_EQ(sums[0], n * (n + 1) / 2.0f);
  EXPECT_EQ(dup->stats().counts.at("all_gather"), 20);
  EXPECT_EQ(comm->stats().counts.at("all_reduce"), 20);
}

/// Prints only failures, prefixed with the rank (used on ranks > 0 so that
/// the output is not repeated N times).
class FailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit FailurePrinter(int rank) : rank(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult &result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank,
                   result.file_name() ? result.file_name() : "?",
                   result.line_number(), result.summary());
  }

private:
  int rank;
};
} // namespace

int main(int argc, char **argv) {
  MPIEnvironment env(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = MPIEnvironment::worldRank();
  if (rank != 0) {
    ::testing::TestEventListeners &listeners =
        ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0;
  // Every rank exits with 1 if any rank failed.
  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && anyFailed && !failed)
    std::fprintf(stderr, "a test failed on another rank\n");
  return anyFailed;
}
