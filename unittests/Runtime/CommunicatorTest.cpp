//===- CommunicatorTest.cpp - Tests for the threads backend -----*- C++ -*-===//
//
// Every collective and tensor helper on 1-4 ranks against values computed
// locally, plus failure propagation, mismatch detection and statistics.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Kernels.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "tp/Runtime/Init.h"

#include "IntegerChecks.h"
#include "LowPrecisionChecks.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
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

/// Asserts from rank threads are recorded by gtest, but a failure must also
/// stop the rank; rethrowing through runRanks does that.
void check(bool ok, const std::string &what) {
  if (!ok)
    throw std::runtime_error("check failed: " + what);
}

class CollectiveTest : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveTest, AllGather) {
  int n = GetParam();
  runRanks(n, [&](Communicator &comm) {
    int r = comm.rank();
    std::vector<float> in = rankData(r, 5), out(5 * n);
    comm.allGather(in.data(), 5, out.data());
    for (int p = 0; p < n; ++p)
      check(std::equal(out.begin() + 5 * p, out.begin() + 5 * (p + 1),
                       rankData(p, 5).begin()),
            "block " + std::to_string(p));
    // In place: the input is this rank's block of the output.
    std::vector<float> buf(3 * n, -1.0f);
    std::vector<float> mine = rankData(r, 3);
    std::copy(mine.begin(), mine.end(), buf.begin() + 3 * r);
    comm.allGather(buf.data() + 3 * r, 3, buf.data());
    for (int p = 0; p < n; ++p)
      check(buf[3 * p + 2] == 100 * p + 2, "in-place all_gather");
  });
}

TEST_P(CollectiveTest, AllReduceOps) {
  int n = GetParam();
  const size_t count = 37; // Not a multiple of the rank count.
  runRanks(n, [&](Communicator &comm) {
    int r = comm.rank();
    for (ReduceOp op :
         {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min}) {
      std::vector<float> in = rankData(r, count), out(count);
      comm.allReduce(in.data(), out.data(), count, op);
      for (size_t i = 0; i < count; ++i) {
        float expected = 0;
        switch (op) {
        case ReduceOp::Sum:
          expected = 100.0f * n * (n - 1) / 2 + n * static_cast<float>(i);
          break;
        case ReduceOp::Avg:
          expected = (100.0f * n * (n - 1) / 2 + n * static_cast<float>(i)) / n;
          break;
        case ReduceOp::Max:
          expected = 100.0f * (n - 1) + i;
          break;
        case ReduceOp::Min:
          expected = static_cast<float>(i);
          break;
        }
        check(out[i] == expected,
              std::string(reduceOpName(op)) + " element " + std::to_string(i));
      }
    }
    // In place.
    std::vector<float> buf(count, static_cast<float>(r + 1));
    comm.allReduce(buf.data(), buf.data(), count, ReduceOp::Sum);
    for (float v : buf)
      check(v == n * (n + 1) / 2.0f, "in-place all_reduce");
  });
}

TEST_P(CollectiveTest, AllReduceIsBitwiseIdenticalAcrossRanks) {
  int n = GetParam();
  const size_t count = 1000;
  std::vector<std::vector<float>> results(n);
  runRanks(n, [&](Communicator &comm) {
    Tensor x = initTensor(3, "r" + std::to_string(comm.rank()),
                          {static_cast<int64_t>(count)}, 1.0f);
    allReduceInPlace(comm, x, ReduceOp::Sum);
    results[comm.rank()] = x.values();
  });
  for (int r = 1; r < n; ++r)
    EXPECT_EQ(results[r], results[0]);
}

TEST_P(CollectiveTest, ReduceScatter) {
  int n = GetParam();
  runRanks(n, [&](Communicator &comm) {
    int r = comm.rank();
    std::vector<float> in = rankData(r, 4 * n), out(4);
    comm.reduceScatter(in.data(), out.data(), 4, ReduceOp::Sum);
    for (int i = 0; i < 4; ++i)
      check(out[i] == 100.0f * n * (n - 1) / 2 + n * (4 * r + i),
            "reduce_scatter element " + std::to_string(i));
    comm.reduceScatter(in.data(), out.data(), 4, ReduceOp::Max);
    check(out[0] == 100.0f * (n - 1) + 4 * r, "reduce_scatter max");
  });
}

