// RUN: tp-opt %s --tp-comm-report="json=- table=false" | FileCheck %s --check-prefix=JSON
// RUN: tp-opt %s --tp-comm-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TABLE
// RUN: tp-opt %s --tp-comm-report="json=%t.json table=false" 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not tp-opt %s --tp-comm-report="json=%t.missing/report.json table=false" 2>&1 | FileCheck %s --check-prefix=BAD-FILE

// tp-comm-report: counts each rank's collectives and the bytes it feeds into
// them, in total and per module (the FQN whose style caused them). Local
// chunks are not communication.

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

func.func @forward(%a: tensor<4x8xf32>, %b: tensor<2x16xf32>, %c: tensor<8x16xf32>, %d: tensor<8xbf16>) {
  // 4*8*4 = 128 bytes each.
  %0 = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum {module = "layers.0.attention.wo"} : tensor<4x8xf32>
  %1 = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum {module = "layers.0.feed_forward.w2"} : tensor<4x8xf32>
  %2 = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = max {module = "layers.0.feed_forward.w2"} : tensor<4x8xf32>
  // 2*16*4 = 128 bytes.
  %3 = tp.all_gather %b on @mesh mesh_axes = [0] gather_axis = 0 {module = "norm"} : tensor<2x16xf32> -> tensor<8x16xf32>
  // 8*16*4 = 512 bytes.
  %4 = tp.reduce_scatter %c on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 {module = "norm"} : tensor<8x16xf32> -> tensor<2x16xf32>
  // 128 bytes, no module.
  %5 = tp.all_to_all %b on @mesh mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x16xf32> -> tensor<8x4xf32>
  // 8*2 = 16 bytes.
  %6 = tp.broadcast %d on @mesh mesh_axes = [0] root = 0 : tensor<8xbf16>
  // Not counted.
  %7 = tp.chunk %c on @mesh mesh_axes = [0] axis = 0 {module = "norm"} : tensor<8x16xf32> -> tensor<2x16xf32>
  return
}

// 128 * 3 + 128 + 512 + 128 + 16 = 1168.
// JSON:      "bytes_per_rank": 1168,
// JSON-NEXT: "collectives": {
// JSON-NEXT:   "all_gather": 1,
// JSON-NEXT:   "all_reduce": 3,
// JSON-NEXT:   "all_to_all": 1,
// JSON-NEXT:   "broadcast": 1,
// JSON-NEXT:   "reduce_scatter": 1
// JSON-NEXT: },
// Without tp.phase marks (not a training step) every collective is the
// forward's (comm-report-phases.mlir splits a training step).
// JSON-NEXT: "collectives_by_phase": {
// JSON-NEXT:   "backward": {
// JSON-NEXT:     "all_gather": 0,
// JSON-NEXT:     "all_reduce": 0,
// JSON-NEXT:     "all_to_all": 0,
// JSON-NEXT:     "broadcast": 0,
// JSON-NEXT:     "reduce_scatter": 0
// JSON-NEXT:   },
// JSON-NEXT:   "forward": {
// JSON-NEXT:     "all_gather": 1,
// JSON-NEXT:     "all_reduce": 3,
// JSON-NEXT:     "all_to_all": 1,
// JSON-NEXT:     "broadcast": 1,
// JSON-NEXT:     "reduce_scatter": 1
// JSON-NEXT:   },
// JSON-NEXT:   "optimizer": {
// JSON-NEXT:     "all_gather": 0,
// JSON-NEXT:     "all_reduce": 0,
// JSON-NEXT:     "all_to_all": 0,
// JSON-NEXT:     "broadcast": 0,
// JSON-NEXT:     "reduce_scatter": 0
// JSON-NEXT:   }
// JSON-NEXT: },
// JSON-NEXT: "modules": {
// JSON-NEXT:   "<root>": {
// JSON-NEXT:     "all_to_all": 1,
// JSON-NEXT:     "broadcast": 1,
// JSON-NEXT:     "bytes_per_rank": 144
// JSON-NEXT:   },
// JSON-NEXT:   "layers.0.attention.wo": {
// JSON-NEXT:     "all_reduce": 1,
// JSON-NEXT:     "bytes_per_rank": 128
// JSON-NEXT:   },
// JSON-NEXT:   "layers.0.feed_forward.w2": {
// JSON-NEXT:     "all_reduce": 2,
// JSON-NEXT:     "bytes_per_rank": 256
// JSON-NEXT:   },
// JSON-NEXT:   "norm": {
// JSON-NEXT:     "all_gather": 1,
// JSON-NEXT:     "bytes_per_rank": 640,
// JSON-NEXT:     "reduce_scatter": 1
// JSON-NEXT:   }
// JSON-NEXT: },
// JSON-NEXT: "modules_by_phase": {
// JSON-NEXT:   "backward": {},
// JSON-NEXT:   "forward": {
// JSON-NEXT:     "<root>": {
// JSON:        "optimizer": {}
// JSON-NEXT: }
// JSON-NEXT: {{^}$}}

// The table goes to stderr, one row per module, phase and collective
// (modules in program order), with that row's bytes; the rows add up to the
// total.
// TABLE:      module collective count bytes/rank phase
// TABLE-NEXT: layers.0.attention.wo all_reduce 1 128 forward
// TABLE-NEXT: layers.0.feed_forward.w2 all_reduce 2 256 forward
// TABLE-NEXT: norm all_gather 1 128 forward
// TABLE-NEXT: norm reduce_scatter 1 512 forward
// TABLE-NEXT: <root> all_to_all 1 128 forward
// TABLE-NEXT: <root> broadcast 1 16 forward
// TABLE-NEXT: total 7 1168{{$}}
// TABLE-NOT: {{.}}

// With table=false and the JSON in a file, nothing is printed to stderr.
// QUIET-NOT: bytes
// QUIET-NOT: module{{ +}}collective

// BAD-FILE: error: cannot write report '{{.*}}report.json':
