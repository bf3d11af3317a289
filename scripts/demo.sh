#!/usr/bin/env bash
# The demo: installs and builds tp, lowers the example MLP with a
# Colwise/Rowwise plan, prints the communication report, and runs it on 4
# CPU threads, verified against the unparallelized model on one rank.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

echo "== model: examples/mlp.json -> build/mlp.mlir (tp-model)"
build/bin/tp-model examples/mlp.json -o build/mlp.mlir
echo "== plan: examples/mlp_plan.json"
cat examples/mlp_plan.json
echo "== communication report (tp-opt --tp-pipeline)"
build/bin/tp-opt build/mlp.mlir \
  --tp-pipeline="plan=examples/mlp_plan.json report-table=true" \
  -o build/mlp.spmd.mlir
echo "== run on 4 CPU threads, verified against 1 rank (tp-run)"
build/bin/tp-run build/mlp.mlir --plan examples/mlp_plan.json --np 4 --verify
