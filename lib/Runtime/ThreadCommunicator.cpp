//===- ThreadCommunicator.cpp - Threads backend -----------------*- C++ -*-===//
//
// A rendezvous per group: ranks publish their buffer pointers, the last one to
// arrive checks that all called the same collective, then every rank copies or
// reduces its share directly from the peers' buffers. The copies and
// reductions go through a ThreadBufferOps, on host memory by default or on
// device memory (the CUDA library's deviceBufferOps).
//
// Ranks count their arrival on one atomic word and wait by spinning on it for
// a bounded time before they sleep on a condition variable: a futex sleep and
// wake-up costs tens of microseconds, far more than a small collective.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/ThreadCommunicator.h"
#include "tp/Runtime/Kernels.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/resource.h>

using namespace mlir::tp::runtime;
using Clock = std::chrono::steady_clock;

namespace {
/// What one rank asked for (compared across ranks to detect mismatches),
/// the split arguments, and its buffers.
struct Call : CollectiveCall {
  Call() = default;
  Call(const CollectiveCall &call, const void *in, void *out)
      : CollectiveCall(call), in(in), out(out) {}
  int color = 0, key = 0;
  const void *in = nullptr;
  void *out = nullptr;
};

std::string rankList(const std::vector<int> &ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i)
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

/// Buffer operations on host memory.
class HostBufferOps final : public ThreadBufferOps {
public:
  void copy(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void reduce(void *dst, const void *const *srcs, size_t n, size_t count,
              DType dtype, ReduceOp op) override {
    reduceBuffers(dst, srcs, n, count, dtype, op);
  }
  void *allocate(size_t bytes) override { return ::operator new(bytes); }
  void deallocate(void *buffer) noexcept override { ::operator delete(buffer); }
};

/// A scratch buffer from ThreadBufferOps::allocate, or none.
class Scratch {
public:
  Scratch(ThreadBufferOps &ops, size_t bytes)
      : ops(ops),
        buffer(bytes ? static_cast<char *>(ops.allocate(bytes)) : nullptr) {}
  ~Scratch() {
    if (buffer)
      ops.deallocate(buffer);
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  char *get() const { return buffer; }
  explicit operator bool() const { return buffer != nullptr; }

private:
  ThreadBufferOps &ops;
  char *buffer;
};
} // namespace

ThreadBufferOps::~ThreadBufferOps() = default;

std::shared_ptr<ThreadBufferOps> mlir::tp::runtime::hostBufferOps() {
  static std::shared_ptr<ThreadBufferOps> ops =
      std::make_shared<HostBufferOps>();
  return ops;
}

namespace {
/// How long a waiting rank polls at most before it sleeps: a few futex sleeps
/// and wake-ups. Each rank adapts its own limit between these bounds: halved
/// after a poll that ended in sleep, doubled after one that did not. A peer
/// that is late (it computes, or waits for a core on a busy machine) makes
/// polling a waste of a core.
constexpr std::chrono::nanoseconds maxSpinTime = std::chrono::microseconds(50);
constexpr std::chrono::nanoseconds minSpinTime = std::chrono::microseconds(1);

/// Tells the core that this is a spin-wait loop.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}
} // namespace

namespace mlir::tp {
namespace runtime {
namespace detail {
/// State shared by every group of one ThreadGroup: one lock, one condition
/// variable, and the failure that stops all of them.
struct ThreadWorld {
  ThreadWorld(int n, std::chrono::milliseconds timeout,
              std::shared_ptr<ThreadBufferOps> ops)
      : timeout(timeout), ops(std::move(ops)),
        spin(static_cast<unsigned>(n) <= std::thread::hardware_concurrency()),
        finished(n, false), handedOut(n, false) {}

