#!/usr/bin/env bash
# Installs and builds tp, then runs every test: the gtest unit tests and the
# lit/FileCheck suite, both through ctest. With TP_SANITIZE=1 it then runs
# them again under the sanitizers (scripts/sanitize.sh: ThreadSanitizer on
# the threads backend's tests, AddressSanitizer + UndefinedBehaviorSanitizer
# on the whole suite). With TP_FUZZ=1 it also runs each libFuzzer target
# briefly (scripts/fuzz.sh, FUZZ_SECONDS each, default 20 here). CI (.ci/run)
# sets both; they are off by default because the extra builds take several
# times as long as the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
# What only the tests need, installed before the build is configured (the
# demo setup does not need it): PyTorch for tp-import's tests (test/tp-import,
# lit feature `torch`), pybind11 and Python's headers for the `tp` Python
# module over the C API (python/, ctest tp-python), which CMake builds only
# when it finds them.
scripts/install-packages.sh python3-torch pybind11-dev python3-dev
scripts/setup.sh
# A failure here ends the script before the sanitizer builds start.
(cd build && ctest --output-on-failure -j"${TP_JOBS:-2}")

# The extra runs below all run even if one fails; any failing fails the
# script.
status=0

# TP_SANITIZE=1 runs the sanitizer builds (two more full builds).
if [ "${TP_SANITIZE:-0}" = 1 ]; then
  scripts/sanitize.sh thread || status=1
  scripts/sanitize.sh address || status=1
fi

# TP_FUZZ=1 builds the fuzz targets (build-fuzz/, clang-22) and fuzzes each
# for FUZZ_SECONDS.
if [ "${TP_FUZZ:-0}" = 1 ]; then
  FUZZ_SECONDS="${FUZZ_SECONDS:-20}" scripts/fuzz.sh || status=1
fi
exit "$status"
