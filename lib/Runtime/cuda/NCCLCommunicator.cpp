//===- NCCLCommunicator.cpp - NCCL collectives backend ---------*- C++ -*-===//
//
// Non-blocking NCCL communicators (ncclConfig_t blocking = 0): every NCCL call
// returns at once, possibly with ncclInProgress, and the caller polls. All
// NCCL calls of a rank's communicators happen under one mutex (NCCLWorld::mu)
// that the calling thread releases while it waits, so that the watchdog
// thread can poll ncclCommGetAsyncError and the deadline, and abort every
// communicator (ncclCommAbort) without racing another NCCL call.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/NCCLCommunicator.h"

#include "tp/Runtime/CUDA.h"

#include "Launch.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tp::runtime;
using Clock = std::chrono::steady_clock;

static_assert(sizeof(ncclUniqueId) == sizeof(NCCLId::bytes),
              "NCCLId must hold an ncclUniqueId");

namespace {
std::string ncclMessage(ncclResult_t r, ncclComm_t comm) {
  std::string s = ncclGetErrorString(r);
  const char *last = ncclGetLastError(comm);
  if (last && *last)
    s += std::string(" (") + last + ")";
  return s;
}

ncclRedOp_t ncclOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return ncclSum;
  case ReduceOp::Avg:
    return ncclAvg;
  case ReduceOp::Max:
    return ncclMax;
  case ReduceOp::Min:
    return ncclMin;
  }
  return ncclSum;
}

ncclDataType_t ncclType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return ncclFloat32;
  case DType::BF16:
    return ncclBfloat16;
  case DType::F16:
    return ncclFloat16;
  case DType::I64:
    return ncclInt64;
  case DType::I32:
    return ncclInt32;
  case DType::Bool:
    return ncclUint8;
  }
  return ncclFloat32;
}

const char *bytesOf(const void *p) { return static_cast<const char *>(p); }
char *bytesOf(void *p) { return static_cast<char *>(p); }

int runtimeNcclVersion() {
  static int version = [] {
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess)
      v = 0;
    return v;
  }();
  return version;
}

/// Throws std::invalid_argument unless \p p (with \p count elements) is
/// device or managed memory.
void requireDevicePointer(const void *p, size_t count, const char *op,
                          const char *what) {
  if (count == 0)
    return;
  cudaPointerAttributes attr;
  cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw std::invalid_argument(std::string(op) + ": " + what +
                                " is not CUDA memory (" +
                                cudaGetErrorString(err) + ")");
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    throw std::invalid_argument(std::string(op) + ": " + what +
                                " is not a device pointer (the nccl backend "
                                "works on device buffers)");
}
} // namespace

namespace mlir::tp {
namespace runtime {
namespace detail {
/// One NCCL communicator of this rank with its stream and buffers.
struct NCCLState {
  ncclComm_t comm = nullptr; ///< Null once aborted or destroyed.
  int device = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t ready = nullptr;
  void *scratch = nullptr;
  size_t scratchBytes = 0;
  int64_t *descriptors = nullptr; ///< Device, (size + 1) * 5 values.

  explicit NCCLState(int device) : device(device) {
    gpu::detail::check(
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
        "cudaStreamCreateWithFlags");
    cudaError_t err = cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    if (err != cudaSuccess) {
      (void)cudaStreamDestroy(stream);
      gpu::detail::check(err, "cudaEventCreateWithFlags");
    }
  }
  ~NCCLState() {
    if (scratch)
      (void)cudaFree(scratch);
    if (descriptors)
      (void)cudaFree(descriptors);
    (void)cudaEventDestroy(ready);
    (void)cudaStreamDestroy(stream);
  }
};

/// The communicators of one rank (a root and its splits) and their watchdog.
struct NCCLWorld {
  NCCLWorld(const NCCLOptions &options, int rank)
      : timeout(options.timeout), pollInterval(options.pollInterval),
        rank(rank) {
    watchdog = std::thread([this] { watch(); });
  }
  ~NCCLWorld() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    watchdog.join();
  }

  /// Records the first failure and aborts every communicator. Requires mu.
  void abortAll(const std::string &message) {
    if (!failed) {
      failed = true;
      error = "rank " + std::to_string(rank) + ": " + message +
              " (NCCL communicators aborted)";
    }
    for (NCCLState *s : states)
      if (s->comm) {
        (void)ncclCommAbort(s->comm);
        s->comm = nullptr;
      }
  }

