#!/usr/bin/env bash
# Installs and builds tp, then runs every test: the gtest unit tests and the
# lit/FileCheck suite, both through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure -j"${TP_JOBS:-2}"