TEST_P(CollectiveTest, AllToAll) {
  int n = GetParam();
  runRanks(n, [&](Communicator &comm) {
    int r = comm.rank();
    std::vector<float> in = rankData(r, 2 * n), out(2 * n);
    comm.allToAll(in.data(), out.data(), 2);
    // Block p of the output is block r of rank p's input.
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < 2; ++i)
        check(out[2 * p + i] == 100 * p + 2 * r + i, "all_to_all");
    // In place goes through a staging buffer.
    comm.allToAll(in.data(), in.data(), 2);
    check(in == out, "in-place all_to_all");
  });
}

TEST_P(CollectiveTest, BroadcastAndBarrier) {
  int n = GetParam();
  runRanks(n, [&](Communicator &comm) {
    int root = n - 1;
    std::vector<float> buf = rankData(comm.rank(), 6);
    comm.broadcast(buf.data(), 6, root);
    check(buf == rankData(root, 6), "broadcast");
    comm.barrier();
    Tensor t = broadcastTensor(comm, Tensor::full({2}, float(comm.rank())), 0);
    check(t.data()[1] == 0.0f, "broadcastTensor");
  });
}

TEST_P(CollectiveTest, AllGatherDimMatchesConcat) {
  int n = GetParam();
  std::vector<int64_t> global = {3, 2, 5};
  for (int64_t dim = 0; dim < 3; ++dim) {
    std::vector<int64_t> g = global;
    g[dim] *= n; // Divisible along every dim.
    Tensor whole = initTensor(1, "w", g, 1.0f);
    runRanks(n, [&](Communicator &comm) {
      int64_t piece = g[dim] / n;
      Tensor local = sliceDim(whole, dim, comm.rank() * piece, piece);
      check(allGatherDim(comm, local, dim) == whole,
            "allGatherDim dim " + std::to_string(dim));
    });
  }
}

TEST_P(CollectiveTest, ReduceScatterDimOnInnerDim) {
  int n = GetParam();
  std::vector<int64_t> shape = {2, 3 * n, 4};
  // Sum over ranks of (rank + 1) * base, then piece r along dim 1.
  Tensor base = initTensor(2, "base", shape, 1.0f);
  runRanks(n, [&](Communicator &comm) {
    Tensor mine = base;
    for (int64_t i = 0; i < mine.numel(); ++i)
      mine.data()[i] *= comm.rank() + 1;
    Tensor got = reduceScatterDim(comm, mine, 1, ReduceOp::Sum);
    Tensor expected = sliceDim(base, 1, 3 * comm.rank(), 3);
    float factor = n * (n + 1) / 2.0f;
    check(got.shape() == expected.shape(), "reduceScatterDim shape");
    for (int64_t i = 0; i < got.numel(); ++i)
      check(std::abs(got.data()[i] - factor * expected.data()[i]) < 1e-5f,
            "reduceScatterDim value");
  });
}

TEST_P(CollectiveTest, AllToAllDimsReshards) {
  int n = GetParam();
  // Global [2n, 3, 2n]: each rank holds a dim-0 shard and asks for a dim-2
  // shard, i.e. split along 2 and concatenate along 0.
  std::vector<int64_t> global = {2 * n, 3, 2 * n};
  Tensor whole = initTensor(4, "act", global, 1.0f);
  runRanks(n, [&](Communicator &comm) {
    int r = comm.rank();
    Tensor local = sliceDim(whole, 0, 2 * r, 2);
    Tensor got = allToAllDims(comm, local, /*splitDim=*/2, /*concatDim=*/0);
    check(got == sliceDim(whole, 2, 2 * r, 2), "allToAllDims 2->0");
    Tensor back = allToAllDims(comm, got, 0, 2);
    check(back == local, "allToAllDims 0->2");
  });
}

TEST_P(CollectiveTest, BF16AndF16Collectives) {
  runRanks(GetParam(), [&](Communicator &comm) {
    test::checkLowPrecisionCollectives(comm, DType::BF16);
    test::checkLowPrecisionCollectives(comm, DType::F16);
  });
}