  /// Arms the deadline for \p what. Requires mu.
  void arm(std::string what) {
    current = std::move(what);
    armed = timeout.count() > 0;
    deadline = Clock::now() + timeout;
  }
  void disarm() { armed = false; }

  /// Waits until the non-blocking NCCL call that returned \p r on \p comm
  /// (under mu, held by \p lock) has completed; throws CommError on failure
  /// (after aborting everything) or once the world has failed.
  void settle(std::unique_lock<std::mutex> &lock, ncclComm_t comm,
              ncclResult_t r, const char *what) {
    for (unsigned spins = 0;; ++spins) {
      if (failed)
        throw CommError(error);
      if (r == ncclSuccess)
        return;
      if (r != ncclInProgress) {
        abortAll(std::string(what) + " failed in " + current + ": " +
                 ncclMessage(r, comm));
        throw CommError(error);
      }
      pause(lock, spins);
      if (failed)
        throw CommError(error);
      ncclResult_t state = ncclSuccess;
      ncclResult_t q = ncclCommGetAsyncError(comm, &state);
      r = q != ncclSuccess ? q : state;
    }
  }

  /// Waits until \p stream has no pending work; throws like settle().
  void waitStream(std::unique_lock<std::mutex> &lock, cudaStream_t stream) {
    for (unsigned spins = 0;; ++spins) {
      if (failed)
        throw CommError(error);
      cudaError_t q = cudaStreamQuery(stream);
      if (q == cudaSuccess)
        return;
      if (q != cudaErrorNotReady) {
        abortAll(std::string("CUDA error in ") + current + ": " +
                 cudaGetErrorString(q));
        throw CommError(error);
      }
      pause(lock, spins);
    }
  }

  std::mutex mu;
  std::condition_variable cv;
  std::vector<NCCLState *> states;
  bool failed = false;
  std::string error;
  const std::chrono::milliseconds timeout, pollInterval;
  const int rank; ///< In the root communicator, for messages.

private:
  /// Lets the watchdog in: yields at first, then sleeps a little.
  static void pause(std::unique_lock<std::mutex> &lock, unsigned spins) {
    lock.unlock();
    if (spins < 1000)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    lock.lock();
  }

  void watch() {
    std::unique_lock<std::mutex> lock(mu);
    while (!stop) {
      cv.wait_for(lock, pollInterval);
      if (stop || failed)
        continue;
      for (NCCLState *s : states) {
        if (!s->comm)
          continue;
        ncclResult_t state = ncclSuccess;
        ncclResult_t q = ncclCommGetAsyncError(s->comm, &state);
        ncclResult_t r = q != ncclSuccess ? q : state;
        if (r != ncclSuccess && r != ncclInProgress) {
          abortAll("NCCL asynchronous error" +
                   (armed ? " in " + current : std::string()) + ": " +
                   ncclMessage(r, s->comm));
          break;
        }
      }
      if (!failed && armed && Clock::now() > deadline)
        abortAll("timeout after " + std::to_string(timeout.count()) +
                 " ms in " + current);
    }
  }

  bool stop = false;
  bool armed = false;
  Clock::time_point deadline;
  std::string current;
  std::thread watchdog;
};
} // namespace detail
} // namespace runtime
} // namespace mlir::tp

using detail::NCCLState;
using detail::NCCLWorld;

//===----------------------------------------------------------------------===//
// Unique ids
//===----------------------------------------------------------------------===//

NCCLId mlir::tp::runtime::ncclNewId() {
  ncclUniqueId uid;
  ncclResult_t r = ncclGetUniqueId(&uid);
  if (r != ncclSuccess)
    throw CommError(std::string("ncclGetUniqueId failed: ") +
                    ncclMessage(r, nullptr));
  NCCLId id;
  std::memcpy(id.bytes.data(), &uid, sizeof(uid));
  return id;
}

