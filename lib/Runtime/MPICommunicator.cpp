//===- MPICommunicator.cpp - MPI collectives backend ------------*- C++ -*-===//
//
// Collectives over MPI with reused staging buffers, an optional all-gather of
// call descriptors that detects mismatched collectives, and a process-wide
// watchdog thread that aborts the job when a collective exceeds its timeout.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/MPICommunicator.h"

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

using namespace mlir::tp::runtime;
using Clock = std::chrono::steady_clock;

//===----------------------------------------------------------------------===//
// Calls and their descriptions
//===----------------------------------------------------------------------===//

namespace {
/// Fields of a call descriptor, exchanged as int64 values.
constexpr int descriptorSize = CollectiveCall::kPackedSize;
/// The tag of the collective check's point-to-point messages.
constexpr int kCheckTag = 0x7470;

std::string mpiErrorString(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
    return "MPI error " + std::to_string(rc);
  return std::string(buf, len);
}

/// The MPI type that carries \p dtype (16-bit floats travel as raw
/// uint16 and are reduced by us, as are integers: reduceBuffers).
MPI_Datatype mpiType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return MPI_FLOAT;
  case DType::BF16:
  case DType::F16:
    return MPI_UINT16_T;
  case DType::I64:
    return MPI_INT64_T;
  case DType::I32:
    return MPI_INT32_T;
  case DType::Bool:
    return MPI_UINT8_T;
  }
  return MPI_BYTE;
}

char *bytesOf(void *p) { return static_cast<char *>(p); }

/// Throws unless \p count fits MPI's int counts.
int mpiCount(size_t count, const char *what) {
  if (count > static_cast<size_t>(INT_MAX))
    throw CommError(std::string(what) + ": count " + std::to_string(count) +
                    " exceeds the MPI limit of " + std::to_string(INT_MAX) +
                    " elements");
  return static_cast<int>(count);
}

//===----------------------------------------------------------------------===//
// Watchdog
//===----------------------------------------------------------------------===//

/// The deadlines of the collectives running in this process, one per
/// calling thread (the main one, and the executor's communication thread
/// where MPI allows several). On the first expiry it prints what was
/// pending and aborts the MPI job, which makes mpirun stop every process.
/// Arming only wakes the thread when the new deadline is earlier than the
/// one it sleeps towards, so back-to-back collectives cost a lock, not a
/// context switch.
class Watchdog {
public:
  static Watchdog &get() {
    // Leaked on purpose: the detached thread may outlive static destructors.
    static Watchdog *w = new Watchdog();
    return *w;
  }

  /// Arms a deadline for \p call; disarm(the result) ends it.
  uint64_t arm(std::chrono::milliseconds timeout, int worldRank,
               const CollectiveCall &call) {
    std::lock_guard<std::mutex> lock(mu);
    if (!started) {
      std::thread([this] { loop(); }).detach();
      started = true;
    }
    uint64_t id = nextId++;
    Entry &e = armed[id];
    e.deadline = deadlineAfter(Clock::now(), timeout);
    e.timeout = timeout;
    e.worldRank = worldRank;
    e.call = call;
    if (e.deadline < sleepingUntil)
      cv.notify_one();
    return id;
  }

  void disarm(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    armed.erase(id);
  }

private:
  struct Entry {
    Clock::time_point deadline;
    std::chrono::milliseconds timeout{0};
    int worldRank = 0;
    CollectiveCall call;
  };

  void loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      if (armed.empty()) {
        sleepingUntil = Clock::time_point::max();
        cv.wait(lock);
        continue;
      }
      auto first = std::min_element(
          armed.begin(), armed.end(), [](const auto &a, const auto &b) {
            return a.second.deadline < b.second.deadline;
          });
      sleepingUntil = first->second.deadline;
      cv.wait_until(lock, sleepingUntil);
      first = std::find_if(armed.begin(), armed.end(), [](const auto &e) {
        return Clock::now() >= e.second.deadline;
      });
      if (first == armed.end())
        continue;
      const Entry &e = first->second;
      std::fprintf(stderr,
                   "tp: rank %d: timeout after %lld ms in %s; aborting every "
                   "rank\n",
                   e.worldRank, static_cast<long long>(e.timeout.count()),
                   e.call.describe().c_str());
      std::fflush(stderr);
      // Under MPI_THREAD_FUNNELED, MPI does not promise that another thread
      // may call MPI_Abort while the main one is inside MPI; Open MPI
      // handles it, and abort() falls back to ending this process, which
      // mpirun notices.
      MPIEnvironment::abort(1);
    }
  }

  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  uint64_t nextId = 0;
  std::map<uint64_t, Entry> armed;
  Clock::time_point sleepingUntil = Clock::time_point::max();
};
} // namespace

