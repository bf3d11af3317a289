#!/usr/bin/env bash
# Installs tp's dependencies on Debian 12 (only what is missing) and builds
# tp into build/ with Ninja. Used by scripts/demo.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build g++ ccache python3 clang-format-22
          llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
          libzstd-dev zlib1g-dev
          libgtest-dev libbenchmark-dev libopenblas-dev libopenmpi-dev
          openmpi-bin)
scripts/install-packages.sh "${PACKAGES[@]}"

# Relative paths in the ccache key let every clone share one cache.
export CCACHE_BASEDIR="$PWD"
JOBS="${TP_JOBS:-2}"
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C build -j"$JOBS"
