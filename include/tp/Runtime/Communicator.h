//===- Communicator.h - Collective communication interface ------*- C++ -*-===//
//
// The backend-neutral collective interface that the executor runs against,
// plus tensor-level helpers that shard or gather along any dimension.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_COMMUNICATOR_H
#define TP_RUNTIME_COMMUNICATOR_H

#include "tp/Runtime/Tensor.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace mlir::tp {
namespace runtime {

/// Reduction applied element-wise across ranks.
enum class ReduceOp { Sum, Avg, Max, Min };

/// Returns "sum", "avg", "max" or "min".
const char *reduceOpName(ReduceOp op);

/// The collectives a Communicator offers; used for statistics and errors.
enum class CollectiveKind {
  AllGather,
  AllReduce,
  ReduceScatter,
  AllToAll,
  Broadcast,
  Barrier,
  /// Creation of a sub-communicator (Communicator::split).
  Split,
};

/// Returns "all_gather", "all_reduce", "reduce_scatter", "all_to_all",
/// "broadcast", "barrier" or "split".
const char *collectiveName(CollectiveKind kind);

/// Whether \p kind reduces (all_reduce, reduce_scatter).
bool isReduction(CollectiveKind kind);

/// One collective call as every backend describes and compares it: the
/// fields that must agree across ranks.
struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::Barrier;
  size_t count = 0;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;
  DType dtype = DType::F32;

  /// "all_reduce(count=4, dtype=BF16, op=sum)" (the dtype only when not
  /// f32, op only for reductions, root only for broadcast): the format of
  /// every mismatch and timeout message.
  std::string describe() const;
  /// Number of int64 values pack() writes.
  static constexpr int kPackedSize = 5;
  /// Writes the fields that must agree; fields that do not apply to the kind
  /// are zero, so equal packs mean matching calls.
  void pack(int64_t *d) const;
  /// The call pack() wrote into \p d.
  static CollectiveCall unpack(const int64_t *d);
};

/// Whether the byte ranges [a, a+na) and [b, b+nb) share a byte.
bool bytesOverlap(const void *a, size_t na, const void *b, size_t nb);

/// A failure of a collective: a peer rank failed, collectives were called
/// inconsistently across ranks, or a peer did not arrive in time.
class CommError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Per-rank counters of collective calls.
struct CollectiveStats {
  /// Number of calls per collective, keyed by collectiveName().
  std::map<std::string, int64_t> counts;
  /// Sum over all calls of the size in bytes of this rank's *input* buffer:
  /// count*dtypeSize for all_gather, all_reduce and broadcast,
  /// size()*countPerRank*dtypeSize for reduce_scatter and all_to_all, 0 for
  /// barrier and split.
  int64_t bytes = 0;
};

/// The cross-rank comparison of every backend: \p packed holds the calls of
/// \p n ranks, CollectiveCall::pack one after another. Returns "" when they
/// all equal rank 0's, else "collective mismatch: rank A called X, rank B
/// called Y, ..." with rank 0 and every rank that differs, rank q named
/// \p ranks[q] (null: q).
std::string collectiveMismatch(const int64_t *packed, int n,
                               const int *ranks = nullptr);

/// A group of ranks that run collectives together.
///
/// All collectives are blocking, operate on buffers of one DType (f32, bf16,
/// f16, i64 or i32; the float overloads are f32), and must be called by
/// every rank of the group in the same order with the same kind, counts,
/// dtype, reduction and root; backends report violations as CommError rather
/// than deadlocking where they can. Counts are in elements. Reductions of
/// 16-bit types accumulate in f32 where the backend allows it (threads, MPI)
/// and round once; NCCL reduces in its own order. Integers (I64, I32) move
/// and reduce exactly on every backend: sum (wrapping modulo 2^bits on
/// overflow), max and min in integer arithmetic; avg of integers throws
/// std::invalid_argument, as torch.distributed has no integer average.
/// Every call counts in stats(), even one that fails.
///
/// To move int64 values (a shape, a byte count) between ranks, e.g.
/// \code
///   std::vector<int64_t> all(comm.size());
///   comm.allGather(&mine, 1, all.data(), DType::I64);
/// \endcode
///
/// A backend implements rank(), size() and the protected do... methods (and
/// doSplit for sub-communicators). The public collectives are the one
/// prologue that every backend shares: they count the call in stats(),
/// reject a null buffer with a nonzero count and a broadcast root outside
/// [0, size()) with std::invalid_argument, describe the call as a
/// CollectiveCall, and only then hand it to the backend. The backend checks
/// what only it can (its count limits, the memory the pointers are in),
/// exchanges the packed call across ranks and reports a difference with
/// collectiveMismatch(), and moves the data.
class Communicator {
public:
  virtual ~Communicator();

  /// This rank's index in [0, size()).
  virtual int rank() const = 0;
  /// Number of ranks in the group.
  virtual int size() const = 0;

  /// Writes every rank's \p count elements of \p in to \p out (size()*count
  /// elements) in rank order. \p in may point at this rank's block of \p out.
  void allGather(const void *in, size_t count, void *out, DType dtype);

  /// Reduces \p count elements element-wise across ranks into \p out on
  /// every rank. \p in may equal \p out. Results are bitwise identical on all
  /// ranks.
  void allReduce(const void *in, void *out, size_t count, DType dtype,
                 ReduceOp op);

  /// \p in holds size() blocks of \p countPerRank elements; rank r receives
  /// the element-wise reduction over ranks of block r in \p out.
  void reduceScatter(const void *in, void *out, size_t countPerRank,
                     DType dtype, ReduceOp op);

