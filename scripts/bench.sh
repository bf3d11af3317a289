#!/usr/bin/env bash
# Builds tp and its benchmarks, runs every benchmark and writes
# docs/benchmarks.md with the charts in docs/bench/*.svg (about 10 minutes
# on 2 cores; the training part compares with PyTorch where Debian's
# python3-torch is installed).
#
#   scripts/bench.sh            full run -> docs/benchmarks.md, docs/bench/
#   scripts/bench.sh --quick    1-2 minute subset -> build/bench-results/
#
# Raw results (Google Benchmark JSON, MPI JSON lines, callgrind profiles) stay
# in build/bench-results/. See docs/benchmarks.md for what each part measures.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=full
case "${1:-}" in
  --quick) MODE=quick ;;
  "") ;;
  *) echo "usage: scripts/bench.sh [--quick]" >&2; exit 2 ;;
esac

START=$SECONDS
scripts/setup.sh
# callgrind (instruction counts of the compile benchmark); full runs only.
if [ "$MODE" = full ] && ! command -v valgrind >/dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends valgrind || true
fi
ninja -C build -j"${TP_JOBS:-2}" tp-bench tp-opt tp-model tp-run
BUILD_SECONDS=$((SECONDS - START))
BENCH_START=$SECONDS

RES=build/bench-results
rm -rf "$RES"
mkdir -p "$RES/e2e"
# The machine and source as they are while measuring (bench/report.py).
{ echo "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "nproc: $(nproc)"; echo "--- free -h"; free -h; echo "--- lscpu"; lscpu
} > "$RES/machine.txt"
export OPENBLAS_NUM_THREADS=1
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
# Each step logs the load average: the machine may be shared.
step() {
  echo "== $* ($((SECONDS - BENCH_START)) s)"
  echo "$((SECONDS - BENCH_START)) $(cut -d' ' -f1-3 /proc/loadavg) $*" >> "$RES/load.txt"
}

if [ "$MODE" = quick ]; then
  COMPILE_ARGS=(--sizes 1,10,100,1000 --arch-sizes 1,10 --reps 3)
  GB_REPS=3
  GB_FILTER='--benchmark_filter=/(65536|1048576|16777216)/'
  MPI_NPS=(2)
  MPI_ARGS=(--sizes 65536,1048576,16777216 --trials 3)
  MPI4_ARGS=("${MPI_ARGS[@]}")
  E2E_ARGS=(--np 1,2)
  E2E_REPS=3
  E2E_ARCHS=transformer
  TRAIN_NPS=1,2
  TRAIN_REPS=2
else
  COMPILE_ARGS=(--sizes 1,10,100,1000 --arch-sizes 1,10,100 --reps 5)
  command -v valgrind >/dev/null && COMPILE_ARGS+=(--callgrind)
  GB_REPS=3
  GB_FILTER='--benchmark_filter=.'
  MPI_NPS=(2 4)
  MPI_ARGS=(--trials 5)
  MPI4_ARGS=(--trials 3 --min-ms 10)
  E2E_ARGS=(--np 1,2,4)
  E2E_REPS=5
  E2E_ARCHS=transformer,llama
  TRAIN_NPS=1,2,4
  TRAIN_REPS=3
fi

step "1. compile time: tp-opt vs mlir-opt-22"
python3 bench/compile_bench.py --build build --out "$RES" "${COMPILE_ARGS[@]}"

step "2a. collectives: threads backend"
build/bin/collectives_bench "$GB_FILTER" \
  --benchmark_repetitions=$GB_REPS --benchmark_enable_random_interleaving=true \
  --benchmark_min_time=0.05 --benchmark_display_aggregates_only=true \
  --benchmark_out="$RES/collectives.json" --benchmark_out_format=json

if [ -x build/bin/mpi_collectives_bench ]; then
  for np in "${MPI_NPS[@]}"; do
    step "2b. collectives: mpi backend and Open MPI, $np processes"
    # 4 processes on 2 cores are slow (oversubscribed): fewer trials.
    if [ "$np" -gt 2 ]; then ARGS=("${MPI4_ARGS[@]}"); else ARGS=("${MPI_ARGS[@]}"); fi
    "${MPIRUN[@]}" -np "$np" build/bin/mpi_collectives_bench "${ARGS[@]}" \
      | tee "$RES/mpi_np$np.jsonl"
  done
fi

step "3. end to end: executor on 1, 2, 4 ranks vs raw sgemm"
python3 bench/models.py --tp-model build/bin/tp-model --out "$RES/e2e" \
  --layers 2 --archs "$E2E_ARCHS"
