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

namespace mlir::tp {
namespace runtime {

namespace detail {
struct ThreadWorld;
struct ThreadGroupState;
} // namespace detail

/// How the collectives of a ThreadGroup move and reduce data between the
/// ranks' buffers. The default (hostBufferOps()) works on host memory with
/// memcpy; the CUDA library's deviceBufferOps() (tp/Runtime/CUDA.h) works on
/// device memory so that several rank threads can share one GPU. Every
/// function is called on the thread of the rank it works for.
class ThreadBufferOps {
public:
  virtual ~ThreadBufferOps();
  /// Called at the start of every collective before this rank publishes its
  /// buffers to its peers: once it returns, whatever writes those buffers
  /// must have finished (on a GPU: the rank's stream is synchronized). May
  /// throw; nothing has been exchanged yet.
  virtual void prepare() {}
  /// Copies \p bytes bytes from \p src to \p dst (disjoint). May complete
  /// asynchronously until finish(); must not throw.
  virtual void copy(void *dst, const void *src, size_t bytes) = 0;
  /// dst[i] = srcs[0][i] op srcs[1][i] op ... for \p count elements of
  /// \p dtype, in rank order and accumulating in f32 (Avg: the sum divided
  /// by \p n), so that every rank gets bitwise identical results; \p dst may
  /// alias any source. May complete asynchronously until finish(); must not
  /// throw.
  virtual void reduce(void *dst, const void *const *srcs, size_t n,
                      size_t count, DType dtype, ReduceOp op) = 0;
  /// Waits for the copies and reductions issued so far on this thread and
  /// returns "" or a description of what failed. Must not throw.
  virtual std::string finish() { return ""; }
  /// A scratch buffer of \p bytes bytes (suitably aligned for any dtype) in
  /// the same memory as the ranks' buffers; called outside the rendezvous,
  /// so it may throw.
  virtual void *allocate(size_t bytes) = 0;
  /// Frees a buffer from allocate().
  virtual void deallocate(void *buffer) noexcept = 0;
};

/// The default buffer operations, on host memory.
std::shared_ptr<ThreadBufferOps> hostBufferOps();

/// The shared state of N in-process ranks.
///
/// Each rank takes its communicator once and calls collectives from its own
/// thread. A collective waits at most the group timeout for the other ranks;
/// past it, or when collectives disagree across ranks, or once fail() was
/// called or a rank finished while others wait for it, every pending and later
/// collective of every rank (sub-communicators included) throws CommError.
class ThreadGroup {
public:
  /// A group of \p n >= 1 ranks whose collectives wait at most \p timeout
  /// and move data with \p ops (null: hostBufferOps()).
  explicit ThreadGroup(
      int n, std::chrono::milliseconds timeout = std::chrono::seconds(30),
      std::shared_ptr<ThreadBufferOps> ops = nullptr);
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

/// The most rank threads runRanks starts: 4096, or fewer when the process
/// limit (RLIMIT_NPROC) is lower.
constexpr int kMaxThreadRanks = 4096;

/// The most rank threads runRanks may start here (see kMaxThreadRanks);
/// \p why (when given) receives where the limit comes from.
int maxThreadRanks(std::string *why = nullptr);

/// Runs \p fn for ranks 0..n-1 on \p n threads sharing one ThreadGroup and
/// waits for all of them. If a rank throws, the other ranks' pending or next
/// collectives throw CommError ("rank 2 failed: ..."), and once all threads
/// have ended the first exception thrown by any rank is rethrown here.
/// The buffers passed to the collectives are in the memory \p ops works on
/// (null: host memory). More than maxThreadRanks() ranks throw
/// std::invalid_argument before any thread starts.
void runRanks(int n, const std::function<void(Communicator &)> &fn,
              std::chrono::milliseconds timeout = std::chrono::seconds(30),
              std::shared_ptr<ThreadBufferOps> ops = nullptr);

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_THREADCOMMUNICATOR_H
