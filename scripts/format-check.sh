#!/usr/bin/env bash
# Fails, listing the files, when a C++ or CUDA source in the repository is
# not formatted as .clang-format says (clang-format-22, LLVM style). ctest
# runs it as `tp-format`; `scripts/format-check.sh --fix` formats them.
set -euo pipefail
cd "$(dirname "$0")/.."
format="${CLANG_FORMAT:-clang-format-22}"
if ! command -v "$format" >/dev/null; then
  echo "format-check.sh: $format not found (apt-get install clang-format-22)" >&2
  exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
else
  mapfile -t files < <(find include lib tools unittests bench fuzz examples \
    \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
fi
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "format-check.sh: ${#bad[@]} file(s) not formatted (scripts/format-check.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format-check.sh: ${#files[@]} files formatted"