TEST_P(CollectiveTest, IntegerCollectivesAreExact) {
  auto same = [](Tensor t) { return t; };
  runRanks(GetParam(), [&](Communicator &comm) {
    test::checkIntegerCollectives(comm, DType::I64, same, same);
    test::checkIntegerCollectives(comm, DType::I32, same, same);
  });
}

TEST_P(CollectiveTest, Int64ScalarsAllGather) {
  // How a caller moves int64 values (a byte count, a shape) between ranks.
  int n = GetParam();
  runRanks(n, [&](Communicator &comm) {
    int64_t mine = (int64_t(1) << 50) + 3 - comm.rank();
    std::vector<int64_t> all(comm.size());
    comm.allGather(&mine, 1, all.data(), DType::I64);
    for (int p = 0; p < n; ++p)
      check(all[p] == (int64_t(1) << 50) + 3 - p,
            "int64 from rank " + std::to_string(p));
    int64_t largest = 0;
    comm.allReduce(&mine, &largest, 1, DType::I64, ReduceOp::Max);
    check(largest == (int64_t(1) << 50) + 3, "int64 max");
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, CollectiveTest, ::testing::Values(1, 2, 3, 4));

TEST(CommunicatorTest, IntegerSumsWrapLikeTorch) {
  // Two's complement wrap-around, not undefined overflow.
  const void *srcs[2];
  int64_t a = std::numeric_limits<int64_t>::max(), b = 2, out = 0;
  srcs[0] = &a;
  srcs[1] = &b;
  reduceBuffers(&out, srcs, 2, 1, DType::I64, ReduceOp::Sum);
  EXPECT_EQ(out, std::numeric_limits<int64_t>::min() + 1);
  int32_t c = -5, d = 7, e = 0;
  srcs[0] = &c;
  srcs[1] = &d;
  reduceBuffers(&e, srcs, 2, 1, DType::I32, ReduceOp::Min);
  EXPECT_EQ(e, -5);
  EXPECT_THROW(reduceBuffers(&e, srcs, 2, 1, DType::I32, ReduceOp::Avg),
               std::invalid_argument);
}

TEST(CommunicatorTest, FailingRankStopsTheOthers) {
  std::mutex mu;
  std::vector<std::string> messages;
  try {
    runRanks(3, [&](Communicator &comm) {
      if (comm.rank() == 2)
        throw std::runtime_error("out of memory in layer 3");
      std::vector<float> buf(4, 1.0f);
      try {
        // Rank 2 never arrives; this must fail promptly instead of waiting.
        comm.allReduce(buf.data(), buf.data(), 4, ReduceOp::Sum);
      } catch (const CommError &e) {
        std::lock_guard<std::mutex> lock(mu);
        messages.push_back(e.what());
        throw;
      }
    });
    FAIL() << "runRanks did not throw";
  } catch (const CommError &) {
    FAIL() << "the original error should be rethrown, not a CommError";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "out of memory in layer 3");
  }
  ASSERT_EQ(messages.size(), 2u);
  for (const std::string &m : messages)
    EXPECT_EQ(m, "rank 2 failed: out of memory in layer 3");
}

TEST(CommunicatorTest, LaterCollectivesFailToo) {
  std::atomic<int> commErrors{0};
  EXPECT_THROW(runRanks(2,
                        [&](Communicator &comm) {
                          if (comm.rank() == 0)
                            throw std::logic_error("bad input");
                          // Rank 1 keeps calling collectives; each must throw.
                          for (int i = 0; i < 3; ++i) {
                            try {
                              comm.barrier();
                            } catch (const CommError &) {
                              ++commErrors;
                            }
                          }
                        }),
               std::logic_error);
  EXPECT_EQ(commErrors.load(), 3);
}

TEST(CommunicatorTest, MismatchedCollectivesAreReported) {
  std::mutex mu;
  std::vector<std::string> messages;
  EXPECT_THROW(runRanks(2,
                        [&](Communicator &comm) {
                          std::vector<float> in(16), out(32);
                          try {
                            if (comm.rank() == 0)
                              comm.allReduce(in.data(), out.data(), 16,
                                             ReduceOp::Sum);
                            else
                              comm.allGather(in.data(), 8, out.data());
                          } catch (const CommError &e) {
                            std::lock_guard<std::mutex> lock(mu);
                            messages.push_back(e.what());
                            throw;
                          }
                        }),
               CommError);
  ASSERT_EQ(messages.size(), 2u);
  for (const std::string &m : messages)
    EXPECT_EQ(m, "collective mismatch: rank 0 called all_reduce(count=16, "
                 "op=sum), rank 1 called all_gather(count=8)");
}

TEST(CommunicatorTest, MismatchedCountsAndOpsAreReported) {
  try {
    runRanks(3, [&](Communicator &comm) {
      std::vector<float> buf(8);
      size_t count = comm.rank() == 1 ? 4 : 8;
      ReduceOp op = comm.rank() == 2 ? ReduceOp::Max : ReduceOp::Sum;
      comm.allReduce(buf.data(), buf.data(), count, op);
    });
    FAIL() << "runRanks did not throw";
  } catch (const CommError &e) {
    EXPECT_STREQ(e.what(),
                 "collective mismatch: rank 0 called all_reduce(count=8, "
                 "op=sum), rank 1 called all_reduce(count=4, op=sum), rank 2 "
                 "called all_reduce(count=8, op=max)");
  }
}

TEST(CommunicatorTest, MismatchedDtypesAreReported) {
  try {
    runRanks(2, [&](Communicator &comm) {
      std::vector<float> buf(8);
      comm.allGather(buf.data(), 2, buf.data() + 4,
                     comm.rank() == 1 ? DType::BF16 : DType::F32);
    });
    FAIL() << "runRanks did not throw";
  } catch (const CommError &e) {
    EXPECT_STREQ(e.what(), "collective mismatch: rank 0 called "
                           "all_gather(count=2), rank 1 called "
                           "all_gather(count=2, dtype=BF16)");
  }
}

TEST(CommunicatorTest, IntegerAndFloatDtypesMismatch) {
  // The same bytes as I64 on one rank and F32 (twice as many) on another
  // are still a mismatch: the descriptor carries the dtype.
  try {
    runRanks(2, [&](Communicator &comm) {
      std::vector<int64_t> buf(8);
      comm.allReduce(buf.data(), buf.data(), 4,
                     comm.rank() == 1 ? DType::I64 : DType::F32, ReduceOp::Sum);
    });
    FAIL() << "runRanks did not throw";
  } catch (const CommError &e) {
    EXPECT_STREQ(e.what(), "collective mismatch: rank 0 called "
                           "all_reduce(count=4, op=sum), rank 1 called "
                           "all_reduce(count=4, dtype=I64, op=sum)");
  }
  try {
    runRanks(2, [&](Communicator &comm) {
      std::vector<int64_t> buf(8);
      comm.broadcast(buf.data(), 2, comm.rank() == 0 ? DType::I64 : DType::I32,
                     0);
    });
    FAIL() << "runRanks did not throw";
  } catch (const CommError &e) {
    EXPECT_STREQ(e.what(), "collective mismatch: rank 0 called "
                           "broadcast(count=2, dtype=I64, root=0), rank 1 "
                           "called broadcast(count=2, dtype=I32, root=0)");
  }
}

TEST(CommunicatorTest, FinishedRankIsReported) {
  try {
    runRanks(2, [&](Communicator &comm) {
      if (comm.rank() == 1)
        return; // Forgets the collective.
      comm.barrier();
    });
    FAIL() << "runRanks did not throw";
  } catch (const CommError &e) {
    EXPECT_STREQ(e.what(), "rank 1 finished without calling barrier()");
  }
}

TEST(CommunicatorTest, TimeoutNamesMissingRanks) {
  // Rank 0 waits alone; ranks 1 and 2 never call anything.
  ThreadGroup group(3, std::chrono::milliseconds(20));
  std::unique_ptr<Communicator> comm = group.communicator(0);
  std::vector<float> buf(2);
  try {
    comm->broadcast(buf.data(), 2, 0);
    FAIL() << "broadcast did not time out";
  } catch (const CommError &e) {
    EXPECT_STREQ(e.what(), "timeout after 20 ms in broadcast(count=2, root=0) "
                           "on rank 0: ranks 1, 2 did not arrive");
  }
  std::string message;
  EXPECT_TRUE(group.failed(&message));
  EXPECT_NE(message.find("did not arrive"), std::string::npos);
  // The group stays failed.
  EXPECT_THROW(comm->barrier(), CommError);
}

TEST(CommunicatorTest, LongestTimeoutDoesNotOverflow) {
  // A caller's "wait forever" (the C API's timeoutMs = INT64_MAX): the
  // deadline saturates instead of wrapping into the past, so the rank that
  // waits for the late one does not report a timeout at once. The late
  // rank's delay only makes the first one wait; the test passes however
  // long it is.
  ThreadGroup group(2, std::chrono::milliseconds::max());
  std::unique_ptr<Communicator> first = group.communicator(0);
  std::unique_ptr<Communicator> late = group.communicator(1);
  std::string error;
  std::thread waiter([&] {
    try {
      first->barrier();
    } catch (const CommError &e) {
      error = e.what();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_NO_THROW(late->barrier());
  waiter.join();
  EXPECT_EQ(error, "");
}

TEST(CommunicatorTest, CommunicatorIsTakenOnce) {
  ThreadGroup group(2);
  auto c0 = group.communicator(0);
  EXPECT_EQ(c0->rank(), 0);
  EXPECT_EQ(c0->size(), 2);
  EXPECT_THROW(group.communicator(0), std::logic_error);
  EXPECT_THROW(group.communicator(2), std::invalid_argument);
  EXPECT_THROW(ThreadGroup(0), std::invalid_argument);
}

TEST(CommunicatorTest, StatsCountCallsAndInputBytes) {
  runRanks(2, [&](Communicator &comm) {
    std::vector<float> a(8), b(16);
    comm.allGather(a.data(), 8, b.data());
    comm.allReduce(a.data(), a.data(), 8, ReduceOp::Sum);
    comm.allReduce(a.data(), a.data(), 4, ReduceOp::Max);
    comm.reduceScatter(b.data(), a.data(), 8, ReduceOp::Sum);
    comm.allToAll(b.data(), b.data(), 8);
    comm.broadcast(a.data(), 8, 0);
    comm.barrier();
    const CollectiveStats &s = comm.stats();
    check(s.counts.at("all_gather") == 1, "all_gather count");
    check(s.counts.at("all_reduce") == 2, "all_reduce count");
    check(s.counts.at("reduce_scatter") == 1, "reduce_scatter count");
    check(s.counts.at("all_to_all") == 1, "all_to_all count");
    check(s.counts.at("broadcast") == 1, "broadcast count");
    check(s.counts.at("barrier") == 1, "barrier count");
    // Inputs: 8 + 8 + 4 + 16 + 16 + 8 floats.
    check(s.bytes == 60 * 4, "bytes " + std::to_string(s.bytes));
    comm.resetStats();
    check(comm.stats().counts.empty() && comm.stats().bytes == 0, "reset");
  });
}

TEST(CommunicatorTest, SplitFormsRowAndColumnGroups) {
  // A 2x3 mesh: rows share color rank / 3, columns rank % 3.
  runRanks(6, [&](Communicator &comm) {
    int r = comm.rank();
    std::unique_ptr<Communicator> row = comm.split(r / 3, r);
    std::unique_ptr<Communicator> col = comm.split(r % 3, r);
    check(row->size() == 3 && row->rank() == r % 3, "row rank");
    check(col->size() == 2 && col->rank() == r / 3, "column rank");
    float v = static_cast<float>(r);
    row->allReduce(&v, &v, 1, ReduceOp::Sum);
    check(v == (r < 3 ? 0 + 1 + 2 : 3 + 4 + 5), "row sum");
    float w = static_cast<float>(r);
    col->allReduce(&w, &w, 1, ReduceOp::Sum);
    check(w == (r % 3) * 2 + 3, "column sum");
    // Keys reorder ranks; negative colors opt out.
    std::unique_ptr<Communicator> rev = comm.split(0, -r);
    check(rev->rank() == 5 - r, "key order");
    std::unique_ptr<Communicator> none = comm.split(r == 0 ? -1 : 0, 0);
    check((r == 0) == (none == nullptr), "negative color");
  });
}

TEST(CommunicatorTest, FailureReachesSubCommunicators) {
  std::atomic<int> commErrors{0};
  try {
    runRanks(4, [&](Communicator &comm) {
      auto pair = comm.split(comm.rank() / 2, 0);
      if (comm.rank() == 3)
        throw std::runtime_error("boom");
      try {
        // Rank 2 waits for rank 3 in the sub-group; ranks 0 and 1 then wait
        // for both in the parent.
        pair->barrier();
        comm.barrier();
      } catch (const CommError &e) {
        if (std::string(e.what()) == "rank 3 failed: boom")
          ++commErrors;
        throw;
      }
    });
    FAIL() << "runRanks did not throw";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "boom");
  }
  EXPECT_EQ(commErrors.load(), 3);
}
} // namespace

// More ranks than threads may start fail before any rank runs (a failed
// thread start would otherwise come after thousands of started ones).
TEST(RunRanksTest, RejectsMoreRanksThanTheThreadLimit) {
  std::string why;
  int limit = maxThreadRanks(&why);
  EXPECT_LE(limit, kMaxThreadRanks);
  EXPECT_FALSE(why.empty());
  std::atomic<int> ran{0};
  try {
    runRanks(limit + 1, [&](Communicator &) { ++ran; });
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    EXPECT_EQ(std::string(e.what()),
              std::to_string(limit + 1) +
                  " rank threads requested, more than the limit of " +
                  std::to_string(limit) + " (" + why + ")");
  }
  EXPECT_EQ(ran.load(), 0);
}

// A rank thread that cannot start (here: an address space too small for
// its stack) is named with the limit, not only "Resource temporarily
// unavailable"; the started ranks end, nothing hangs. In a child process,
// whose address-space limit the test lowers; sanitizers reserve their own
// shadow memory and do not run under such a limit.
// (TP_SANITIZED: a sanitizer build, see unittests/Runtime/CMakeLists.txt.)
#if defined(TP_SANITIZED) || defined(__SANITIZE_ADDRESS__) ||                  \
    defined(__SANITIZE_THREAD__)
#define TP_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TP_UNDER_SANITIZER 1
#endif
#endif
TEST(RunRanksDeathTest, ThreadThatCannotStartIsNamed) {
#ifdef TP_UNDER_SANITIZER
  GTEST_SKIP() << "sanitizers do not run under an address-space limit";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // The process's size now plus 64 MiB: room for a few 8 MiB stacks.
        long pages = 0;
        if (FILE *f = std::fopen("/proc/self/statm", "r")) {
          if (std::fscanf(f, "%ld", &pages) != 1)
            pages = 0;
          std::fclose(f);
        }
        struct rlimit as;
        as.rlim_cur = as.rlim_max =
            static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE) + (64 << 20);
        if (pages == 0 || ::setrlimit(RLIMIT_AS, &as) != 0)
          std::_Exit(3);
        try {
          runRanks(64, [](Communicator &comm) { comm.barrier(); });
        } catch (const std::exception &e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::_Exit(0);
        }
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(0),
      "could not start the thread of rank [0-9]+ of 64 \\([0-9]+ started\\): "
      ".*; each rank thread reserves a stack of [0-9]+ MiB \\(ulimit -s\\) "
      "in an address space limited to [0-9]+ MiB \\(ulimit -v\\)");
#endif
}

// Rank threads are the parallelism: while they run, GEMMs are single-threaded
// (OpenBLAS's worker pool is shared by concurrent callers and would
// oversubscribe the cores), and the setting comes back afterwards.
TEST(RunRanksTest, GemmsAreSingleThreadedWhileRanksRun) {
  setBlasThreads(2);
  std::atomic<int> seen{0};
  runRanks(3, [&](Communicator &) {
    if (getBlasThreads() != 1)
      seen = getBlasThreads();
  });
  EXPECT_EQ(seen.load(), 0);
  EXPECT_EQ(getBlasThreads(), 2);
}