  std::mutex mu;
  std::condition_variable cv;
  const std::chrono::milliseconds timeout;
  /// How every group of this world moves data.
  const std::shared_ptr<ThreadBufferOps> ops;
  /// Whether waiting ranks spin before they sleep: only when every rank can
  /// have a core, or the spinning would keep the awaited ranks off the cores.
  const bool spin;
  /// Ranks that sleep, or are about to, on cv. Completing a sync point takes
  /// mu to notify only when this is nonzero; the increment and the load of
  /// the group state in ThreadGroupState::await, and the store of the state
  /// and the load of this in complete(), are seq_cst so that either the
  /// completer sees the sleeper or the sleeper sees the completion.
  std::atomic<int> sleepers{0};
  /// Written under mu; read without it by ranks that spin.
  std::atomic<bool> failed{false};
  std::string error;
  std::vector<bool> finished;  ///< By global rank.
  std::vector<bool> handedOut; ///< By global rank.

  /// Records the first failure and wakes every waiter. Requires mu held.
  void setFailed(std::string message) {
    if (failed)
      return;
    failed = true;
    error = std::move(message);
    cv.notify_all();
  }
};

/// The rendezvous of one communicator (the root group or a split of it).
struct ThreadGroupState {
  ThreadGroupState(std::shared_ptr<ThreadWorld> world, std::vector<int> members)
      : world(std::move(world)), members(std::move(members)),
        calls(this->members.size()),
        packed(CollectiveCall::kPackedSize * this->members.size()),
        arrivedAt(new std::atomic<uint32_t>[this->members.size()]()),
        spinTime(this->members.size(), maxSpinTime),
        splitGroups(this->members.size()),
        splitRanks(this->members.size(), -1) {}

  int size() const { return static_cast<int>(members.size()); }

  /// Entry of a collective: publishes \p call and waits for all ranks. Throws
  /// CommError if the group failed, the calls disagree, or a peer does not
  /// arrive in time; once this returns, every rank is committed to the
  /// collective and will reach the later sync points.
  void arrive(int rank, const Call &call);

  /// A sync point inside a collective that every rank is known to reach; it
  /// ignores failures so that no rank leaves while peers read its buffers.
  void sync(int rank);

  /// Waits for this rank's pending buffer operations, then sync(). An error
  /// of the buffer operations fails the whole world (later collectives of
  /// every rank throw) and is appended to \p error, which the caller throws
  /// once it has passed its last sync point.
  void finishAndSync(int rank, std::string &error);

  std::shared_ptr<ThreadWorld> world;
  std::vector<int> members; ///< Global rank of each local rank.
  std::vector<Call> calls;  ///< Published at arrive, read until departure.
  /// The calls packed for the comparison, by the last arriver.
  std::vector<int64_t> packed;
  /// The generation (the number of completed sync points, modulo 2^32) in
  /// the high half and the number of ranks at the current sync point in the
  /// low half. One word, so that a rank that gives up can take back its
  /// arrival exactly while the sync point cannot complete without it.
  std::atomic<uint64_t> state{0};
  /// arrivedAt[q] == g + 1 once local rank q has arrived at the collective
  /// that completes generation g; only for the names in error messages.
  std::unique_ptr<std::atomic<uint32_t>[]> arrivedAt;
  /// How long each local rank polls before it sleeps (see maxSpinTime);
  /// only the rank's own thread touches its entry.
  std::vector<std::chrono::nanoseconds> spinTime;
  /// Set by the last arriver when the calls disagree; stays valid until the
  /// waiters of that generation have read it since nobody can arrive again
  /// before them.
  std::string arriveError;
  std::vector<std::shared_ptr<ThreadGroupState>> splitGroups;
  std::vector<int> splitRanks;

private:
  static uint32_t generationOf(uint64_t s) {
    return static_cast<uint32_t>(s >> 32);
  }
  static uint32_t countOf(uint64_t s) { return static_cast<uint32_t>(s); }
  /// Counts this rank in at the current sync point; returns its generation
  /// and whether this rank was the last to arrive.
  std::pair<uint32_t, bool> count(int rank);
  /// Completes the sync point of generation \p gen (by its last arriver).
  void complete(uint32_t gen);
  /// Waits until generation \p gen completes. With \p call (at arrive), it
  /// gives up and throws CommError when the world fails, a missing rank has
  /// finished, or the timeout passes, unless the last rank has arrived.
  void await(int rank, uint32_t gen, const Call *call);
  /// Polls for at most \p limit until generation \p gen completes (returns
  /// true) or, with \p watchFailure, the world fails.
  bool spinUntilComplete(uint32_t gen, bool watchFailure,
                         Clock::time_point start,
                         std::chrono::nanoseconds limit) const;
  /// Takes back this rank's arrival at generation \p gen unless every rank
  /// has arrived; returns whether it did.
  bool withdraw(int rank, uint32_t gen);
  std::string checkCalls();
  void buildSplit();
};
} // namespace detail
} // namespace runtime
} // namespace mlir::tp

using detail::ThreadGroupState;
using detail::ThreadWorld;

std::string ThreadGroupState::checkCalls() {
  for (int q = 0; q < size(); ++q)
    calls[q].pack(packed.data() + CollectiveCall::kPackedSize * q);
  return collectiveMismatch(packed.data(), size(), members.data());
}

void ThreadGroupState::buildSplit() {
  std::vector<int> order(size());
  for (int q = 0; q < size(); ++q)
    order[q] = q;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (calls[a].color != calls[b].color)
      return calls[a].color < calls[b].color;
    return calls[a].key < calls[b].key;
  });
  for (size_t begin = 0; begin < order.size();) {
    int color = calls[order[begin]].color;
    size_t end = begin;
    while (end < order.size() && calls[order[end]].color == color)
      ++end;
    if (color >= 0) {
      std::vector<int> members;
      for (size_t i = begin; i < end; ++i)
        members.push_back(this->members[order[i]]);
      auto group = std::make_shared<ThreadGroupState>(world, members);
      for (size_t i = begin; i < end; ++i) {
        splitGroups[order[i]] = group;
        splitRanks[order[i]] = static_cast<int>(i - begin);
      }
    }
    begin = end;
  }
}

