#!/usr/bin/env bash
# Builds tp with sanitizers and runs its tests under them; fails on any
# sanitizer report, even one from a process whose failure a test expects.
#
#   scripts/sanitize.sh thread   ThreadSanitizer, build-tsan/: what the threads
#                                backend runs on (every gtest binary but the
#                                MPI one: TPRuntimeTests, TPExecutorTests,
#                                TPDialectTests; and the lit tests under
#                                test/tp-run)
#   scripts/sanitize.sh address  AddressSanitizer + LeakSanitizer +
#                                UndefinedBehaviorSanitizer, build-asan/: the
#                                whole ctest suite (gtest + lit)
#
# Needs the dependencies scripts/setup.sh installs. TP_JOBS=N sets the build
# and test parallelism (default 2). Suppressions, each with its reason, are in
# scripts/sanitizers/; they name third-party frames only, never tp code.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  thread)
    dir=build-tsan
    sanitizer=thread
    # MPI is off: its tests start one process per rank and never use the
    # threads backend; backend-mpi-unavailable.test runs instead.
    extra=(-DTP_ENABLE_MPI=OFF)
    # Everything: ctest below runs every gtest binary the build defines, so
    # one left unbuilt would fail as <name>_NOT_BUILT (as TPExecutorTests
    # did while this list named the binaries one by one).
    targets=(all)
    ;;
  address)
    dir=build-asan
    # GCC's "undefined" leaves out float-cast-overflow (Clang's has it):
    # converting a float outside an integer type's range is undefined too.
    sanitizer="address;undefined;float-cast-overflow"
    extra=()
    targets=(all)
    ;;
  *)
    echo "usage: $0 thread|address" >&2
    exit 2
    ;;
esac

export CCACHE_BASEDIR="$PWD"
JOBS="${TP_JOBS:-2}"
supp="$PWD/scripts/sanitizers"
logs="$PWD/$dir/sanitizer-logs"
lit=/usr/lib/llvm-22/bin/lit

# Reports go to files under $logs (one per process) so that none is lost in a
# test that expects a nonzero exit (`not tp-run ...`) or in captured output.
# UBSan, which ignores log_path when it runs with ASan, aborts instead: a
# crash fails `not` and every exit-code check.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4 suppressions=$supp/tsan.supp log_path=$logs/tsan"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1 check_initialization_order=1 strict_init_order=1 log_path=$logs/asan"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1 abort_on_error=1 print_stacktrace=1"

start=$SECONDS
# GCC (see cmake/TPSanitizers.cmake); -O1 with line tables keeps the build
# fast and the stack traces readable.
if [ ! -f "$dir/build.ninja" ]; then
  cmake -G Ninja -S . -B "$dir" \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT="$lit" \
    -DTP_SANITIZER="$sanitizer" \
    -DTP_ENABLE_CUDA=OFF \
    -DTP_ENABLE_BENCHMARKS=OFF \
    "${extra[@]}"
fi
# The build runs the gtest binaries to list their tests: under the
# sanitizer, so their reports count too.
rm -rf "$logs" && mkdir -p "$logs"
ninja -C "$dir" -j"$JOBS" "${targets[@]}"
built=$SECONDS

status=0
# A hung test fails after 600 s (ctest --timeout; lit.cfg.py sets lit's own)
# instead of holding the run until CI's time limit ends it.
# tp-docs-current compares files, the same in every build: the normal suite
# runs it.
if [ "$mode" = thread ]; then
  # OpenBLAS splits a GEMM over its own worker threads and hands them work
  # through spin-waits ThreadSanitizer cannot see (the library is not
  # instrumented): a worker's write to an output the caller later frees, and
  # another thread reuses, is reported as a race. Single-threaded GEMMs keep
  # the workers idle. (tp-run's rank threads run GEMMs single-threaded
  # anyway; the single-rank reference run of --verify does not.)
  export OPENBLAS_NUM_THREADS=1
  # Every other test of this build is a gtest (TPRuntimeTests,
  # TPExecutorTests, TPDialectTests), tp-format, or tp-embed-install (the
  # installed package: examples/embed built with the same -fsanitize flags,
  # run on rank threads); of lit, test/tp-run runs tp-run on the threads
  # backend.
  ctest --test-dir "$dir" --output-on-failure -j"$JOBS" --timeout 600 \
    -E '^(tp-lit|tp-docs-current)$' || status=1
  "$lit" -sv -j"$JOBS" "$dir/test/tp-run" || status=1
else
  # The MPI tests (TPRuntimeMPITests, test/tp-run/mpi-*.test,
  # test/tp-plan/mpi-*.test) run last, with
  # the slow unwinder: Open MPI is built without frame pointers, so the
  # stacks of its allocations would stop at its first frame, often in a
  # component it dlclose'd by exit, and lsan.supp could not tell them from
  # tp's. Elsewhere the fast unwinder keeps the suite about 3x faster.
  mpi_lit='tp-run/mpi-|tp-plan/mpi-'
  ctest --test-dir "$dir" --output-on-failure -j"$JOBS" --timeout 600 \
    -E '^(tp-lit|tp-docs-current|TPRuntimeMPITests\..*)$' || status=1
  "$lit" -sv -j"$JOBS" --filter-out "$mpi_lit" "$dir/test" || status=1
  export LSAN_OPTIONS="$LSAN_OPTIONS fast_unwind_on_malloc=0"
  ctest --test-dir "$dir" --output-on-failure -j"$JOBS" --timeout 600 \
    -R '^TPRuntimeMPITests\.' || status=1
  "$lit" -sv -j"$JOBS" --filter "$mpi_lit" "$dir/test" || status=1
fi

reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
  for f in $reports; do
    echo "== sanitizer report: $f"
    cat "$f"
  done
  echo "sanitize.sh $mode: $(echo "$reports" | wc -l) sanitizer report(s)" >&2
  status=1
fi
echo "sanitize.sh $mode: build $((built - start)) s, tests" \
     "$((SECONDS - built)) s, status $status"
exit "$status"
