//===- collectives_bench.cpp - threads-backend collectives vs memcpy ------===//
//
// Google Benchmark, nccl-tests conventions. Every benchmark's argument is S,
// the nccl-tests message size in bytes (fp32, out of place):
//
//   all_gather      S = gathered output   (each rank sends S/n)
//   all_reduce      S = per-rank buffer
//   reduce_scatter  S = full input        (each rank receives S/n)
//   all_to_all      S = per-rank send buffer
//
// algbw = S / t and busbw = algbw * 2(n-1)/n (all_reduce) or (n-1)/n (the
// others) are computed by bench/report.py from the real time per iteration.
// The ranks are the threads of a Google Benchmark ->Threads(n) run: each
// thread takes one rank of a ThreadGroup shared by that run and calls the
// collective back to back, as nccl-tests does. BM_Memcpy is one core copying
// S bytes (the ceiling of an in-process all_gather, which copies S bytes per
// rank); BM_Memcpy with 2 threads has both cores copying their own S bytes at
// once (the shared memory-bandwidth ceiling).
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Communicator.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

using namespace mlir::tp::runtime;

namespace {

/// Hands out the ranks of one ThreadGroup per benchmark run: the n threads of
/// a ->Threads(n) run each take the next rank; the first thread of the next
/// run (runs never overlap) starts a new group.
std::unique_ptr<Communicator> joinGroup(int n) {
  static std::mutex mu;
  static std::unique_ptr<ThreadGroup> group;
  static int taken = 0;
  std::lock_guard<std::mutex> lock(mu);
  if (!group || taken == group->size() || group->size() != n) {
    group = std::make_unique<ThreadGroup>(n, std::chrono::seconds(120));
    taken = 0;
  }
  return group->communicator(taken++);
}

/// A buffer of \p count floats, written by the calling thread (first touch
/// puts its pages near that thread, and no page faults are timed).
std::vector<float> buffer(size_t count, float value) {
  return std::vector<float>(count, value);
}

enum class Op { AllGather, AllReduce, ReduceScatter, AllToAll };

void runCollective(benchmark::State &state, Op op) {
  const int n = state.threads();
  const size_t bytes = static_cast<size_t>(state.range(0));
  const size_t count = bytes / sizeof(float);
  std::unique_ptr<Communicator> comm = joinGroup(n);
  const size_t perRank = count / n;
  std::vector<float> in, out;
  switch (op) {
  case Op::AllGather:
    in = buffer(perRank, 1.0f + comm->rank());
    out = buffer(perRank * n, 0.0f);
    break;
  case Op::AllReduce:
    in = buffer(count, 1.0f);
    out = buffer(count, 0.0f);
    break;
  case Op::ReduceScatter:
    in = buffer(perRank * n, 1.0f);
    out = buffer(perRank, 0.0f);
    break;
  case Op::AllToAll:
    in = buffer(perRank * n, 1.0f);
    out = buffer(perRank * n, 0.0f);
    break;
  }
  comm->barrier();
  for (auto _ : state) {
    switch (op) {
    case Op::AllGather:
      comm->allGather(in.data(), perRank, out.data());
      break;
    case Op::AllReduce:
      comm->allReduce(in.data(), out.data(), count, ReduceOp::Sum);
      break;
    case Op::ReduceScatter:
      comm->reduceScatter(in.data(), out.data(), perRank, ReduceOp::Sum);
      break;
    case Op::AllToAll:
      comm->allToAll(in.data(), out.data(), perRank);
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  if (state.thread_index() == 0)
    state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_AllGather(benchmark::State &s) { runCollective(s, Op::AllGather); }
void BM_AllReduce(benchmark::State &s) { runCollective(s, Op::AllReduce); }
void BM_ReduceScatter(benchmark::State &s) {
  runCollective(s, Op::ReduceScatter);
}
void BM_AllToAll(benchmark::State &s) { runCollective(s, Op::AllToAll); }

void BM_Memcpy(benchmark::State &state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<float> src = buffer(bytes / sizeof(float), 1.0f);
  std::vector<float> dst = buffer(bytes / sizeof(float), 0.0f);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  if (state.thread_index() == 0)
    state.counters["bytes"] = static_cast<double>(bytes);
}

/// 1 KiB .. 64 MiB in steps of 4.
void sizes(benchmark::internal::Benchmark *b) {
  for (int64_t s = 1 << 10; s <= (int64_t(64) << 20); s *= 4)
    b->Arg(s);
}

} // namespace

BENCHMARK(BM_Memcpy)->Apply(sizes)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_AllGather)->Apply(sizes)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(BM_AllReduce)->Apply(sizes)->Threads(2)->Threads(4)->UseRealTime();
BENCHMARK(BM_ReduceScatter)
    ->Apply(sizes)
    ->Threads(2)
    ->Threads(4)
    ->UseRealTime();
BENCHMARK(BM_AllToAll)->Apply(sizes)->Threads(2)->Threads(4)->UseRealTime();

BENCHMARK_MAIN();
