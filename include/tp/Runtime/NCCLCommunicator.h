//===- NCCLCommunicator.h - NCCL collectives backend ------------*- C++ -*-===//
//
// The `nccl` backend (library TPRuntimeCUDA): one rank per GPU, collectives
// over non-blocking NCCL communicators watched by a watchdog thread that
// aborts them on an asynchronous error or a timeout, so that no rank hangs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_NCCLCOMMUNICATOR_H
#define TP_RUNTIME_NCCLCOMMUNICATOR_H

#include "tp/Runtime/Communicator.h"

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <memory>
#include <string>

#if TP_HAVE_MPI
#include <mpi.h>
#endif

namespace mlir::tp {
namespace runtime {

namespace detail {
struct NCCLWorld;
struct NCCLState;
} // namespace detail

/// The 128-byte ncclUniqueId that every rank of a new communicator needs.
struct NCCLId {
  std::array<char, 128> bytes{};
};

/// A fresh id (ncclGetUniqueId). The process that calls it hosts NCCL's
/// bootstrap, so it is normally rank 0.
NCCLId ncclNewId();

/// Shares an id over a file that every rank can read (a shared file system
/// across hosts): rank 0 creates one and writes it to \p path atomically
/// (temporary file + rename); the others poll for the file for at most
/// \p timeout. Rank 0 throws CommError if \p path already exists (a stale
/// file from an earlier run would make the others join a dead job); use a
/// fresh path per job or remove it. NCCLCommunicator::fromIdFile removes the
/// file once every rank has joined.
NCCLId
ncclIdFromFile(const std::string &path, int rank,
               std::chrono::milliseconds timeout = std::chrono::seconds(120));

#if TP_HAVE_MPI
/// Shares an id over MPI: \p root creates it and MPI_Bcast sends it to every
/// rank of \p comm. Collective over \p comm.
NCCLId ncclIdFromMPI(MPI_Comm comm, int root = 0);
#endif

/// Options of an NCCLCommunicator; sub-communicators inherit them.
struct NCCLOptions {
  /// The CUDA device of this rank; -1 keeps the current device.
  int device = -1;
  /// The stream on which this rank's kernels write the collectives' inputs
  /// and read their outputs. A collective makes NCCL's stream wait for it
  /// (an event), and returns once the result is complete. The default is the
  /// calling thread's default stream, like the device kernels of CUDA.h.
  cudaStream_t stream = cudaStreamPerThread;
  /// A collective (or initialization, split, finalization) that has not
  /// completed after this long makes the watchdog abort every communicator
  /// of the rank (ncclCommAbort), and the call throws CommError naming the
  /// collective. Zero disables the timeout (asynchronous errors still
  /// abort).
  std::chrono::milliseconds timeout = std::chrono::minutes(5);
  /// How often the watchdog polls ncclCommGetAsyncError and the deadline.
  std::chrono::milliseconds pollInterval = std::chrono::milliseconds(50);
  /// Before every collective, all ranks all-gather a small descriptor (kind,
  /// count, reduction, root) and throw CommError naming every rank's call if
  /// they differ, instead of hanging until the timeout or corrupting data.
  /// Costs one extra 32-byte all-gather and a device-to-host copy per call.
  /// Must be the same on every rank.
  bool checkCollectives = true;
};

/// A Communicator over a non-blocking NCCL communicator (ncclConfig_t
/// blocking = 0), one rank per GPU.
///
/// **The float pointers passed to the collectives are device pointers** (on
/// this rank's device); host pointers are an error. Collectives follow the
/// Communicator contract: they are blocking from the host's point of view
/// (they return once the result is in the output buffer), in-place and
/// overlapping buffers are allowed where the contract allows them (a device
/// scratch buffer stages the cases NCCL does not support), Avg is ncclAvg,
/// all_to_all is ncclAlltoAll (NCCL >= 2.28, else grouped ncclSend/ncclRecv),
/// barrier is a one-float all-reduce, and split is ncclCommSplit.
///
/// Failures: a watchdog thread shared by a communicator and its splits polls
/// ncclCommGetAsyncError and the deadline of the current call; on an error or
/// a timeout it aborts all of them (ncclCommAbort) and the pending and every
/// later call throws CommError with the reason (ncclGetLastError). NCCL only
/// reports a failed peer through such errors or the timeout, so a peer that
/// dies is noticed at the latest after \p timeout. Use from one thread at a
/// time.
///
/// NCCL up to 2.29 rejects several ranks on one GPU ("Duplicate GPU
/// detected"); for that use gpu::runDeviceRanks (tp/Runtime/CUDA.h).
class NCCLCommunicator final : public Communicator {
public:
  /// Rank \p rank of \p nranks ranks that share \p id (collective: every rank
  /// must call it). Throws CommError if initialization fails or times out.
  static std::unique_ptr<NCCLCommunicator>
  create(int nranks, int rank, const NCCLId &id, NCCLOptions options = {});

  /// create() with the id from ncclIdFromFile(\p path, ...); rank 0 removes
  /// the file once every rank has joined.
  static std::unique_ptr<NCCLCommunicator> fromIdFile(const std::string &path,
                                                      int nranks, int rank,
                                                      NCCLOptions options = {});

  /// Finalizes and destroys the NCCL communicator (aborting it if that does
  /// not complete within the timeout).
  ~NCCLCommunicator() override;
  NCCLCommunicator(const NCCLCommunicator &) = delete;
  NCCLCommunicator &operator=(const NCCLCommunicator &) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  /// Whether the communicators of this rank were aborted; if so \p message
  /// (when given) receives the reason.
  bool aborted(std::string *message = nullptr) const;
  /// The stream NCCL runs on (owned by this communicator).
  cudaStream_t ncclStream() const;
  const NCCLOptions &options() const { return options_; }

private:
  NCCLCommunicator(std::shared_ptr<detail::NCCLWorld> world,
                   std::unique_ptr<detail::NCCLState> state,
                   NCCLOptions options, int rank, int size);

  using Call = CollectiveCall;
  void doAllGather(const Call &call, const void *in, void *out) override;
  void doAllReduce(const Call &call, const void *in, void *out) override;
  void doReduceScatter(const Call &call, const void *in, void *out) override;
  void doAllToAll(const Call &call, const void *in, void *out) override;
  void doBroadcast(const Call &call, void *buf) override;
  void doBarrier(const Call &call) override;
  /// ncclCommSplit; the new communicator shares the watchdog and options.
  std::unique_ptr<Communicator> doSplit(const Call &call, int color,
                                        int key) override;
  /// Runs one collective: validation of the call across ranks (if enabled),
  /// the watchdog deadline, \p issue (which enqueues the NCCL calls on
  /// NCCL's stream with the world lock held), and the wait for completion.
  template <typename Issue> void run(const Call &call, Issue issue);
  /// Device scratch of at least \p bytes bytes, reused across calls.
  char *scratch(size_t bytes);

  std::shared_ptr<detail::NCCLWorld> world_;
  std::unique_ptr<detail::NCCLState> state_;
  NCCLOptions options_;
  int rank_ = 0, size_ = 1;
};

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_NCCLCOMMUNICATOR_H
