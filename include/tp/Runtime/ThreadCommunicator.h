//===- ThreadCommunicator.h - In-process collectives ------------*- C++ -*-===//
//
// The default `threads` backend: N ranks are N threads of one process that
// meet at a shared rendezvous and copy straight out of each other's buffers.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_THREADCOMMUNICATOR_H
#define TP_RUNTIME_THREADCOMMUNICATOR_H

#include "tp/Runtime/Communicator.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace tp {
namespace runtime {

namespace detail {
struct ThreadWorld;
struct ThreadGroupState;
} // namespace detail

/// The shared state of N in-process ranks.
///
/// Each rank takes its communicator once and calls collectives from its own
/// thread. A collective waits at most the group timeout for the other ranks;
/// past it, or when collectives disagree across ranks, or once fail() was
/// called or a rank finished while others wait for it, every pending and later
/// collective of every rank (sub-communicators included) throws CommError.
class ThreadGroup {
public:
  /// A group of \p n >= 1 ranks whose collectives wait at most \p timeout.
  explicit ThreadGroup(
      int n, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ~ThreadGroup();
  ThreadGroup(const ThreadGroup &) = delete;
  ThreadGroup &operator=(const ThreadGroup &) = delete;

  /// Number of ranks.
  int size() const;

  /// The communicator of \p rank; may be taken once per rank. It stays valid
  /// after the ThreadGroup is destroyed.
  std::unique_ptr<Communicator> communicator(int rank);

  /// Marks the group failed because \p rank failed with \p message: pending
  /// and later collectives throw CommError("rank <rank> failed: <message>").
  /// Only the first failure is kept.
  void fail(int rank, const std::string &message);

  /// Records that \p rank returned and will call no more collectives, so that
  /// peers waiting for it fail at once instead of timing out.
  void finish(int rank);

  /// Whether the group has failed; if so, \p message (when given) receives the
  /// error.
  bool failed(std::string *message = nullptr) const;

private:
  std::shared_ptr<detail::ThreadWorld> world_;
  std::shared_ptr<detail::ThreadGroupState> root_;
};

/// Runs \p fn for ranks 0..n-1 on \p n threads sharing one ThreadGroup and
/// waits for all of them. If a rank throws, the other ranks' pending or next
/// collectives throw CommError ("rank 2 failed: ..."), and once all threads
/// have ended the first exception thrown by any rank is rethrown here.
void runRanks(int n, const std::function<void(Communicator &)> &fn,
              std::chrono::milliseconds timeout = std::chrono::seconds(30));

} // namespace runtime
} // namespace tp

#endif // TP_RUNTIME_THREADCOMMUNICATOR_H
