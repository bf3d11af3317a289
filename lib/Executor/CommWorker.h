//===- CommWorker.h - a rank's communication thread -------------*- C++ -*-===//
//
// Private to lib/Executor: the thread on which one rank runs its async
// collectives (Instruction::async), one after another in the order the
// program starts them, so that every rank's thread calls them in the same
// order on its own communicators while the rank's main thread computes. The
// equivalent of the communication stream FSDP2 gathers on, for the host
// backends.
//
// Tasks hand their results back through a mutex and a condition variable,
// not std::future: libstdc++'s future signals completion through a futex
// inside its own (uninstrumented) code, so that ThreadSanitizer, seeing
// the instrumented copy of the future's internals that this file would
// instantiate, reports the futures of MLIR's thread pool (the parallel
// verifier) as races. A mutex it sees.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTOR_COMMWORKER_H
#define TP_LIB_EXECUTOR_COMMWORKER_H

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#ifdef __linux__
#include <sched.h>
#endif

namespace mlir::tp::exec::detail {

class CommWorker {
public:
  /// What a task reports: the collectives it called, by name (for the
  /// per-phase counts).
  using Counts = std::map<std::string, int64_t>;
  /// Names a started task for wait().
  using Ticket = uint64_t;

  CommWorker() : thread([this] { loop(); }) {}
  /// Runs the tasks already started to their end (a task blocked on a
  /// failed peer ends when its communicator reports the failure), then
  /// joins.
  ~CommWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    thread.join();
  }
  CommWorker(const CommWorker &) = delete;
  CommWorker &operator=(const CommWorker &) = delete;

  /// Queues \p task after the ones started before.
  Ticket start(std::function<Counts()> task) {
    Ticket ticket;
    {
      std::lock_guard<std::mutex> lock(mutex);
      ticket = nextTicket++;
      queue.push_back({ticket, std::move(task)});
    }
    wake.notify_all();
    return ticket;
  }

  /// Blocks until task \p ticket has run; returns its counts, or rethrows
  /// what it threw. Each ticket is waited for at most once.
  Counts wait(Ticket ticket) {
    std::unique_lock<std::mutex> lock(mutex);
    wake.wait(lock, [&] { return finished.count(ticket) != 0; });
    auto it = finished.find(ticket);
    Result result = std::move(it->second);
    finished.erase(it);
    lock.unlock();
    if (result.error)
      std::rethrow_exception(result.error);
    return std::move(result.counts);
  }

private:
  struct Job {
    Ticket ticket;
    std::function<Counts()> task;
  };
  struct Result {
    Counts counts;
    std::exception_ptr error;
  };

  void loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty())
          return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      Result result;
      try {
        result.counts = job.task();
      } catch (...) {
        result.error = std::current_exception();
      }
      // The task (and what it captured) goes before its waiter wakes.
      job.task = nullptr;
      {
        std::lock_guard<std::mutex> lock(mutex);
        finished.emplace(job.ticket, std::move(result));
      }
      wake.notify_all();
    }
  }

  std::mutex mutex;
  /// Signals both ways: a task queued or stopping (to the thread), a task
  /// finished (to the waiters).
  std::condition_variable wake;
  std::deque<Job> queue;
  std::map<Ticket, Result> finished;
  Ticket nextTicket = 0;
  bool stopping = false;
  std::thread thread;
};

/// The cores this process may run on (its CPU affinity; all online cores
/// where that is unknown).
inline int usableCores() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Whether a rank runs its async collectives on a communication thread
/// (overlapped with its compute) rather than where they stand: when each of
/// the \p ranksSharingCores ranks computing on this machine has a second
/// core for its thread. Where the ranks already use every core, the thread
/// only competes with them, and each hand-off (a wake-up of the thread, one
/// of the waiting rank) costs tens of microseconds: on a 2-core VM a small
/// model's training step took 1.8x as long with it (docs/benchmarks.md,
/// "The communication thread on a busy machine").
/// TP_OVERLAP_COLLECTIVES=1 or 0 forces the choice; any other value throws
/// std::invalid_argument naming it.
inline bool overlapCollectives(int ranksSharingCores) {
  if (const char *v = std::getenv("TP_OVERLAP_COLLECTIVES"); v && *v) {
    std::string s(v);
    if (s == "1")
      return true;
    if (s == "0")
      return false;
    throw std::invalid_argument("TP_OVERLAP_COLLECTIVES must be 1 or 0, not '" +
                                s + "'");
  }
  return 2 * static_cast<int64_t>(ranksSharingCores) <= usableCores();
}

} // namespace mlir::tp::exec::detail

#endif // TP_LIB_EXECUTOR_COMMWORKER_H