std::pair<uint32_t, bool> ThreadGroupState::count(int rank) {
  // Nobody else can complete this rank's current generation: relaxed is
  // enough, this rank already synchronized with its last completion.
  uint32_t gen = generationOf(state.load(std::memory_order_relaxed));
  arrivedAt[rank].store(gen + 1, std::memory_order_relaxed);
  // acq_rel: the last arriver sees every rank's call, and through it the
  // ranks it releases do.
  uint64_t before = state.fetch_add(1, std::memory_order_acq_rel);
  return {gen, countOf(before) + 1 == static_cast<uint32_t>(size())};
}

void ThreadGroupState::complete(uint32_t gen) {
  uint32_t next = gen + 1;
  state.store(static_cast<uint64_t>(next) << 32);
  if (world->sleepers.load() > 0) {
    std::lock_guard<std::mutex> lock(world->mu);
    world->cv.notify_all();
  }
}

bool ThreadGroupState::spinUntilComplete(uint32_t gen, bool watchFailure,
                                         Clock::time_point start,
                                         std::chrono::nanoseconds limit) const {
  // No sched_yield: when other processes want the core, a yield gives it away
  // for a whole time slice (milliseconds), a futex sleep for much less.
  for (unsigned i = 1;; ++i) {
    if (generationOf(state.load(std::memory_order_acquire)) != gen)
      return true;
    if (watchFailure && world->failed.load(std::memory_order_relaxed))
      return false;
    cpuRelax();
    if (i % 64 == 0 && Clock::now() - start > limit)
      return false;
  }
}

bool ThreadGroupState::withdraw(int rank, uint32_t gen) {
  uint64_t s = state.load();
  while (generationOf(s) == gen && countOf(s) < static_cast<uint32_t>(size()))
    if (state.compare_exchange_weak(s, s - 1)) {
      arrivedAt[rank].store(gen, std::memory_order_relaxed);
      return true;
    }
  return false;
}