CASES=()
for arch in ${E2E_ARCHS//,/ }; do
  CASES+=(--case "$arch=$RES/e2e/$arch.mlir=$RES/e2e/${arch}_plan.json")
done
# The same llama written as Hugging Face's modeling file writes it, imported
# through the generic ops (needs Debian's python3-torch).
if [ "$MODE" = full ] && /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  build/bin/tp-import bench/hf_models.py:llama -o "$RES/e2e/hf_llama.mlir"
  /usr/bin/python3 bench/hf_models.py --plan 2 > "$RES/e2e/hf_llama_plan.json"
  CASES+=(--case "hf_llama=$RES/e2e/hf_llama.mlir=$RES/e2e/hf_llama_plan.json")
fi
build/bin/e2e_bench "${CASES[@]}" "${E2E_ARGS[@]}" \
  --benchmark_repetitions=$E2E_REPS --benchmark_enable_random_interleaving=true \
  --benchmark_display_aggregates_only=true \
  --benchmark_out="$RES/e2e.json" --benchmark_out_format=json
if [ "$MODE" = full ]; then
  for arch in ${E2E_ARCHS//,/ }; do
    for np in 1 2 4; do
      build/bin/tp-run "$RES/e2e/$arch.mlir" --plan "$RES/e2e/${arch}_plan.json" \
        --np "$np" --json > "$RES/tprun_${arch}_np$np.json"
    done
  done
fi

step "4. training: a step on 1, 2, 4 ranks vs its GEMM floor and PyTorch"
T="$RES/train"
mkdir -p "$T"
python3 bench/models.py --tp-model build/bin/tp-model --out "$T" --train
# OpenBLAS 0.3.21 does not know every CPU it runs on (this VM's family 6
# model 207, with AVX-512) and then falls back to its Prescott (SSE3)
# kernels, 3-4x slower: against such a floor any overhead looks small. The
# training step and PyTorch run on the AVX-512 kernels then (both use this
# OpenBLAS), and the report says so.
AUTO_CORE=$(OPENBLAS_VERBOSE=2 build/bin/tp-run --help 2>&1 \
  | sed -n 's/^Core: //p' | head -1)
TRAIN_ENV=()
NOTE=""
if [ -z "${OPENBLAS_CORETYPE:-}" ] && [ "$AUTO_CORE" = Prescott ] \
    && grep -qw avx512f /proc/cpuinfo; then
  TRAIN_ENV=(OPENBLAS_CORETYPE=SkylakeX)
  NOTE="OpenBLAS chooses its Prescott kernels on this CPU by itself (it does not know the model); sections 1-3 use them, this section its AVX-512 (SkylakeX) kernels."
fi
CORE=$(env "${TRAIN_ENV[@]}" OPENBLAS_VERBOSE=2 build/bin/tp-run --help 2>&1 \
  | sed -n 's/^Core: //p' | head -1)
printf '{"coretype": "%s", "auto": "%s", "coretype_note": "%s"}\n' \
  "$CORE" "$AUTO_CORE" "$NOTE" > "$RES/train_env.json"
env "${TRAIN_ENV[@]}" build/bin/train_bench \
  --case transformer="$T/train.mlir=$T/train_plan.json" --np "$TRAIN_NPS" \
  --steps 3 --benchmark_repetitions=$TRAIN_REPS \
  --benchmark_enable_random_interleaving=true \
  --benchmark_display_aggregates_only=true \
  --benchmark_out="$RES/train.json" --benchmark_out_format=json
# Memory: the long-sequence model's AdamW step, from its liveness plan (not
# run), and the peak tp-run measures while the second step runs.
MEM_CASES=()
for p in nosp sp sp_lp; do
  MEM_CASES+=(--memory-case "$p=$T/long.mlir=$T/long_plan_$p.json")
done
build/bin/train_bench "${MEM_CASES[@]}" --np "$TRAIN_NPS" --optimizer adamw \
  --benchmark_out="$RES/train_memory.json" --benchmark_out_format=json \
  > /dev/null
for p in nosp sp_lp; do
  for np in ${TRAIN_NPS//,/ }; do
    env "${TRAIN_ENV[@]}" build/bin/tp-run "$T/long.mlir" \
      --plan "$T/long_plan_$p.json" --np "$np" --train --steps 2 \
      --optimizer adamw --regather --json > "$T/tprun_long_${p}_np$np.json"
  done
done
# PyTorch eager on the same weights and inputs (Debian's python3-torch; the
# system python, which is not always the first python3 on PATH).
TORCH_PY=""
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import torch' 2>/dev/null; then TORCH_PY=$py; break; fi
done
if [ -n "$TORCH_PY" ]; then
  LOSSES=$(env "${TRAIN_ENV[@]}" build/bin/tp-run "$T/train.mlir" --train \
    --steps 2 --json --save-weights "$T/w.safetensors" \
    --save-inputs "$T/i.safetensors" \
    | python3 -c 'import json,sys; print(",".join(repr(x) for x in json.load(sys.stdin)["losses"]))')
  env "${TRAIN_ENV[@]}" build/bin/tp-run "$T/train.mlir" --grad \
    --dump-grads "$T/g.safetensors" > /dev/null
  env "${TRAIN_ENV[@]}" "$TORCH_PY" bench/torch_train_bench.py \
    --config "$T/train.json" --weights "$T/w.safetensors" \
    --inputs "$T/i.safetensors" --np "${TRAIN_NPS%,4}" --steps 5 \
    --tp-losses "$LOSSES" --tp-grads "$T/g.safetensors" \
    --out "$RES/torch_train.json"
else
  echo "PyTorch is not installed (apt-get install python3-torch): the" \
       "PyTorch comparison is skipped"
fi

step "done"
BENCH_SECONDS=$((SECONDS - BENCH_START))
if [ "$MODE" = full ]; then
  OUT=docs/benchmarks.md; SVG=docs/bench
else
  OUT=$RES/benchmarks.md; SVG=$RES/bench
fi
python3 bench/report.py --results "$RES" --out "$OUT" --svg-dir "$SVG" \
  --mode "$MODE" --bench-seconds "$BENCH_SECONDS" \
  --build-seconds "$BUILD_SECONDS" --notes bench/findings.md
echo "wrote $OUT and $SVG/*.svg (benchmarks: ${BENCH_SECONDS} s)"