NCCLId mlir::tp::runtime::ncclIdFromFile(const std::string &path, int rank,
                                         std::chrono::milliseconds timeout) {
  struct stat st;
  if (rank == 0) {
    if (::stat(path.c_str(), &st) == 0)
      throw CommError("NCCL id file " + path +
                      " already exists (left from an earlier run?); remove it "
                      "or use a fresh path for every job");
    NCCLId id = ncclNewId();
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out.write(id.bytes.data(), id.bytes.size());
      out.close();
      if (!out)
        throw CommError("cannot write NCCL id file " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      throw CommError("cannot rename " + tmp + " to " + path + ": " +
                      std::strerror(errno));
    }
    return id;
  }
  Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    if (::stat(path.c_str(), &st) == 0 &&
        st.st_size == static_cast<off_t>(sizeof(NCCLId::bytes))) {
      std::ifstream in(path, std::ios::binary);
      NCCLId id;
      if (in.read(id.bytes.data(), id.bytes.size()))
        return id;
    }
    if (timeout.count() > 0 && Clock::now() > deadline)
      throw CommError("rank " + std::to_string(rank) + ": timeout after " +
                      std::to_string(timeout.count()) +
                      " ms waiting for rank 0 to write the NCCL id file " +
                      path);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

#if TP_HAVE_MPI
NCCLId mlir::tp::runtime::ncclIdFromMPI(MPI_Comm comm, int root) {
  int rank = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    throw CommError("ncclIdFromMPI: MPI_Comm_rank failed");
  NCCLId id;
  if (rank == root)
    id = ncclNewId();
  if (MPI_Bcast(id.bytes.data(), static_cast<int>(id.bytes.size()), MPI_BYTE,
                root, comm) != MPI_SUCCESS)
    throw CommError("ncclIdFromMPI: MPI_Bcast of the NCCL id failed");
  return id;
}
#endif

//===----------------------------------------------------------------------===//
// NCCLCommunicator
//===----------------------------------------------------------------------===//

namespace {
/// Values of a call descriptor exchanged by the collective check.
constexpr int descriptorSize = CollectiveCall::kPackedSize;
} // namespace

NCCLCommunicator::NCCLCommunicator(std::shared_ptr<NCCLWorld> world,
                                   std::unique_ptr<NCCLState> state,
                                   NCCLOptions options, int rank, int size)
    : world_(std::move(world)), state_(std::move(state)),
      options_(std::move(options)), rank_(rank), size_(size) {}

std::unique_ptr<NCCLCommunicator>
NCCLCommunicator::create(int nranks, int rank, const NCCLId &id,
                         NCCLOptions options) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    throw std::invalid_argument("NCCLCommunicator: rank " +
                                std::to_string(rank) + " out of range for " +
                                std::to_string(nranks) + " ranks");
  std::string why;
  if (!cudaAvailable(&why))
    throw CommError("NCCLCommunicator: " + why);
  if (options.device >= 0)
    gpu::detail::check(cudaSetDevice(options.device), "cudaSetDevice");
  else
    gpu::detail::check(cudaGetDevice(&options.device), "cudaGetDevice");

  auto world = std::make_shared<NCCLWorld>(options, rank);
  auto state = std::make_unique<NCCLState>(options.device);
  std::unique_lock<std::mutex> lock(world->mu);
  world->states.push_back(state.get());
  struct Unregister {
    NCCLWorld &w;
    NCCLState *s;
    bool active = true;
    ~Unregister() {
      if (active)
        w.states.erase(std::find(w.states.begin(), w.states.end(), s));
    }
  } unregister{*world, state.get()};
  world->arm("initialization (rank " + std::to_string(rank) + " of " +
             std::to_string(nranks) +
             "; did every rank start and get the same id?)");
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclUniqueId uid;
  std::memcpy(&uid, id.bytes.data(), sizeof(uid));
  ncclResult_t r =
      ncclCommInitRankConfig(&state->comm, nranks, uid, rank, &config);
  world->settle(lock, state->comm, r, "ncclCommInitRankConfig");
  world->disarm();
  unregister.active = false;
  lock.unlock();
  return std::unique_ptr<NCCLCommunicator>(new NCCLCommunicator(
      std::move(world), std::move(state), options, rank, nranks));
}

std::unique_ptr<NCCLCommunicator>
NCCLCommunicator::fromIdFile(const std::string &path, int nranks, int rank,
                             NCCLOptions options) {
  NCCLId id = ncclIdFromFile(path, rank, options.timeout);
  struct RemoveOnRank0 {
    const std::string &path;
    int rank;
    ~RemoveOnRank0() {
      if (rank == 0)
        std::remove(path.c_str());
    }
  } remove{path, rank};
  // Initialization completes only once every rank has joined, so nobody
  // needs the file any more when rank 0 removes it.
  return create(nranks, rank, id, options);
}