void ThreadGroupState::await(int rank, uint32_t gen, const Call *call) {
  ThreadWorld &w = *world;
  Clock::time_point start = Clock::now();
  if (w.spin) {
    std::chrono::nanoseconds &limit = spinTime[rank];
    if (spinUntilComplete(gen, call != nullptr, start, limit)) {
      if (limit < maxSpinTime)
        limit = std::min(2 * limit, maxSpinTime);
      return;
    }
    limit = std::max(limit / 2, minSpinTime);
  }
  std::unique_lock<std::mutex> lock(w.mu);
  struct Sleeper {
    std::atomic<int> &sleepers;
    explicit Sleeper(std::atomic<int> &s) : sleepers(s) { ++sleepers; }
    ~Sleeper() { --sleepers; }
  } sleeper(w.sleepers);
  Clock::time_point deadline = deadlineAfter(start, w.timeout);
  bool mayLeave = call != nullptr;
  while (generationOf(state.load()) == gen) {
    if (!mayLeave) {
      w.cv.wait(lock);
      continue;
    }
    std::string why;
    if (!w.failed) {
      std::vector<int> missing, gone;
      for (int q = 0; q < size(); ++q) {
        if (arrivedAt[q].load(std::memory_order_relaxed) == gen + 1)
          continue;
        missing.push_back(members[q]);
        if (w.finished[members[q]])
          gone.push_back(members[q]);
      }
      if (!gone.empty())
        why = rankList(gone) + " finished without calling " + call->describe();
      else if (Clock::now() >= deadline)
        why = "timeout after " + std::to_string(w.timeout.count()) + " ms in " +
              call->describe() + " on rank " + std::to_string(members[rank]) +
              ": " + rankList(missing) + " did not arrive";
    }
    if (w.failed || !why.empty()) {
      if (withdraw(rank, gen)) {
        if (!why.empty())
          w.setFailed(why);
        throw CommError(w.error);
      }
      // The last rank has arrived: this one is committed to the collective,
      // whose completion is on its way.
      mayLeave = false;
      continue;
    }
    w.cv.wait_until(lock, deadline);
  }
}

void ThreadGroupState::arrive(int rank, const Call &call) {
  ThreadWorld &w = *world;
  if (w.failed) {
    std::lock_guard<std::mutex> lock(w.mu);
    throw CommError(w.error);
  }
  calls[rank] = call;
  auto [gen, last] = count(rank);
  if (last) {
    arriveError = checkCalls();
    if (arriveError.empty() && call.kind == CollectiveKind::Split)
      buildSplit();
    if (!arriveError.empty()) {
      std::lock_guard<std::mutex> lock(w.mu);
      w.setFailed(arriveError);
    }
    complete(gen);
    if (!arriveError.empty())
      throw CommError(arriveError);
    return;
  }
  await(rank, gen, &call);
  if (!arriveError.empty())
    throw CommError(arriveError);
}

void ThreadGroupState::sync(int rank) {
  auto [gen, last] = count(rank);
  if (last)
    complete(gen);
  else
    await(rank, gen, nullptr);
}

void ThreadGroupState::finishAndSync(int rank, std::string &error) {
  std::string failure = world->ops->finish();
  if (!failure.empty()) {
    std::lock_guard<std::mutex> lock(world->mu);
    world->setFailed("rank " + std::to_string(members[rank]) + ": " + failure);
    if (error.empty())
      error = world->error;
  }
  sync(rank);
}

namespace {
/// Throws CommError(\p error) unless it is empty.
void throwIf(const std::string &error) {
  if (!error.empty())
    throw CommError(error);
}

/// One rank's view of a ThreadGroupState.
class ThreadCommunicator final : public Communicator {
public:
  ThreadCommunicator(std::shared_ptr<ThreadGroupState> group, int rank)
      : group(std::move(group)), myRank(rank) {}

  int rank() const override { return myRank; }
  int size() const override { return group->size(); }
  /// Each group has its own rendezvous: a rank's threads may wait in two
  /// groups at once.
  bool allowsConcurrentThreads() const override { return true; }
  int ranksSharingCores() const override {
    return static_cast<int>(group->world->finished.size());
  }

private:
  void doAllGather(const CollectiveCall &call, const void *in,
                   void *out) override;
  void doAllReduce(const CollectiveCall &call, const void *in,
                   void *out) override;
  void doReduceScatter(const CollectiveCall &call, const void *in,
                       void *out) override;
  void doAllToAll(const CollectiveCall &call, const void *in,
                  void *out) override;
  void doBroadcast(const CollectiveCall &call, void *buf) override;
  void doBarrier(const CollectiveCall &call) override;
  std::unique_ptr<Communicator> doSplit(const CollectiveCall &call, int color,
                                        int key) override;
  /// The end of a collective that wrote its \p bytes of result to
  /// \p staging, when that has a buffer, instead of \p out: waits for the
  /// peers to finish reading this rank's buffers, then copies the result.
  void depart(const Scratch &staging, char *out, size_t bytes);