//===----------------------------------------------------------------------===//
// MPIEnvironment
//===----------------------------------------------------------------------===//

MPIEnvironment::MPIEnvironment(int *argc, char ***argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return;
  // Several threads of a rank call MPI where the library allows it (the
  // executor's communication thread overlaps collectives with compute);
  // MPICommunicator::allowsConcurrentThreads says what it granted.
  int provided = 0;
  int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS)
    throw CommError("MPI_Init_thread failed: " + mpiErrorString(rc));
  initializedHere_ = true;
}

MPIEnvironment::~MPIEnvironment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initializedHere_ && !finalized)
    MPI_Finalize();
}

int MPIEnvironment::worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int MPIEnvironment::worldSize() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

void MPIEnvironment::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  // MPI_Abort does not return; if an MPI library did, end this process at
  // least, so that mpirun notices and stops the others.
  std::_Exit(code);
}

//===----------------------------------------------------------------------===//
// MPICommunicator
//===----------------------------------------------------------------------===//

/// Disarms the watchdog when a collective ends, normally or by exception.
class MPICommunicator::Guard {
public:
  /// \p id: the watchdog's deadline, or none.
  explicit Guard(std::optional<uint64_t> id) : id(id) {}
  Guard(Guard &&other) noexcept : id(other.id) { other.id.reset(); }
  Guard(const Guard &) = delete;
  ~Guard() {
    if (id)
      Watchdog::get().disarm(*id);
  }

private:
  std::optional<uint64_t> id;
};

std::unique_ptr<MPICommunicator> MPICommunicator::world(MPIOptions options) {
  MPI_Comm dup;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (rc != MPI_SUCCESS)
    throw CommError("MPI_Comm_dup(MPI_COMM_WORLD) failed: " +
                    mpiErrorString(rc));
  auto world = std::make_unique<MPICommunicator>(dup, /*owned=*/true, options);
  // The processes that share this host's cores.
  MPI_Comm host = MPI_COMM_NULL;
  if (MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, world->rank_,
                          MPI_INFO_NULL, &host) == MPI_SUCCESS &&
      host != MPI_COMM_NULL) {
    MPI_Comm_size(host, &world->hostRanks_);
    MPI_Comm_free(&host);
  }
  return world;
}

MPICommunicator::MPICommunicator(MPI_Comm comm, bool owned, MPIOptions options)
    : comm_(comm), owned_(owned), options_(options) {
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  // World ranks, for error messages that make sense across sub-communicators.
  MPI_Group group, worldGroup;
  MPI_Comm_group(comm_, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &worldGroup);
  std::vector<int> local(size_);
  for (int i = 0; i < size_; ++i)
    local[i] = i;
  worldRanks_.assign(size_, -1);
  MPI_Group_translate_ranks(group, size_, local.data(), worldGroup,
                            worldRanks_.data());
  MPI_Group_free(&group);
  MPI_Group_free(&worldGroup);
  descriptors_.resize(static_cast<size_t>(descriptorSize) * (size_ + 1));
}

bool MPICommunicator::allowsConcurrentThreads() const {
  int level = MPI_THREAD_SINGLE;
  return MPI_Query_thread(&level) == MPI_SUCCESS &&
         level == MPI_THREAD_MULTIPLE;
}

MPICommunicator::~MPICommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owned_ && !finalized && comm_ != MPI_COMM_NULL)
    MPI_Comm_free(&comm_);
}

char *MPICommunicator::scratch(size_t bytes) {
  size_t floats = (bytes + sizeof(float) - 1) / sizeof(float);
  if (scratch_.size() < floats)
    scratch_.resize(floats);
  return reinterpret_cast<char *>(scratch_.data());
}

void MPICommunicator::check(int rc, const char *function,
                            const Call &call) const {
  if (rc == MPI_SUCCESS)
    return;
  throw CommError(std::string(function) + " failed in " + call.describe() +
                  " on rank " + std::to_string(worldRanks_[rank_]) + ": " +
                  mpiErrorString(rc));
}