  /// \p in and \p out hold size() blocks of \p countPerRank elements; block j
  /// of rank i's input becomes block i of rank j's output.
  void allToAll(const void *in, void *out, size_t countPerRank, DType dtype);

  /// Copies \p count elements of \p buf on rank \p root into \p buf
  /// everywhere.
  void broadcast(void *buf, size_t count, DType dtype, int root);

  /// Returns once every rank has called barrier().
  void barrier();

  /// The f32 forms of the collectives above.
  void allGather(const float *in, size_t count, float *out) {
    allGather(in, count, out, DType::F32);
  }
  void allReduce(const float *in, float *out, size_t count, ReduceOp op) {
    allReduce(in, out, count, DType::F32, op);
  }
  void reduceScatter(const float *in, float *out, size_t countPerRank,
                     ReduceOp op) {
    reduceScatter(in, out, countPerRank, DType::F32, op);
  }
  void allToAll(const float *in, float *out, size_t countPerRank) {
    allToAll(in, out, countPerRank, DType::F32);
  }
  void broadcast(float *buf, size_t count, int root) {
    broadcast(buf, count, DType::F32, root);
  }

  /// Collectively splits the group, like MPI_Comm_split: ranks passing the
  /// same \p color form a new communicator, ordered by (\p key, rank). A
  /// negative color yields nullptr. Backends without sub-communicators throw
  /// CommError.
  std::unique_ptr<Communicator> split(int color, int key);

  /// Whether this rank may run collectives on another communicator of the
  /// same backend (one from split()) on another thread while this one runs
  /// its own: the executor then overlaps async collectives with compute.
  /// False unless the backend says so (threads: yes; MPI initialized for
  /// one calling thread and NCCL on one stream: no).
  virtual bool allowsConcurrentThreads() const { return false; }

  /// How many ranks of this job compute on the cores of this rank's machine,
  /// this one included (threads: every rank of the process; MPI: the
  /// processes on this host). The executor gives each rank a communication
  /// thread only when the machine has a core for it too.
  virtual int ranksSharingCores() const { return 1; }

  /// Calls made on this rank since construction or resetStats().
  const CollectiveStats &stats() const { return stats_; }
  /// Zeroes stats().
  void resetStats() { stats_ = CollectiveStats(); }

protected:
  /// The collectives of a backend, called by the public methods above once
  /// they have counted and validated the call. \p call is the call as the
  /// ranks must agree on it (kind, count or countPerRank, dtype, reduction,
  /// root); the buffers are the caller's.
  virtual void doAllGather(const CollectiveCall &call, const void *in,
                           void *out) = 0;
  virtual void doAllReduce(const CollectiveCall &call, const void *in,
                           void *out) = 0;
  virtual void doReduceScatter(const CollectiveCall &call, const void *in,
                               void *out) = 0;
  virtual void doAllToAll(const CollectiveCall &call, const void *in,
                          void *out) = 0;
  virtual void doBroadcast(const CollectiveCall &call, void *buf) = 0;
  virtual void doBarrier(const CollectiveCall &call) = 0;
  /// The default throws CommError (backend without sub-communicators).
  virtual std::unique_ptr<Communicator> doSplit(const CollectiveCall &call,
                                                int color, int key);

private:
  /// Counts one call of \p kind whose input buffer has \p inputBytes bytes.
  void recordCall(CollectiveKind kind, size_t inputBytes);

  CollectiveStats stats_;
};

/// dst[i] = srcs[0][i] op srcs[1][i] op ... op srcs[n-1][i] for \p count
/// elements of \p dtype on host memory, in source order and accumulating in
/// f32 (16-bit results are rounded once); Avg divides the sum by \p n.
/// Integers reduce exactly in their own type (sums wrap modulo 2^bits); Avg
/// of integers throws std::invalid_argument. \p dst may alias any source. The
/// reduction every host backend uses, so that all ranks get bitwise identical
/// results.
void reduceBuffers(void *dst, const void *const *srcs, size_t n, size_t count,
                   DType dtype, ReduceOp op);

// The tensor-level collectives below work on tensors of any dtype and return
// tensors of the input's dtype.

/// Gathers equally shaped local tensors from all ranks and concatenates them
/// along \p dim in rank order.
Tensor allGatherDim(Communicator &comm, const Tensor &local, int64_t dim);

/// Reduces \p x across ranks and returns this rank's piece r of size()
/// equal pieces along \p dim, whose extent must be divisible by size().
Tensor reduceScatterDim(Communicator &comm, const Tensor &x, int64_t dim,
                        ReduceOp op);

/// Splits \p x along \p splitDim into size() equal chunks (the extent must be
/// divisible), sends chunk j to rank j, and concatenates the chunks received
/// from ranks 0..size()-1 along \p concatDim.
Tensor allToAllDims(Communicator &comm, const Tensor &x, int64_t splitDim,
                    int64_t concatDim);

/// All-reduces \p x in place.
void allReduceInPlace(Communicator &comm, Tensor &x, ReduceOp op);

/// Returns rank \p root's \p x on every rank; \p x must have the same shape
/// everywhere.
Tensor broadcastTensor(Communicator &comm, const Tensor &x, int root);

/// \p start + \p timeout on the steady clock, saturated: a timeout past the
/// clock's range (a caller's "forever", e.g. INT64_MAX ms) gives the
/// clock's last time point instead of overflowing into the past. Every
/// backend's waits use it.
inline std::chrono::steady_clock::time_point
deadlineAfter(std::chrono::steady_clock::time_point start,
              std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  auto room = std::chrono::duration_cast<std::chrono::milliseconds>(
      Clock::time_point::max() - start);
  return timeout >= room ? Clock::time_point::max() : start + timeout;
}

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_COMMUNICATOR_H