  std::shared_ptr<ThreadGroupState> group;
  int myRank;
};

const char *bytesOf(const void *p) { return static_cast<const char *>(p); }
char *bytesOf(void *p) { return static_cast<char *>(p); }
} // namespace

void ThreadCommunicator::depart(const Scratch &staging, char *out,
                                size_t bytes) {
  std::string error;
  group->finishAndSync(myRank, error);
  throwIf(error);
  if (staging) {
    ThreadBufferOps &ops = *group->world->ops;
    ops.copy(out, staging.get(), bytes);
    throwIf(ops.finish());
  }
}

void ThreadCommunicator::doAllGather(const CollectiveCall &c, const void *inPtr,
                                     void *outPtr) {
  size_t count = c.count, bytes = count * dtypeSize(c.dtype);
  int n = size();
  Call call(c, inPtr, outPtr);
  const char *in = bytesOf(inPtr);
  char *out = bytesOf(outPtr);
  // Writing into out while peers read in is safe only if in is exactly this
  // rank's block of out (which nobody overwrites) or disjoint from out.
  bool inPlace = in == out + myRank * bytes;
  ThreadBufferOps &ops = *group->world->ops;
  Scratch staging(
      ops, !inPlace && bytesOverlap(in, bytes, out, n * bytes) ? n * bytes : 0);
  char *dst = staging ? staging.get() : out;
  ops.prepare();
  group->arrive(myRank, call);
  for (int p = 0; p < n; ++p) {
    const char *src = bytesOf(group->calls[p].in);
    if (count && src != dst + p * bytes)
      ops.copy(dst + p * bytes, src, bytes);
  }
  depart(staging, out, n * bytes);
}

void ThreadCommunicator::doAllReduce(const CollectiveCall &c, const void *inPtr,
                                     void *outPtr) {
  size_t count = c.count, es = dtypeSize(c.dtype), bytes = count * es;
  int n = size();
  const char *in = bytesOf(inPtr);
  char *out = bytesOf(outPtr);
  ThreadBufferOps &ops = *group->world->ops;
  ops.prepare();
  // A partial overlap would let this rank's result clobber input that peers
  // still read; reduce from a private copy instead.
  Scratch copy(ops,
               in != out && bytesOverlap(in, bytes, out, bytes) ? bytes : 0);
  if (copy) {
    ops.copy(copy.get(), in, bytes);
    throwIf(ops.finish());
    in = copy.get();
  }
  Call call(c, in, out);
  std::vector<const void *> srcs(n);
  group->arrive(myRank, call);
  // Reduce-scatter then all-gather: rank r reduces slice r of everybody's
  // input into its own output, then everybody copies the reduced slices. In
  // place is safe because only rank r reads or writes slice r in phase one.
  auto sliceBegin = [&](int r) { return count * r / n; };
  size_t begin = sliceBegin(myRank), end = sliceBegin(myRank + 1);
  for (int p = 0; p < n; ++p)
    srcs[p] = bytesOf(group->calls[p].in) + begin * es;
  if (end > begin)
    ops.reduce(out + begin * es, srcs.data(), n, end - begin, c.dtype, c.op);
  std::string error;
  group->finishAndSync(myRank, error);
  for (int p = 0; p < n; ++p) {
    size_t b = sliceBegin(p), e = sliceBegin(p + 1);
    if (p != myRank && e > b)
      ops.copy(out + b * es, bytesOf(group->calls[p].out) + b * es,
               (e - b) * es);
  }
  group->finishAndSync(myRank, error);
  throwIf(error);
}

