//===- GemmReplay.h - record a program's sgemm calls, replay them
//----------===//
//
// Shared by e2e_bench.cpp and train_bench.cpp; include it from one source
// file per benchmark binary, since it defines the cblas_sgemm interposer:
// the executable's definition wins over libopenblas's, so every sgemm of
// the runtime comes through it, is recorded when the calling thread asks
// (a GemmRecorder), and goes on to OpenBLAS. A Replay then makes the same
// calls straight into OpenBLAS on preallocated buffers: the GEMM-only time
// of what the executor ran.
//
//===----------------------------------------------------------------------===//

#ifndef TP_BENCH_GEMMREPLAY_H
#define TP_BENCH_GEMMREPLAY_H

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <vector>

namespace tpbench {

/// One cblas_sgemm call's arguments, less the pointers.
struct GemmCall {
  CBLAS_ORDER order;
  CBLAS_TRANSPOSE ta, tb;
  blasint m, n, k, lda, ldb, ldc;
  float alpha, beta;

  double flop() const { return 2.0 * m * n * k; }
};

using SgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint,
                         blasint, blasint, float, const float *, blasint,
                         const float *, blasint, float, float *, blasint);

/// OpenBLAS's own cblas_sgemm (the next definition after the interposer).
inline SgemmFn realSgemm() {
  static SgemmFn fn = [] {
    auto f = reinterpret_cast<SgemmFn>(dlsym(RTLD_NEXT, "cblas_sgemm"));
    if (!f) {
      std::fprintf(stderr, "tp bench: cannot find OpenBLAS's cblas_sgemm\n");
      std::abort();
    }
    return f;
  }();
  return fn;
}

/// Where the calling thread records its sgemm calls (null: not recording).
inline thread_local std::vector<GemmCall> *recorder = nullptr;

/// Records the calling thread's sgemm calls into \p calls while it lives.
class GemmRecorder {
public:
  explicit GemmRecorder(std::vector<GemmCall> &calls) { recorder = &calls; }
  ~GemmRecorder() { recorder = nullptr; }
  GemmRecorder(const GemmRecorder &) = delete;
  GemmRecorder &operator=(const GemmRecorder &) = delete;
};

/// The two GEMMs of the backward of the row-major \p fwd, C = op(A) op(B):
/// dA = dC op(B)^T and dB = op(A)^T dC, each written in the layout its
/// operand is stored in (so a linear's weight gradient is [out, in], as
/// the runtime computes it), with tight leading dimensions.
inline std::vector<GemmCall> backwardGemms(const GemmCall &fwd) {
  const CBLAS_TRANSPOSE N = CblasNoTrans, T = CblasTrans;
  blasint m = fwd.m, n = fwd.n, k = fwd.k;
  bool ta = fwd.ta != N, tb = fwd.tb != N;
  // Leading dimensions of the stored operands: A is [m, k] (or [k, m]),
  // B is [k, n] (or [n, k]), dC is [m, n].
  blasint ldA = ta ? m : k, ldB = tb ? k : n;
  std::vector<GemmCall> out;
  // dA.
  if (!ta)
    out.push_back(
        {CblasRowMajor, N, tb ? N : T, m, k, n, n, ldB, k, 1.0f, 0.0f});
  else
    out.push_back(
        {CblasRowMajor, tb ? T : N, T, k, m, n, ldB, n, m, 1.0f, 0.0f});
  // dB.
  if (!tb)
    out.push_back(
        {CblasRowMajor, ta ? N : T, N, k, n, m, ldA, n, n, 1.0f, 0.0f});
  else
    out.push_back(
        {CblasRowMajor, T, ta ? T : N, n, k, m, n, ldA, k, 1.0f, 0.0f});
  return out;
}

/// One rank's sgemm calls with buffers to replay them on: every call has
/// its own B (the weights, as a model's weights are distinct tensors); A
/// and C come from one scratch area (activations).
struct Replay {
  std::vector<GemmCall> calls;
  std::vector<std::vector<float>> bs;
  std::vector<float> a, c;
  double flop = 0;

  /// Allocates the buffers of `calls`.
  void prepare() {
    size_t maxA = 0, maxC = 0;
    bs.clear();
    flop = 0;
    for (const GemmCall &g : calls) {
      // Row-major: A is m x k (or k x m), B is k x n (or n x k), C is m x n.
      bool ra = g.order == CblasRowMajor;
      size_t rowsA = ra ? (g.ta == CblasNoTrans ? g.m : g.k)
                        : (g.ta == CblasNoTrans ? g.k : g.m);
      size_t rowsB = ra ? (g.tb == CblasNoTrans ? g.k : g.n)
                        : (g.tb == CblasNoTrans ? g.n : g.k);
      size_t rowsC = ra ? g.m : g.n;
      maxA = std::max(maxA, rowsA * g.lda);
      maxC = std::max(maxC, rowsC * g.ldc);
      bs.emplace_back(rowsB * g.ldb, 0.01f);
      flop += g.flop();
    }
    a.assign(maxA, 0.5f);
    c.assign(maxC, 0.0f);
  }

  /// Makes every call, in order, straight into OpenBLAS.
  void run() {
    SgemmFn f = realSgemm();
    for (size_t i = 0; i < calls.size(); ++i) {
      const GemmCall &g = calls[i];
      f(g.order, g.ta, g.tb, g.m, g.n, g.k, g.alpha, a.data(), g.lda,
        bs[i].data(), g.ldb, g.beta, c.data(), g.ldc);
    }
  }
};

/// CPU seconds the calling thread has used.
inline double threadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// Runs every rank's replay, each on its own thread (one rank: on this
/// one), and returns the largest CPU time a rank used: the floor of a step
/// whose ranks run their GEMMs at once.
inline double replayOnRanks(std::vector<Replay> &replays) {
  std::vector<double> cpus(replays.size(), 0.0);
  auto body = [&](size_t r) {
    double c0 = threadCpuSeconds();
    replays[r].run();
    cpus[r] = threadCpuSeconds() - c0;
  };
  if (replays.size() == 1) {
    body(0);
  } else {
    std::vector<std::thread> threads;
    for (size_t r = 0; r < replays.size(); ++r)
      threads.emplace_back(body, r);
    for (std::thread &t : threads)
      t.join();
  }
  return *std::max_element(cpus.begin(), cpus.end());
}

} // namespace tpbench

/// Every sgemm of the runtime comes through here, is recorded when the
/// thread asks, and goes to OpenBLAS.
extern "C" void cblas_sgemm(OPENBLAS_CONST enum CBLAS_ORDER Order,
                            OPENBLAS_CONST enum CBLAS_TRANSPOSE TransA,
                            OPENBLAS_CONST enum CBLAS_TRANSPOSE TransB,
                            OPENBLAS_CONST blasint M, OPENBLAS_CONST blasint N,
                            OPENBLAS_CONST blasint K,
                            OPENBLAS_CONST float alpha, OPENBLAS_CONST float *A,
                            OPENBLAS_CONST blasint lda, OPENBLAS_CONST float *B,
                            OPENBLAS_CONST blasint ldb,
                            OPENBLAS_CONST float beta, float *C,
                            OPENBLAS_CONST blasint ldc) {
  if (tpbench::recorder)
    tpbench::recorder->push_back(
        {Order, TransA, TransB, M, N, K, lda, ldb, ldc, alpha, beta});
  tpbench::realSgemm()(Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb,
                       beta, C, ldc);
}

#endif // TP_BENCH_GEMMREPLAY_H