NCCLCommunicator::~NCCLCommunicator() {
  if (!world_)
    return;
  NCCLWorld &w = *world_;
  (void)cudaSetDevice(state_->device);
  {
    std::unique_lock<std::mutex> lock(w.mu);
    if (state_->comm && !w.failed) {
      try {
        w.arm("finalization (ncclCommFinalize)");
        w.settle(lock, state_->comm, ncclCommFinalize(state_->comm),
                 "ncclCommFinalize");
        w.disarm();
        if (state_->comm) {
          (void)ncclCommDestroy(state_->comm);
          state_->comm = nullptr;
        }
      } catch (...) {
        // settle() aborted every communicator; nothing left to release.
        w.disarm();
      }
    }
    if (state_->comm) {
      (void)ncclCommAbort(state_->comm);
      state_->comm = nullptr;
    }
    w.states.erase(std::find(w.states.begin(), w.states.end(), state_.get()));
  }
  state_.reset();
  world_.reset(); // The last communicator of the rank stops the watchdog.
}

bool NCCLCommunicator::aborted(std::string *message) const {
  std::lock_guard<std::mutex> lock(world_->mu);
  if (world_->failed && message)
    *message = world_->error;
  return world_->failed;
}

cudaStream_t NCCLCommunicator::ncclStream() const { return state_->stream; }

char *NCCLCommunicator::scratch(size_t bytes) {
  if (bytes > state_->scratchBytes) {
    if (state_->scratch) {
      // The previous user of the buffer finished (collectives block).
      gpu::detail::check(cudaFree(state_->scratch), "cudaFree");
      state_->scratch = nullptr;
      state_->scratchBytes = 0;
    }
    void *p = nullptr;
    gpu::detail::check(cudaMalloc(&p, bytes), "cudaMalloc");
    state_->scratch = p;
    state_->scratchBytes = bytes;
  }
  return static_cast<char *>(state_->scratch);
}

template <typename Issue>
void NCCLCommunicator::run(const Call &call, Issue issue) {
  NCCLWorld &w = *world_;
  NCCLState &s = *state_;
  gpu::detail::check(cudaSetDevice(s.device), "cudaSetDevice");
  if (options_.checkCollectives && !s.descriptors) {
    void *p = nullptr;
    gpu::detail::check(cudaMalloc(&p, sizeof(int64_t) * descriptorSize *
                                          (static_cast<size_t>(size_) + 1)),
                       "cudaMalloc");
    s.descriptors = static_cast<int64_t *>(p);
  }
  std::unique_lock<std::mutex> lock(w.mu);
  if (w.failed)
    throw CommError(w.error);
  std::string what = call.describe();
  w.arm(what + " on a communicator of " + std::to_string(size_) + " ranks");
  struct Disarm {
    NCCLWorld &w;
    ~Disarm() { w.disarm(); }
  } disarm{w};

  // NCCL's stream waits for the work that produced the inputs.
  gpu::detail::check(cudaEventRecord(s.ready, options_.stream),
                     "cudaEventRecord");
  gpu::detail::check(cudaStreamWaitEvent(s.stream, s.ready, 0),
                     "cudaStreamWaitEvent");

  if (options_.checkCollectives) {
    int64_t mine[descriptorSize];
    call.pack(mine);
    int64_t *send = s.descriptors + descriptorSize * size_;
    gpu::detail::check(cudaMemcpyAsync(send, mine, sizeof(mine),
                                       cudaMemcpyHostToDevice, s.stream),
                       "cudaMemcpyAsync (host to device)");
    w.settle(lock, s.comm,
             ncclAllGather(send, s.descriptors, descriptorSize, ncclInt64,
                           s.comm, s.stream),
             "ncclAllGather (call check)");
    std::vector<int64_t> all(descriptorSize * static_cast<size_t>(size_));
    gpu::detail::check(cudaMemcpyAsync(all.data(), s.descriptors,
                                       all.size() * sizeof(int64_t),
                                       cudaMemcpyDeviceToHost, s.stream),
                       "cudaMemcpyAsync (device to host)");
    w.waitStream(lock, s.stream);
    std::string mismatch = collectiveMismatch(all.data(), size_);
    if (!mismatch.empty())
      throw CommError(mismatch);
  }

  w.settle(lock, s.comm, issue(s), what.c_str());
  w.waitStream(lock, s.stream);
}