void ThreadCommunicator::doReduceScatter(const CollectiveCall &c,
                                         const void *inPtr, void *outPtr) {
  int n = size();
  size_t countPerRank = c.count, bytes = countPerRank * dtypeSize(c.dtype);
  Call call(c, inPtr, outPtr);
  char *out = bytesOf(outPtr);
  ThreadBufferOps &ops = *group->world->ops;
  Scratch staging(ops, bytesOverlap(inPtr, n * bytes, out, bytes) ? bytes : 0);
  char *dst = staging ? staging.get() : out;
  std::vector<const void *> srcs(n);
  ops.prepare();
  group->arrive(myRank, call);
  for (int p = 0; p < n; ++p)
    srcs[p] = bytesOf(group->calls[p].in) + myRank * bytes;
  if (countPerRank)
    ops.reduce(dst, srcs.data(), n, countPerRank, c.dtype, c.op);
  depart(staging, out, bytes);
}

void ThreadCommunicator::doAllToAll(const CollectiveCall &c, const void *inPtr,
                                    void *outPtr) {
  int n = size();
  size_t countPerRank = c.count, bytes = countPerRank * dtypeSize(c.dtype);
  Call call(c, inPtr, outPtr);
  char *out = bytesOf(outPtr);
  ThreadBufferOps &ops = *group->world->ops;
  Scratch staging(
      ops, bytesOverlap(inPtr, n * bytes, out, n * bytes) ? n * bytes : 0);
  char *dst = staging ? staging.get() : out;
  ops.prepare();
  group->arrive(myRank, call);
  if (countPerRank)
    for (int p = 0; p < n; ++p)
      ops.copy(dst + p * bytes, bytesOf(group->calls[p].in) + myRank * bytes,
               bytes);
  depart(staging, out, n * bytes);
}

void ThreadCommunicator::doBroadcast(const CollectiveCall &c, void *buf) {
  size_t count = c.count, bytes = count * dtypeSize(c.dtype);
  int root = c.root;
  Call call(c, buf, buf);
  ThreadBufferOps &ops = *group->world->ops;
  ops.prepare();
  group->arrive(myRank, call);
  if (myRank != root && count)
    ops.copy(buf, group->calls[root].in, bytes);
  std::string error;
  group->finishAndSync(myRank, error);
  throwIf(error);
}

void ThreadCommunicator::doBarrier(const CollectiveCall &c) {
  group->arrive(myRank, Call(c, nullptr, nullptr));
}

std::unique_ptr<Communicator>
ThreadCommunicator::doSplit(const CollectiveCall &c, int color, int key) {
  Call call(c, nullptr, nullptr);
  call.color = color;
  call.key = key;
  group->arrive(myRank, call);
  // The results stay put until this rank arrives at another collective.
  std::shared_ptr<ThreadGroupState> sub;
  int subRank;
  {
    std::lock_guard<std::mutex> lock(group->world->mu);
    sub = std::move(group->splitGroups[myRank]);
    subRank = group->splitRanks[myRank];
  }
  if (!sub)
    return nullptr;
  return std::make_unique<ThreadCommunicator>(std::move(sub), subRank);
}

ThreadGroup::ThreadGroup(int n, std::chrono::milliseconds timeout,
                         std::shared_ptr<ThreadBufferOps> ops) {
  if (n < 1)
    throw std::invalid_argument("ThreadGroup needs at least one rank, got " +
                                std::to_string(n));
  world_ = std::make_shared<ThreadWorld>(
      n, timeout, ops ? std::move(ops) : hostBufferOps());
  std::vector<int> members(n);
  for (int r = 0; r < n; ++r)
    members[r] = r;
  root_ = std::make_shared<ThreadGroupState>(world_, std::move(members));
}

ThreadGroup::~ThreadGroup() = default;

int ThreadGroup::size() const { return root_->size(); }

std::unique_ptr<Communicator> ThreadGroup::communicator(int rank) {
  if (rank < 0 || rank >= size())
    throw std::invalid_argument("rank " + std::to_string(rank) +
                                " out of range for " + std::to_string(size()) +
                                " ranks");
  {
    std::lock_guard<std::mutex> lock(world_->mu);
    if (world_->handedOut[rank])
      throw std::logic_error("communicator of rank " + std::to_string(rank) +
                             " was already taken");
    world_->handedOut[rank] = true;
  }
  return std::make_unique<ThreadCommunicator>(root_, rank);
}

