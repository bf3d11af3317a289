//===- CommWorkerTest.cpp - a rank's communication thread -------*- C++ -*-===//
//
// The executor's CommWorker (lib/Executor/CommWorker.h): tasks run one
// after another in the order they were started, on one thread other than
// the caller's; tickets are waited for in any order; a task's exception
// reaches the one who waits for it; the destructor runs what was started
// before it joins.
//
//===----------------------------------------------------------------------===//

#include "CommWorker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using ::mlir::tp::exec::detail::CommWorker;

TEST(CommWorker, RunsTasksInOrderOnItsOwnThread) {
  std::vector<int> order;
  std::thread::id caller = std::this_thread::get_id(), seen;
  std::vector<CommWorker::Ticket> done;
  {
    CommWorker worker;
    for (int i = 0; i < 5; ++i)
      done.push_back(worker.start([&, i] {
        // Only the worker's thread touches `order` until the waits.
        order.push_back(i);
        seen = std::this_thread::get_id();
        return CommWorker::Counts{{"all_gather", i}};
      }));
    // Waited for out of order: each ticket gets its own task's counts.
    for (int i : {3, 0, 4, 1, 2})
      EXPECT_EQ(worker.wait(done[i]).at("all_gather"), i);
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_NE(seen, caller);
}

TEST(CommWorker, ATasksErrorReachesItsWaiter) {
  CommWorker worker;
  auto failed = worker.start([]() -> CommWorker::Counts {
    throw std::runtime_error("rank 1 failed: boom");
  });
  auto after = worker.start([] { return CommWorker::Counts{{"x", 1}}; });
  try {
    worker.wait(failed);
    FAIL() << "the task's error was lost";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "rank 1 failed: boom");
  }
  // The thread goes on with the tasks after it.
  EXPECT_EQ(worker.wait(after).at("x"), 1);
}

TEST(CommWorker, DestructorRunsWhatWasStarted) {
  std::atomic<int> ran{0};
  {
    CommWorker worker;
    for (int i = 0; i < 3; ++i)
      (void)worker.start([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        ++ran;
        return CommWorker::Counts{};
      });
  }
  EXPECT_EQ(ran.load(), 3);
}
