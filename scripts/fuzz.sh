#!/usr/bin/env bash
# Builds tp's libFuzzer targets (fuzz/, build-fuzz/: clang-22 with
# -fsanitize=fuzzer,address,undefined; see cmake/TPFuzz.cmake) and runs each
# for a bounded time on its seed corpus (fuzz/corpus/<target>/, with the
# dictionary fuzz/<target>.dict). Fails if a target finds a crash,
# leak, timeout or out-of-memory input that is not on the KNOWN_CRASHES
# list below. docs/fuzzing.md has the targets and what they found.
#
#   scripts/fuzz.sh                 every target (plan config safetensors
#                                   pipeline), FUZZ_SECONDS each
#   scripts/fuzz.sh plan pipeline   only those
#
# Environment:
#   FUZZ_SECONDS=60       run time per target (-max_total_time)
#   FUZZ_TIMEOUT=10       seconds one input may take (-timeout)
#   FUZZ_RSS_MB=2048      memory limit (-rss_limit_mb, also the malloc limit)
#   FUZZ_ARTIFACTS=DIR    where the inputs that failed go (default
#                         build-fuzz/artifacts/<date-time>/); named at the end
#   FUZZ_KNOWN=0          treat the KNOWN_CRASHES as failures too
#   TP_JOBS=2             build parallelism
#
# Each target runs in libFuzzer's fork mode (-fork=1) with crashes, timeouts
# and OOMs ignored, so that one known crash does not end the run: every input
# it saved is then replayed, and the replay's report (error line and stack)
# is matched against KNOWN_CRASHES. New inputs go to
# build-fuzz/corpus/<target>/, never to the committed seeds in
# fuzz/corpus/<target>/. Installs clang-22 and libclang-rt-22-dev (for
# libFuzzer) when they are missing; the rest comes from scripts/setup.sh's
# packages.
set -euo pipefail
cd "$(dirname "$0")/.."

# Crashes that are known and being fixed, as "id|extended regex"; the regex
# is matched against one line: the replayed input's error line, then the
# functions and files of its stack, joined by " | ". An input whose report
# matches is listed as known and does not fail the run. Remove an entry
# once its bug is fixed (then fuzzing for it fails again), and empty the
# list when all are; docs/fuzzing.md, "Found", has each one's reproducer.
# Empty: every crash found so far is fixed (docs/fuzzing.md). An entry is
#   'name|regex matched against the one-line report'
KNOWN_CRASHES=(
)

ALL_TARGETS=(plan config safetensors pipeline)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  case " ${ALL_TARGETS[*]} " in
    *" $t "*) ;;
    *) echo "fuzz.sh: unknown target '$t' (one of: ${ALL_TARGETS[*]})" >&2
       exit 2 ;;
  esac
done

scripts/install-packages.sh clang-22 libclang-rt-22-dev

export CCACHE_BASEDIR="$PWD"
JOBS="${TP_JOBS:-2}"
dir=build-fuzz
seconds="${FUZZ_SECONDS:-60}"
timeout="${FUZZ_TIMEOUT:-10}"
rss="${FUZZ_RSS_MB:-2048}"
artifacts="${FUZZ_ARTIFACTS:-$PWD/$dir/artifacts/$(date +%Y%m%d-%H%M%S)}"
[ "${FUZZ_KNOWN:-1}" = 1 ] || KNOWN_CRASHES=()

start=$SECONDS
# -O1 keeps the build short; no -DNDEBUG: tp's asserts (and those of LLVM's
# inline code compiled into it: cast<>, ArrayRef bounds) are on.
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B "$dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DTP_FUZZ=ON \
    -DTP_ENABLE_UNITTESTS=OFF \
    -DTP_ENABLE_BENCHMARKS=OFF \
    -DTP_ENABLE_CUDA=OFF \
    -DTP_ENABLE_MPI=OFF
fi
ninja -C "$dir" -j"$JOBS" "${targets[@]/#/tp-fuzz-}"
built=$SECONDS

# One line per report: its error line and its stack's functions and files.
signature() {
  grep -E 'ERROR: |Assertion|runtime error|ALARM|out-of-memory|LLVM ERROR|^    #[0-9]+ ' |
    sed -E 's/^    #[0-9]+ 0x[0-9a-f]+ in //; s/ \(BuildId: [0-9a-f]+\)//' |
    head -n 40 | tr '\n' '|' | sed 's/|/ | /g'
}

# The id of the KNOWN_CRASHES entry that signature line $1 matches, or "".
known_id() {
  local entry
  for entry in ${KNOWN_CRASHES[@]+"${KNOWN_CRASHES[@]}"}; do
    if grep -qE -- "${entry#*|}" <<<"$1"; then
      echo "${entry%%|*}"
      return
    fi
  done
}

mkdir -p "$artifacts" "$dir/logs"
status=0
failed=()
for t in "${targets[@]}"; do
  bin="$dir/bin/tp-fuzz-$t"
  corpus="$dir/corpus/$t"
  mkdir -p "$corpus"
  log="$dir/logs/$t.log"
  echo "== fuzz $t: ${seconds} s"
  # Leaks are checked per input too (LeakSanitizer).
  dict=()
  [ ! -f "fuzz/$t.dict" ] || dict=(-dict="fuzz/$t.dict")
  rc=0
  "$bin" ${dict[@]+"${dict[@]}"} -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" \
    -artifact_prefix="$artifacts/$t-" "$corpus" "fuzz/corpus/$t" \
    >"$log" 2>&1 || rc=$?
  grep -E '^#[0-9]+: cov:' "$log" | tail -n 1 || true
  new=0
  for a in "$artifacts/$t"-*; do
    [ -f "$a" ] || continue
    case "$a" in *.report) continue ;; esac
    "$bin" -timeout="$timeout" -rss_limit_mb="$rss" "$a" >"$a.report" 2>&1 || true
    sig=$(signature <"$a.report")
    id=$(known_id "$sig")
    if [ -n "$id" ]; then
      echo "   known ($id): $a"
    else
      new=$((new + 1))
      echo "   NEW: $a (report: $a.report)"
      grep -E 'ERROR: |Assertion|runtime error|ALARM|out-of-memory|LLVM ERROR|^    #[0-9] ' \
        "$a.report" | head -n 12 | sed 's/^/     /'
    fi
  done
  # A nonzero exit with nothing saved (e.g. a crash during start-up) fails
  # too.
  if [ "$new" != 0 ] || { [ "$rc" != 0 ] && ! ls "$artifacts/$t"-* >/dev/null 2>&1; }; then
    status=1
    failed+=("$t")
    [ "$new" != 0 ] || { echo "== fuzz $t exited with $rc; the end of $log:"; tail -n 40 "$log"; }
  fi
done

echo "fuzz.sh: build $((built - start)) s, fuzzing $((SECONDS - built)) s," \
     "artifacts in $artifacts"
if [ "$status" != 0 ]; then
  echo "fuzz.sh: new failures in: ${failed[*]}; reproduce with" \
       "build-fuzz/bin/tp-fuzz-<target> <artifact>" >&2
fi
exit "$status"