void ThreadGroup::fail(int rank, const std::string &message) {
  std::lock_guard<std::mutex> lock(world_->mu);
  world_->setFailed("rank " + std::to_string(rank) + " failed: " + message);
}

void ThreadGroup::finish(int rank) {
  std::lock_guard<std::mutex> lock(world_->mu);
  world_->finished.at(rank) = true;
  world_->cv.notify_all();
}

bool ThreadGroup::failed(std::string *message) const {
  std::lock_guard<std::mutex> lock(world_->mu);
  if (world_->failed && message)
    *message = world_->error;
  return world_->failed;
}

int mlir::tp::runtime::maxThreadRanks(std::string *why) {
  int limit = kMaxThreadRanks;
  std::string source = "tp's limit of rank threads";
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur < static_cast<rlim_t>(limit)) {
    limit = static_cast<int>(rl.rlim_cur);
    source = "RLIMIT_NPROC, ulimit -u";
  }
  if (why)
    *why = source;
  return limit;
}

/// Why rank thread `rank` of `n` did not start, with what limits it: the
/// system's bare "Resource temporarily unavailable" names neither the
/// thread nor the limit.
static std::string threadStartFailure(int rank, int n,
                                      const std::exception &e) {
  std::string text = "could not start the thread of rank " +
                     std::to_string(rank) + " of " + std::to_string(n) + " (" +
                     std::to_string(rank) + " started): " + e.what();
  auto *system = dynamic_cast<const std::system_error *>(&e);
  if (!system || system->code() != std::errc::resource_unavailable_try_again)
    return text;
  // Each thread reserves its stack in the address space.
  size_t stack = 0;
  pthread_attr_t attr;
  if (::pthread_attr_init(&attr) == 0) {
    ::pthread_attr_getstacksize(&attr, &stack);
    ::pthread_attr_destroy(&attr);
  }
  auto mib = [](uint64_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
  };
  text +=
      "; each rank thread reserves a stack of " + mib(stack) + " (ulimit -s)";
  struct rlimit as;
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    text +=
        " in an address space limited to " + mib(as.rlim_cur) + " (ulimit -v)";
  return text + ", and the system limits threads (ulimit -u, "
                "/proc/sys/kernel/threads-max): run fewer ranks, or raise "
                "the limit";
}

void mlir::tp::runtime::runRanks(int n,
                                 const std::function<void(Communicator &)> &fn,
                                 std::chrono::milliseconds timeout,
                                 std::shared_ptr<ThreadBufferOps> ops) {
  // Before any thread starts: a failed start leaves the started ones to be
  // failed and joined, and may exhaust the process's threads first.
  std::string why;
  int limit = maxThreadRanks(&why);
  if (n > limit)
    throw std::invalid_argument(
        std::to_string(n) + " rank threads requested, more than the limit of " +
        std::to_string(limit) + " (" + why + ")");
  ThreadGroup group(n, timeout, std::move(ops));
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < n; ++r)
    comms.push_back(group.communicator(r));
  // The ranks are the parallelism: GEMMs on one thread each.
  std::optional<SingleThreadedBlas> blas;
  if (n > 1)
    blas.emplace();

  std::mutex errorMu;
  std::exception_ptr firstError;
  auto body = [&](int r) {
    std::string message;
    std::exception_ptr error;
    try {
      fn(*comms[r]);
      group.finish(r);
      return;
    } catch (const std::exception &e) {
      message = e.what();
      error = std::current_exception();
    } catch (...) {
      message = "unknown exception";
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(errorMu);
      if (!firstError)
        firstError = error;
    }
    group.fail(r, message);
  };

  std::vector<std::thread> threads;
  threads.reserve(n);
  try {
    for (int r = 0; r < n; ++r)
      threads.emplace_back(body, r);
  } catch (const std::exception &e) {
    // Threads already started would otherwise wait for the missing ranks.
    int rank = static_cast<int>(threads.size());
    std::string message = threadStartFailure(rank, n, e);
    group.fail(rank, message);
    for (std::thread &t : threads)
      t.join();
    throw std::runtime_error(message);
  }
  for (std::thread &t : threads)
    t.join();
  if (firstError)
    std::rethrow_exception(firstError);
}
