//===- MPICommunicator.h - MPI collectives backend --------------*- C++ -*-===//
//
// The `mpi` backend: one rank per process, collectives over an MPI
// communicator (OpenMPI or any MPI-3 library), with call checking across
// ranks and a watchdog that aborts the job when a collective hangs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_MPICOMMUNICATOR_H
#define TP_RUNTIME_MPICOMMUNICATOR_H

#include "tp/Runtime/Communicator.h"

#include <chrono>
#include <memory>
#include <vector>

#include <mpi.h>

namespace mlir::tp {
namespace runtime {

/// Initializes MPI (MPI_Init_thread asking for MPI_THREAD_MULTIPLE, so that
/// a rank's communication thread may run collectives beside its main one;
/// MPICommunicator::allowsConcurrentThreads says whether it was granted)
/// for the lifetime of the object, unless
/// MPI is already initialized, and finalizes it at destruction if it did the
/// initialization. Destroy every MPICommunicator first.
class MPIEnvironment {
public:
  /// Throws CommError if MPI cannot be initialized.
  MPIEnvironment(int *argc, char ***argv);
  ~MPIEnvironment();
  MPIEnvironment(const MPIEnvironment &) = delete;
  MPIEnvironment &operator=(const MPIEnvironment &) = delete;

  /// Rank of this process in MPI_COMM_WORLD.
  static int worldRank();
  /// Number of processes in MPI_COMM_WORLD.
  static int worldSize();

  /// Ends every process of the job: MPI_Abort(MPI_COMM_WORLD, \p code). With
  /// mpirun, all processes are gone within a few seconds; this is how a
  /// failing rank must stop (throwing or returning would leave its peers
  /// blocked in their next collective).
  [[noreturn]] static void abort(int code);

private:
  bool initializedHere_ = false;
};

/// Options of an MPICommunicator; sub-communicators inherit them.
struct MPIOptions {
  /// Before every collective, all ranks exchange a small descriptor (kind,
  /// count, reduction, root) and throw CommError naming every rank's call
  /// if they differ, instead of deadlocking or corrupting data. Without a
  /// timeout one MPI_Allgather of 32 bytes per rank (about 1 us on one
  /// host); with one, a message per rank pair under the timeout, so that a
  /// rank that does not come is named before the job is aborted.
  bool checkCollectives = true;
  /// A collective that has not completed after this long prints
  /// "tp: rank R: timeout ..." to stderr and aborts the whole job with
  /// MPIEnvironment::abort (a watchdog thread; MPI has no timeouts of its
  /// own). Zero disables the watchdog.
  std::chrono::milliseconds timeout{0};
};

/// A Communicator over an MPI communicator.
///
/// Collectives follow the Communicator contract on f32 buffers. MPI errors
/// (the communicators use MPI_ERRORS_RETURN) become CommError carrying the MPI
/// error string. Buffers needed for staging are kept and reused across calls.
/// reduceScatter is MPI_Alltoall plus a local reduction in rank order (OpenMPI
/// 4.1's MPI_Reduce_scatter_block is an order of magnitude slower); Avg is a
/// sum divided by size(). After a detected mismatch nothing has been sent and
/// the communicator stays usable. One communicator is used by one thread at
/// a time; two threads may use two communicators at once only when
/// allowsConcurrentThreads().
class MPICommunicator final : public Communicator {
public:
  /// A communicator over a duplicate of MPI_COMM_WORLD. MPI must be
  /// initialized.
  static std::unique_ptr<MPICommunicator> world(MPIOptions options = {});

  /// Wraps \p comm; if \p owned, MPI_Comm_free is called on destruction.
  /// Sets MPI_ERRORS_RETURN on \p comm.
  MPICommunicator(MPI_Comm comm, bool owned, MPIOptions options = {});
  ~MPICommunicator() override;
  MPICommunicator(const MPICommunicator &) = delete;
  MPICommunicator &operator=(const MPICommunicator &) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  /// Whether MPI was initialized at MPI_THREAD_MULTIPLE (MPIEnvironment
  /// asks for it): the executor's communication thread may then run
  /// collectives on another communicator while this one's thread does.
  bool allowsConcurrentThreads() const override;
  /// The processes of MPI_COMM_WORLD on this host
  /// (MPI_COMM_TYPE_SHARED), counted by world(); 1 for a communicator
  /// wrapped directly. Splits keep their parent's.
  int ranksSharingCores() const override { return hostRanks_; }

  /// The wrapped MPI communicator.
  MPI_Comm handle() const { return comm_; }
  /// Rank in MPI_COMM_WORLD of each rank of this communicator.
  const std::vector<int> &worldRanks() const { return worldRanks_; }
  const MPIOptions &options() const { return options_; }
  /// Changes the watchdog timeout of later collectives (zero disables it),
  /// e.g. around a wait for rank 0's unbounded local work.
  void setTimeout(std::chrono::milliseconds timeout) {
    options_.timeout = timeout;
  }

private:
  using Call = CollectiveCall;
  void doAllGather(const Call &call, const void *in, void *out) override;
  void doAllReduce(const Call &call, const void *in, void *out) override;
  void doReduceScatter(const Call &call, const void *in, void *out) override;
  void doAllToAll(const Call &call, const void *in, void *out) override;
  void doBroadcast(const Call &call, void *buf) override;
  void doBarrier(const Call &call) override;
  /// MPI_Comm_split; the result owns the new MPI communicator.
  std::unique_ptr<Communicator> doSplit(const Call &call, int color,
                                        int key) override;
  /// Checks (if enabled) that every rank makes the same call and arms the
  /// watchdog; the returned guard disarms it.
  class Guard;
  Guard enter(const Call &call);
  /// The collective check's exchange of every rank's descriptor into
  /// descriptors_: an all-gather, or with a timeout one message per rank
  /// pair, so that on expiry the ranks that did not come are named (and
  /// the job aborted). Every rank of the job runs with the same timeout, as
  /// tp-run's ranks do.
  void exchangeDescriptors(const Call &call);
  /// Throws CommError if \p rc is not MPI_SUCCESS.
  void check(int rc, const char *function, const Call &call) const;
  /// Scratch space of at least \p bytes bytes (aligned for floats), reused
  /// across calls.
  char *scratch(size_t bytes);

  MPI_Comm comm_;
  bool owned_;
  MPIOptions options_;
  int rank_ = 0, size_ = 1;
  std::vector<int> worldRanks_;
  int hostRanks_ = 1;
  std::vector<float> scratch_;
  std::vector<int64_t> descriptors_;
};

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_MPICOMMUNICATOR_H
