#!/usr/bin/env bash
# Installs and builds tp, then runs every test: the gtest unit tests and the
# lit/FileCheck suite, both through ctest. With TP_SANITIZE=1 it then runs
# them again under the sanitizers (scripts/sanitize.sh: ThreadSanitizer on
# the threads backend's tests, AddressSanitizer + UndefinedBehaviorSanitizer
# on the whole suite). CI (.ci/run) sets TP_SANITIZE=1; it is off by default
# because the two sanitizer builds take several times as long as the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# A failure here ends the script before the sanitizer builds start.
(cd build && ctest --output-on-failure -j"${TP_JOBS:-2}")

# TP_SANITIZE=1 runs the sanitizer builds (two more full builds).
if [ "${TP_SANITIZE:-0}" = 1 ]; then
  # Both run even if the first fails; either failing fails the script.
  status=0
  scripts/sanitize.sh thread || status=1
  scripts/sanitize.sh address || status=1
  exit "$status"
fi