/// What a collective reads: \p in, or its copy in \p staging (enqueued on
/// NCCL's stream) when \p staging is set because the output overlaps the
/// input other than exactly in place.
static const char *stagedInput(detail::NCCLState &s, const void *in,
                               char *staging, size_t bytes) {
  if (!staging)
    return static_cast<const char *>(in);
  gpu::detail::check(
      cudaMemcpyAsync(staging, in, bytes, cudaMemcpyDeviceToDevice, s.stream),
      "cudaMemcpyAsync (device to device)");
  return staging;
}

void NCCLCommunicator::doAllGather(const Call &call, const void *in,
                                   void *outPtr) {
  size_t count = call.count;
  DType dtype = call.dtype;
  size_t bytes = count * dtypeSize(dtype);
  requireDevicePointer(in, count, "all_gather", "input");
  requireDevicePointer(outPtr, count * size_, "all_gather", "output");
  char *out = bytesOf(outPtr);
  bool inPlace = in == out + static_cast<size_t>(rank_) * bytes;
  char *staging = !inPlace && bytesOverlap(in, bytes, out, size_ * bytes)
                      ? scratch(bytes)
                      : nullptr;
  run(call, [&](NCCLState &s) -> ncclResult_t {
    if (count == 0)
      return ncclSuccess;
    return ncclAllGather(stagedInput(s, in, staging, bytes), out, count,
                         ncclType(dtype), s.comm, s.stream);
  });
}

void NCCLCommunicator::doAllReduce(const Call &call, const void *in,
                                   void *out) {
  size_t count = call.count;
  DType dtype = call.dtype;
  size_t bytes = count * dtypeSize(dtype);
  requireDevicePointer(in, count, "all_reduce", "input");
  requireDevicePointer(out, count, "all_reduce", "output");
  char *staging = in != out && bytesOverlap(in, bytes, out, bytes)
                      ? scratch(bytes)
                      : nullptr;
  run(call, [&](NCCLState &s) -> ncclResult_t {
    if (count == 0)
      return ncclSuccess;
    return ncclAllReduce(stagedInput(s, in, staging, bytes), out, count,
                         ncclType(dtype), ncclOp(call.op), s.comm, s.stream);
  });
}

void NCCLCommunicator::doReduceScatter(const Call &call, const void *inPtr,
                                       void *out) {
  size_t countPerRank = call.count;
  DType dtype = call.dtype;
  size_t total = static_cast<size_t>(size_) * countPerRank;
  size_t blockBytes = countPerRank * dtypeSize(dtype);
  requireDevicePointer(inPtr, total, "reduce_scatter", "input");
  requireDevicePointer(out, countPerRank, "reduce_scatter", "output");
  const char *in = bytesOf(inPtr);
  bool inPlace = out == in + static_cast<size_t>(rank_) * blockBytes;
  char *staging =
      !inPlace && bytesOverlap(in, size_ * blockBytes, out, blockBytes)
          ? scratch(size_ * blockBytes)
          : nullptr;
  run(call, [&](NCCLState &s) -> ncclResult_t {
    if (countPerRank == 0)
      return ncclSuccess;
    const void *src = stagedInput(s, in, staging, size_ * blockBytes);
    return ncclReduceScatter(src, out, countPerRank, ncclType(dtype),
                             ncclOp(call.op), s.comm, s.stream);
  });
}

