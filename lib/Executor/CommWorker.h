//===- CommWorker.h - a rank's communication thread -------------*- C++ -*-===//
//
// Private to lib/Executor: the thread on which one rank runs its async
// collectives (Instruction::async), one after another in the order the
// program starts them, so that every rank's thread calls them in the same
// order on its own communicators while the rank's main thread computes. The
// equivalent of the communication stream FSDP2 gathers on, for the host
// backends.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_COMMWORKER_H
#define TP_LIB_EXECUTOR_COMMWORKER_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace mlir::tp::exec::detail {

class CommWorker {
public:
  /// What a task reports: the collectives it called, by name (for the
  /// per-phase counts).
  using Counts = std::map<std::string, int64_t>;

  CommWorker() : thread([this] { loop(); }) {}
  /// Runs the tasks already started to their end (a task blocked on a
  /// failed peer ends when its communicator reports the failure), then
  /// joins.
  ~CommWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_one();
    thread.join();
  }
  CommWorker(const CommWorker &) = delete;
  CommWorker &operator=(const CommWorker &) = delete;

  /// Queues \p task after the ones started before; the future gives its
  /// counts, or rethrows what it threw.
  std::future<Counts> start(std::function<Counts()> task) {
    std::packaged_task<Counts()> job(std::move(task));
    std::future<Counts> done = job.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(std::move(job));
    }
    wake.notify_one();
    return done;
  }

private:
  void loop() {
    for (;;) {
      std::packaged_task<Counts()> job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty())
          return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
    }
  }

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::packaged_task<Counts()>> queue;
  bool stopping = false;
  std::thread thread;
};

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_COMMWORKER_H