void MPICommunicator::exchangeDescriptors(const Call &call) {
  // descriptors_: size_ exchanged descriptors, then this rank's own.
  int64_t *mine = descriptors_.data() + descriptorSize * size_;
  call.pack(mine);
  if (options_.timeout.count() <= 0) {
    check(MPI_Allgather(mine, descriptorSize, MPI_INT64_T, descriptors_.data(),
                        descriptorSize, MPI_INT64_T, comm_),
          "MPI_Allgather (collective check)", call);
    return;
  }
  // With a timeout, each rank's descriptor comes in a message of its own
  // (MPI keeps their order per sender), so that a rank which does not come
  // (stopped, hung, busy elsewhere) is the one the timeout names: an
  // all-gather only says that it did not complete.
  std::copy(mine, mine + descriptorSize,
            descriptors_.data() + descriptorSize * rank_);
  std::vector<MPI_Request> recvs(size_, MPI_REQUEST_NULL);
  std::vector<MPI_Request> sends(size_, MPI_REQUEST_NULL);
  for (int r = 0; r < size_; ++r) {
    if (r == rank_)
      continue;
    check(MPI_Irecv(descriptors_.data() + descriptorSize * r, descriptorSize,
                    MPI_INT64_T, r, kCheckTag, comm_, &recvs[r]),
          "MPI_Irecv (collective check)", call);
    check(MPI_Isend(mine, descriptorSize, MPI_INT64_T, r, kCheckTag, comm_,
                    &sends[r]),
          "MPI_Isend (collective check)", call);
  }
  Clock::time_point deadline = deadlineAfter(Clock::now(), options_.timeout);
  for (int spins = 0;; ++spins) {
    int done = 0;
    check(MPI_Testall(size_, recvs.data(), &done, MPI_STATUSES_IGNORE),
          "MPI_Testall (collective check)", call);
    if (done)
      break;
    if (Clock::now() >= deadline) {
      // MPI_Testall leaves every request as it was unless all completed:
      // test each to see which came.
      std::string missing;
      int count = 0;
      for (int r = 0; r < size_; ++r) {
        int arrived = 1;
        if (recvs[r] != MPI_REQUEST_NULL)
          MPI_Test(&recvs[r], &arrived, MPI_STATUS_IGNORE);
        if (!arrived)
          missing += (count++ ? ", " : "") + std::to_string(worldRanks_[r]);
      }
      std::fprintf(
          stderr,
          "tp: rank %d: timeout after %lld ms in %s: rank%s %s did "
          "not reach it (stopped, hung or in another collective); "
          "aborting every rank\n",
          worldRanks_[rank_], static_cast<long long>(options_.timeout.count()),
          call.describe().c_str(), count == 1 ? "" : "s", missing.c_str());
      MPIEnvironment::abort(1);
    }
    // Messages of a few bytes arrive within microseconds; past that, give
    // the core to the other ranks of this host.
    if (spins > 1000)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  check(MPI_Waitall(size_, sends.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall (collective check)", call);
}

MPICommunicator::Guard MPICommunicator::enter(const Call &call) {
  // The check first, under its own deadline (it names the ranks that did
  // not come); the watchdog then guards the collective itself.
  if (options_.checkCollectives && size_ > 1) {
    exchangeDescriptors(call);
    std::string mismatch =
        collectiveMismatch(descriptors_.data(), size_, worldRanks_.data());
    if (!mismatch.empty())
      throw CommError(mismatch);
  }
  if (options_.timeout.count() <= 0)
    return Guard(std::nullopt);
  return Guard(Watchdog::get().arm(options_.timeout, worldRanks_[rank_], call));
}

void MPICommunicator::doAllGather(const Call &call, const void *in,
                                  void *outPtr) {
  size_t count = call.count;
  DType dtype = call.dtype;
  size_t bytes = count * dtypeSize(dtype);
  mpiCount(count * size_, "all_gather");
  int c = static_cast<int>(count);
  Guard guard = enter(call);
  char *out = bytesOf(outPtr);
  const void *send = in;
  if (count && in == out + rank_ * bytes) {
    send = MPI_IN_PLACE;
  } else if (bytesOverlap(in, bytes, out, bytes * size_)) {
    char *s = scratch(bytes);
    std::memcpy(s, in, bytes);
    send = s;
  }
  MPI_Datatype type = mpiType(dtype);
  check(MPI_Allgather(send, c, type, out, c, type, comm_), "MPI_Allgather",
        call);
}

void MPICommunicator::doAllReduce(const Call &call, const void *in,
                                  void *outPtr) {
  size_t count = call.count;
  DType dtype = call.dtype;
  ReduceOp op = call.op;
  size_t es = dtypeSize(dtype), bytes = count * es;
  int c = mpiCount(count, "all_reduce");
  mpiCount(count + size_, "all_reduce");
  Guard guard = enter(call);
  char *out = bytesOf(outPtr);
  if (dtype != DType::F32 || op == ReduceOp::Max || op == ReduceOp::Min) {
    // MPI has no 16-bit float sum, and its MPI_MAX/MPI_MIN drop a NaN
    // depending on rank order; reduce-scatter over padded blocks (with the
    // f32 accumulation and NaN rules of reduceBuffers, and its wrapping
    // integer sums) and all-gather the results.
    size_t block = (count + size_ - 1) / size_, blockBytes = block * es;
    int b = static_cast<int>(block);
    char *padded = scratch(2 * size_ * blockBytes);
    char *received = padded + size_ * blockBytes;
    std::memcpy(padded, in, bytes);
    std::memset(padded + bytes, 0, size_ * blockBytes - bytes);
    MPI_Datatype type = mpiType(dtype);
    check(MPI_Alltoall(padded, b, type, received, b, type, comm_),
          "MPI_Alltoall (all_reduce)", call);
    std::vector<const void *> srcs(size_);
    for (int p = 0; p < size_; ++p)
      srcs[p] = received + p * blockBytes;
    reduceBuffers(padded, srcs.data(), size_, block, dtype, op);
    check(MPI_Allgather(padded, b, type, received, b, type, comm_),
          "MPI_Allgather (all_reduce)", call);
    std::memcpy(out, received, bytes);
    return;
  }
  const void *send = in;
  if (in == out) {
    send = MPI_IN_PLACE;
  } else if (bytesOverlap(in, bytes, out, bytes)) {
    char *s = scratch(bytes);
    std::memcpy(s, in, bytes);
    send = s;
  }
  // Sum or Avg: MPI adds f32 (in its own order).
  check(MPI_Allreduce(send, out, c, MPI_FLOAT, MPI_SUM, comm_), "MPI_Allreduce",
        call);
  if (op == ReduceOp::Avg) {
    float n = static_cast<float>(size_);
    float *o = reinterpret_cast<float *>(out);
    for (size_t i = 0; i < count; ++i)
      o[i] /= n;
  }
}

void MPICommunicator::doReduceScatter(const Call &call, const void *in,
                                      void *out) {
  size_t countPerRank = call.count;
  DType dtype = call.dtype;
  size_t total = countPerRank * size_,
         blockBytes = countPerRank * dtypeSize(dtype);
  mpiCount(total, "reduce_scatter");
  int c = static_cast<int>(countPerRank);
  Guard guard = enter(call);
  // Block r of every rank lands in rank r's scratch, in rank order; the
  // local reduction then adds in rank order like the threads backend. This
  // beats MPI_Reduce_scatter_block, MPI_Allreduce + copy and a Sendrecv ring
  // on OpenMPI 4.1 (docs/mpi.md has the measurements).
  char *s = scratch(blockBytes * size_);
  MPI_Datatype type = mpiType(dtype);
  check(MPI_Alltoall(in, c, type, s, c, type, comm_),
        "MPI_Alltoall (reduce_scatter)", call);
  if (!countPerRank)
    return;
  std::vector<const void *> srcs(size_);
  for (int p = 0; p < size_; ++p)
    srcs[p] = s + p * blockBytes;
  reduceBuffers(out, srcs.data(), size_, countPerRank, dtype, call.op);
}

void MPICommunicator::doAllToAll(const Call &call, const void *in, void *out) {
  size_t countPerRank = call.count;
  DType dtype = call.dtype;
  size_t total = countPerRank * size_, bytes = total * dtypeSize(dtype);
  mpiCount(total, "all_to_all");
  int c = static_cast<int>(countPerRank);
  Guard guard = enter(call);
  const void *send = in;
  if (bytesOverlap(in, bytes, out, bytes)) {
    char *s = scratch(bytes);
    std::memcpy(s, in, bytes);
    send = s;
  }
  MPI_Datatype type = mpiType(dtype);
  check(MPI_Alltoall(send, c, type, out, c, type, comm_), "MPI_Alltoall", call);
}

void MPICommunicator::doBroadcast(const Call &call, void *buf) {
  int c = mpiCount(call.count, "broadcast");
  Guard guard = enter(call);
  check(MPI_Bcast(buf, c, mpiType(call.dtype), call.root, comm_), "MPI_Bcast",
        call);
}

void MPICommunicator::doBarrier(const Call &call) {
  Guard guard = enter(call);
  check(MPI_Barrier(comm_), "MPI_Barrier", call);
}

std::unique_ptr<Communicator> MPICommunicator::doSplit(const Call &call,
                                                       int color, int key) {
  Guard guard = enter(call);
  MPI_Comm sub = MPI_COMM_NULL;
  check(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &sub),
        "MPI_Comm_split", call);
  if (sub == MPI_COMM_NULL)
    return nullptr;
  auto split = std::make_unique<MPICommunicator>(sub, /*owned=*/true, options_);
  split->hostRanks_ = hostRanks_;
  return split;
}
