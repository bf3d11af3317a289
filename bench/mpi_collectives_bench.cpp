//===- mpi_collectives_bench.cpp - MPI backend vs plain Open MPI ----------===//
//
// Run under mpirun (one rank per process):
//
//   mpirun --allow-run-as-root --oversubscribe -np 2 mpi_collectives_bench
//       [--sizes 1024,65536,...] [--trials 5] [--min-ms 20]
//
// For every size S (nccl-tests conventions, see collectives_bench.cpp) it
// times, interleaved in this order so that a noisy phase hits all of them:
//   memcpy          rank 0 copies S bytes on one core (the others wait)
//   tp/<op>         mlir::tp::runtime::MPICommunicator (default options: the
//   call
//                   descriptors are checked, one extra 32-byte all-gather)
//   tp-nocheck/<op> the same with checkCollectives = false
//   tp-timeout/<op> as tp-run runs it: checked, with a 30 s timeout (the
//                   check is then one message per rank pair, so that a rank
//                   that does not come can be named, and the watchdog is
//                   armed)
//   ompi/<op>       plain MPI_Allgather, MPI_Allreduce,
//                   MPI_Reduce_scatter_block, MPI_Alltoall
// Each trial runs the collective back to back for a calibrated number of
// iterations (>= --min-ms); t = loop time / iterations averaged over ranks
// (nccl-tests); the median over --trials trials is printed, one JSON object
// per line, by rank 0.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/MPICommunicator.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace mlir::tp::runtime;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Seconds per call of \p fn: the median over \p trials of (back-to-back
/// loop time / iterations) averaged over ranks. Every rank calls it with the
/// same arguments.
double timeCollective(const std::function<void()> &fn, int trials,
                      double minSeconds) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  fn(); // warm up: staging buffers, CMA registration
  fn();
  // Calibrate on rank 0's view; everyone uses the same count.
  long iters = 1;
  for (;;) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (long i = 0; i < iters; ++i)
      fn();
    double dt = now() - t0, maxDt;
    MPI_Allreduce(&dt, &maxDt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (maxDt >= minSeconds / 4 || iters >= (1L << 24)) {
      iters = std::max<long>(
          1, static_cast<long>(iters * minSeconds / std::max(maxDt, 1e-9)));
      break;
    }
    iters *= 4;
  }
  std::vector<double> times;
  for (int t = 0; t < trials; ++t) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (long i = 0; i < iters; ++i)
      fn();
    double dt = (now() - t0) / iters, sum;
    MPI_Allreduce(&dt, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    times.push_back(sum / size);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Seconds per call of \p fn on this process alone: median over \p trials
/// of a calibrated back-to-back loop.
double timeLocal(const std::function<void()> &fn, int trials,
                 double minSeconds) {
  fn();
  long iters = 1;
  for (;;) {
    double t0 = now();
    for (long i = 0; i < iters; ++i)
      fn();
    double dt = now() - t0;
    if (dt >= minSeconds / 4 || iters >= (1L << 26)) {
      iters = std::max<long>(
          1, static_cast<long>(iters * minSeconds / std::max(dt, 1e-9)));
      break;
    }
    iters *= 4;
  }
  std::vector<double> times;
  for (int t = 0; t < trials; ++t) {
    double t0 = now();
    for (long i = 0; i < iters; ++i)
      fn();
    times.push_back((now() - t0) / iters);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void emit(int rank, const std::string &impl, const std::string &op, int np,
          size_t bytes, double seconds) {
  if (rank != 0)
    return;
  std::printf("{\"impl\": \"%s\", \"op\": \"%s\", \"np\": %d, \"bytes\": %zu, "
              "\"time_us\": %.4f}\n",
              impl.c_str(), op.c_str(), np, bytes, seconds * 1e6);
  std::fflush(stdout);
}

std::vector<size_t> parseSizes(const char *s) {
  std::vector<size_t> out;
  std::string str(s);
  size_t pos = 0;
  while (pos < str.size()) {
    size_t comma = str.find(',', pos);
    if (comma == std::string::npos)
      comma = str.size();
    out.push_back(std::stoull(str.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  MPIEnvironment env(&argc, &argv);
  std::vector<size_t> sizes;
  for (size_t s = 1 << 10; s <= (size_t(64) << 20); s *= 4)
    sizes.push_back(s);
  int trials = 5;
  double minSeconds = 0.02;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--sizes")
      sizes = parseSizes(argv[i + 1]);
    else if (flag == "--trials")
      trials = std::atoi(argv[i + 1]);
    else if (flag == "--min-ms")
      minSeconds = std::atof(argv[i + 1]) / 1000.0;
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  int rank = MPIEnvironment::worldRank(), np = MPIEnvironment::worldSize();
  auto checked = MPICommunicator::world();
  MPIOptions noCheck;
  noCheck.checkCollectives = false;
  auto unchecked = MPICommunicator::world(noCheck);
  MPIOptions withTimeout;
  withTimeout.timeout = std::chrono::seconds(30);
  auto timed = MPICommunicator::world(withTimeout);
  MPI_Comm raw;
  MPI_Comm_dup(MPI_COMM_WORLD, &raw);

  for (size_t bytes : sizes) {
    size_t count = bytes / sizeof(float);
    size_t perRank = count / np;
    int pr = static_cast<int>(perRank), c = static_cast<int>(count);
    // Buffers big enough for every op at this size; written once here.
    std::vector<float> in(count, 1.0f + rank), out(count, 0.0f);

    // memcpy of S bytes by rank 0 alone, while the others wait.
    {
      std::vector<float> src(count, 1.0f), dst(count, 0.0f);
      double t = 0;
      if (rank == 0)
        t = timeLocal(
            [&] {
              std::memcpy(dst.data(), src.data(), bytes);
              asm volatile("" : : "r"(dst.data()) : "memory");
            },
            trials, minSeconds);
      MPI_Barrier(MPI_COMM_WORLD);
      emit(rank, "memcpy", "memcpy", np, bytes, t);
    }

    struct Impl {
      const char *name;
      Communicator *comm;
    };
    for (Impl impl :
         {Impl{"tp", checked.get()}, Impl{"tp-nocheck", unchecked.get()},
          Impl{"tp-timeout", timed.get()}}) {
      Communicator &cm = *impl.comm;
      emit(rank, impl.name, "all_gather", np, bytes,
           timeCollective([&] { cm.allGather(in.data(), perRank, out.data()); },
                          trials, minSeconds));
      emit(rank, impl.name, "all_reduce", np, bytes,
           timeCollective(
               [&] {
                 cm.allReduce(in.data(), out.data(), count, ReduceOp::Sum);
               },
               trials, minSeconds));
      emit(rank, impl.name, "reduce_scatter", np, bytes,
           timeCollective(
               [&] {
                 cm.reduceScatter(in.data(), out.data(), perRank,
                                  ReduceOp::Sum);
               },
               trials, minSeconds));
      emit(rank, impl.name, "all_to_all", np, bytes,
           timeCollective([&] { cm.allToAll(in.data(), out.data(), perRank); },
                          trials, minSeconds));
    }
    emit(rank, "ompi", "all_gather", np, bytes,
         timeCollective(
             [&] {
               MPI_Allgather(in.data(), pr, MPI_FLOAT, out.data(), pr,
                             MPI_FLOAT, raw);
             },
             trials, minSeconds));
    emit(rank, "ompi", "all_reduce", np, bytes,
         timeCollective(
             [&] {
               MPI_Allreduce(in.data(), out.data(), c, MPI_FLOAT, MPI_SUM, raw);
             },
             trials, minSeconds));
    emit(rank, "ompi", "reduce_scatter", np, bytes,
         timeCollective(
             [&] {
               MPI_Reduce_scatter_block(in.data(), out.data(), pr, MPI_FLOAT,
                                        MPI_SUM, raw);
             },
             trials, minSeconds));
    emit(rank, "ompi", "all_to_all", np, bytes,
         timeCollective(
             [&] {
               MPI_Alltoall(in.data(), pr, MPI_FLOAT, out.data(), pr, MPI_FLOAT,
                            raw);
             },
             trials, minSeconds));
  }
  MPI_Comm_free(&raw);
  return 0;
}