void NCCLCommunicator::doAllToAll(const Call &call, const void *inPtr,
                                  void *outPtr) {
  size_t countPerRank = call.count;
  DType dtype = call.dtype;
  size_t total = static_cast<size_t>(size_) * countPerRank;
  size_t blockBytes = countPerRank * dtypeSize(dtype);
  requireDevicePointer(inPtr, total, "all_to_all", "input");
  requireDevicePointer(outPtr, total, "all_to_all", "output");
  const char *in = bytesOf(inPtr);
  char *out = bytesOf(outPtr);
  // NCCL's all-to-all is never in place.
  size_t bytes = size_ * blockBytes;
  char *staging =
      bytesOverlap(in, bytes, out, bytes) ? scratch(bytes) : nullptr;
  int n = size_;
  ncclDataType_t type = ncclType(dtype);
  run(call, [&](NCCLState &s) -> ncclResult_t {
    if (countPerRank == 0)
      return ncclSuccess;
    const char *src = stagedInput(s, in, staging, bytes);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    if (runtimeNcclVersion() >= NCCL_VERSION(2, 28, 0))
      return ncclAlltoAll(src, out, countPerRank, type, s.comm, s.stream);
#endif
    // Before 2.28: the grouped send/recv all-to-all of the NCCL guide.
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess)
      return r;
    for (int p = 0; p < n && (r == ncclSuccess || r == ncclInProgress); ++p) {
      r = ncclSend(src + p * blockBytes, countPerRank, type, p, s.comm,
                   s.stream);
      if (r == ncclSuccess || r == ncclInProgress)
        r = ncclRecv(out + p * blockBytes, countPerRank, type, p, s.comm,
                     s.stream);
    }
    ncclResult_t end = ncclGroupEnd();
    return r != ncclSuccess && r != ncclInProgress ? r : end;
  });
}

void NCCLCommunicator::doBroadcast(const Call &call, void *buf) {
  requireDevicePointer(buf, call.count, "broadcast", "buffer");
  run(call, [&](NCCLState &s) -> ncclResult_t {
    if (call.count == 0)
      return ncclSuccess;
    return ncclBroadcast(buf, buf, call.count, ncclType(call.dtype), call.root,
                         s.comm, s.stream);
  });
}

void NCCLCommunicator::doBarrier(const Call &call) {
  float *one = reinterpret_cast<float *>(scratch(sizeof(float)));
  run(call, [&](NCCLState &s) -> ncclResult_t {
    return ncclAllReduce(one, one, 1, ncclFloat32, ncclSum, s.comm, s.stream);
  });
}

std::unique_ptr<Communicator> NCCLCommunicator::doSplit(const Call &call,
                                                        int color, int key) {
  NCCLWorld &w = *world_;
  auto child = std::make_unique<NCCLState>(state_->device);
  bool registered = false;
  // Called with w.mu held.
  auto unregister = [&] {
    if (registered)
      w.states.erase(std::find(w.states.begin(), w.states.end(), child.get()));
    registered = false;
  };
  try {
    run(call, [&](NCCLState &s) -> ncclResult_t {
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 0;
      ncclComm_t newComm = nullptr;
      ncclResult_t r =
          ncclCommSplit(s.comm, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key,
                        &newComm, &config);
      // Register the new communicator at once so that the watchdog polls it
      // and an abort covers it while it is being created.
      if (newComm) {
        child->comm = newComm;
        w.states.push_back(child.get());
        registered = true;
      }
      return r;
    });
  } catch (...) {
    std::lock_guard<std::mutex> lock(w.mu);
    unregister();
    throw;
  }
  // run() waited for the parent; the new communicator may still be
  // connecting.
  std::unique_lock<std::mutex> lock(w.mu);
  int subRank = 0, subSize = 0;
  try {
    if (w.failed)
      throw CommError(w.error);
    if (child->comm) {
      w.arm("split(color=" + std::to_string(color) +
            ", key=" + std::to_string(key) + ")");
      ncclResult_t state = ncclSuccess;
      ncclResult_t q = ncclCommGetAsyncError(child->comm, &state);
      w.settle(lock, child->comm, q != ncclSuccess ? q : state,
               "ncclCommSplit");
      w.disarm();
    }
    if (!child->comm) {
      unregister();
      return nullptr;
    }
    ncclResult_t r = ncclCommUserRank(child->comm, &subRank);
    if (r == ncclSuccess)
      r = ncclCommCount(child->comm, &subSize);
    if (r != ncclSuccess) {
      w.abortAll("ncclCommUserRank/ncclCommCount failed after split: " +
                 ncclMessage(r, child->comm));
      throw CommError(w.error);
    }
  } catch (...) {
    w.disarm();
    unregister();
    throw;
  }
  lock.unlock();
  return std::unique_ptr<Communicator>(new NCCLCommunicator(
      world_, std::move(child), options_, subRank, subSize));
}
