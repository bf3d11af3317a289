#!/usr/bin/env bash
# GPU check for tp: run it on a machine with an NVIDIA GPU (CUDA toolkit with
# nvcc, cuBLAS and NCCL installed, e.g. under /usr/local/cuda).
#
# What it checks, in order (it stops at the first failure, exit status 1):
#   1. A GPU is visible (nvidia-smi -L, or /dev/nvidia0 when nvidia-smi is
#      missing). Without one it says so and exits 1: nothing here can be
#      checked without a GPU (scripts/test.sh covers the rest).
#   2. CMake finds CUDA and NCCL: configures BUILD_DIR (default build-gpu)
#      with -DTP_ENABLE_CUDA=ON, for the GPUs of this machine
#      (CMAKE_CUDA_ARCHITECTURES=native unless TP_CUDA_ARCHS says otherwise).
#   3. TPRuntimeCUDATests builds and passes with no test skipped:
#      - DeviceTensor upload/download in f32, bf16 and f16;
#      - gpu::convert bitwise against the host conversions (all 65536 bf16
#        and f16 patterns, every rounding tie, 2M random floats);
#      - every CUDA kernel (cuBLAS linear/matmul, element-wise ops with
#        broadcasting, softmax, layer_norm, rms_norm, embedding with vocab
#        masking, rotary, grouped-query causal attention) against the CPU
#        kernel on random data; bf16/f16 linear, matmul and element-wise
#        ops against f32 references within stated bounds, and the rejection
#        of mixed or unsupported dtypes;
#      - the nccl backend on 1 rank (every collective, split, the id-file
#        rendezvous, the watchdog timeout of an incomplete init), and on 2
#        ranks when the machine has 2 GPUs (on 1 GPU: NCCL's refusal of two
#        ranks on one device is reported as an error, not a hang);
#      - the threads backend over device memory, 2-4 ranks sharing one GPU:
#        every collective, mismatch detection, a tensor-parallel MLP that
#        must match the 1-rank CPU result, and bf16/f16 collectives that must
#        match the host reduceBuffers bit for bit.
#   4. The executor on the GPU (lit, test/tp-run/gpu-e2e.test and
#      device-flags.test): tp-run --device cuda with 2-4 rank threads on one
#      GPU for the MLP, transformer (sequence parallel) and llama (f32 and
#      bf16), and --backend nccl with one process (id file and TCP
#      rendezvous), each verified against one CPU rank.
#   5. GPU benchmarks (bench/gpu_bench.cpp, docs/gpu.md): builds gpu_bench
#      and runs it once; fails if it exits non-zero, writes no JSON, or any
#      benchmark reports an error. It measures cuBLAS GEMMs (f32, bf16) alone
#      and inside the executor (a chain of linears on 1 rank, parameters
#      resident), the nccl backend's per-call overhead on 1 rank (with
#      checkCollectives on and off), and all_reduce / all_gather of 2 and 4
#      rank threads on one GPU (algbw/busbw). Results: BUILD_DIR/gpu-bench.json.
#
# Usage: scripts/gpu-check.sh [BUILD_DIR]
# Environment: TP_JOBS (parallel build jobs, default: all cores),
#              TP_CUDA_ARCHS (CMAKE_CUDA_ARCHITECTURES, default native),
#              CUDA_HOME (default /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR="${1:-build-gpu}"
JOBS="${TP_JOBS:-$(nproc)}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
ARCHS="${TP_CUDA_ARCHS:-native}"
export PATH="$CUDA_HOME/bin:$PATH"

step() { printf '\n== gpu-check: %s\n' "$*"; }
die() { printf 'gpu-check: FAILED: %s\n' "$*" >&2; exit 1; }

step "1. is there a GPU?"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi -L || die "nvidia-smi finds no GPU (is the driver loaded?)"
elif [ -e /dev/nvidia0 ]; then
  echo "nvidia-smi not installed, but /dev/nvidia0 exists"
else
  die "no GPU on this machine (no nvidia-smi, no /dev/nvidia0); this script needs one"
fi

step "2. configure $BUILD_DIR with CUDA (architectures: $ARCHS)"
command -v nvcc >/dev/null 2>&1 || die "nvcc not found (set CUDA_HOME)"
nvcc --version | tail -n 2
cmake -G Ninja -S . -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" \
  -DTP_ENABLE_CUDA=ON
grep -q '^TP_HAVE_CUDA:INTERNAL=1' "$BUILD_DIR/CMakeCache.txt" ||
  die "CMake did not find CUDA and NCCL (see the configure output above)"

step "3. build and run TPRuntimeCUDATests"
ninja -C "$BUILD_DIR" -j"$JOBS" TPRuntimeCUDATests
LOG="$BUILD_DIR/gpu-check-tests.log"
if ! "$BUILD_DIR/bin/TPRuntimeCUDATests" 2>&1 | tee "$LOG"; then
  die "TPRuntimeCUDATests failed (log: $LOG)"
fi
if grep -q '^\[  SKIPPED \]' "$LOG"; then
  die "some GPU tests were skipped although a GPU is present (log: $LOG)"
fi

step "4. the executor on the GPU (tp-run --device cuda, --backend nccl)"
ninja -C "$BUILD_DIR" -j"$JOBS" tp-run tp-model tp-opt
LIT_LOG="$BUILD_DIR/gpu-check-lit.log"
/usr/lib/llvm-22/bin/lit -v "$BUILD_DIR/test/tp-run/gpu-e2e.test" \
  "$BUILD_DIR/test/tp-run/device-flags.test" 2>&1 | tee "$LIT_LOG" ||
  die "the GPU end-to-end tests failed (log: $LIT_LOG)"
if grep -q '^UNSUPPORTED' "$LIT_LOG"; then
  die "gpu-e2e.test was unsupported although a GPU is present (log: $LIT_LOG)"
fi

step "5. GPU benchmarks (gpu_bench)"
ninja -C "$BUILD_DIR" -j"$JOBS" gpu_bench
BENCH_JSON="$BUILD_DIR/gpu-bench.json"
rm -f "$BENCH_JSON"
# Google Benchmark 1.7 takes --benchmark_min_time in seconds without a unit.
"$BUILD_DIR/bin/gpu_bench" --benchmark_min_time=0.2 \
  --benchmark_out="$BENCH_JSON" --benchmark_out_format=json ||
  die "gpu_bench failed"
[ -s "$BENCH_JSON" ] ||
  die "gpu_bench wrote no $BENCH_JSON (did it find no GPU? see above)"
if grep -q '"error_occurred": true' "$BENCH_JSON"; then
  die "some GPU benchmarks reported errors (see error_message in $BENCH_JSON)"
fi
echo "GPU benchmark results: $BENCH_JSON"

step "all GPU checks passed"
