// RUN: tp-opt %s --tp-comm-report="json=- table=false" | FileCheck %s --check-prefix=JSON
// RUN: tp-opt %s --tp-comm-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TABLE

// tp-comm-report on a training step: each collective counts in the phase of
// its tp.phase (forward when unmarked), per module and in total, as
// PyTorch's CommDebugMode splits forward and backward.

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

func.func @step(%a: tensor<4x8xf32>, %b: tensor<2x16xf32>, %w: tensor<16xf32>) {
  // Forward: 128 bytes.
  %0 = tp.all_reduce %a on @mesh mesh_axes = [0] reduction = sum {module = "wo"} : tensor<4x8xf32>
  // Backward: 128 bytes each.
  %g = model.relu %a {tp.phase = #tp.phase<backward>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = tp.all_gather %b on @mesh mesh_axes = [0] gather_axis = 0 {module = "wo", tp.phase = #tp.phase<backward>} : tensor<2x16xf32> -> tensor<8x16xf32>
  %2 = tp.all_reduce %g on @mesh mesh_axes = [0] reduction = sum {module = "wq", tp.phase = #tp.phase<backward>} : tensor<4x8xf32>
  // Optimizer: 64 bytes.
  %3 = tp.all_reduce %w on @mesh mesh_axes = [0] reduction = sum {module = "norm.weight", tp.phase = #tp.phase<optimizer>} : tensor<16xf32>
  return
}

// JSON:      "bytes_per_rank": 448,
// JSON-NEXT: "collectives": {
// JSON-NEXT:   "all_gather": 1,
// JSON-NEXT:   "all_reduce": 3,
// JSON:      "collectives_by_phase": {
// JSON-NEXT:   "backward": {
// JSON-NEXT:     "all_gather": 1,
// JSON-NEXT:     "all_reduce": 1,
// JSON-NEXT:     "all_to_all": 0,
// JSON-NEXT:     "broadcast": 0,
// JSON-NEXT:     "reduce_scatter": 0
// JSON-NEXT:   },
// JSON-NEXT:   "forward": {
// JSON-NEXT:     "all_gather": 0,
// JSON-NEXT:     "all_reduce": 1,
// JSON-NEXT:     "all_to_all": 0,
// JSON-NEXT:     "broadcast": 0,
// JSON-NEXT:     "reduce_scatter": 0
// JSON-NEXT:   },
// JSON-NEXT:   "optimizer": {
// JSON-NEXT:     "all_gather": 0,
// JSON-NEXT:     "all_reduce": 1,
// JSON-NEXT:     "all_to_all": 0,
// JSON-NEXT:     "broadcast": 0,
// JSON-NEXT:     "reduce_scatter": 0
// JSON-NEXT:   }
// JSON-NEXT: },
// "modules" holds every phase, as before.
// JSON-NEXT: "modules": {
// JSON-NEXT:   "norm.weight": {
// JSON-NEXT:     "all_reduce": 1,
// JSON-NEXT:     "bytes_per_rank": 64
// JSON-NEXT:   },
// JSON-NEXT:   "wo": {
// JSON-NEXT:     "all_gather": 1,
// JSON-NEXT:     "all_reduce": 1,
// JSON-NEXT:     "bytes_per_rank": 256
// JSON-NEXT:   },
// JSON-NEXT:   "wq": {
// JSON-NEXT:     "all_reduce": 1,
// JSON-NEXT:     "bytes_per_rank": 128
// JSON-NEXT:   }
// JSON-NEXT: },
// JSON-NEXT: "modules_by_phase": {
// JSON-NEXT:   "backward": {
// JSON-NEXT:     "wo": {
// JSON-NEXT:       "all_gather": 1,
// JSON-NEXT:       "bytes_per_rank": 128
// JSON-NEXT:     },
// JSON-NEXT:     "wq": {
// JSON-NEXT:       "all_reduce": 1,
// JSON-NEXT:       "bytes_per_rank": 128
// JSON-NEXT:     }
// JSON-NEXT:   },
// JSON-NEXT:   "forward": {
// JSON-NEXT:     "wo": {
// JSON-NEXT:       "all_reduce": 1,
// JSON-NEXT:       "bytes_per_rank": 128
// JSON-NEXT:     }
// JSON-NEXT:   },
// JSON-NEXT:   "optimizer": {
// JSON-NEXT:     "norm.weight": {
// JSON-NEXT:       "all_reduce": 1,
// JSON-NEXT:       "bytes_per_rank": 64
// JSON-NEXT:     }
// JSON-NEXT:   }
// JSON-NEXT: }
// JSON-NEXT: {{^}$}}

// One row per module, phase and collective (modules in program order, a
// module's phases in step order), then each phase's total and the total.
// TABLE:      module collective count bytes/rank phase
// TABLE-NEXT: wo all_reduce 1 128 forward
// TABLE-NEXT: wo all_gather 1 128 backward
// TABLE-NEXT: wq all_reduce 1 128 backward
// TABLE-NEXT: norm.weight all_reduce 1 64 optimizer
// TABLE-NEXT: total 1 128 forward
// TABLE-NEXT: total 2 256 backward
// TABLE-NEXT: total 1 64 optimizer
// TABLE-NEXT: total 4 448{{$}}
// TABLE-NOT: {{.}}
