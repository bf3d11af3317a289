// Each pass refuses IR in a state it cannot handle (PipelineState.h): the
// error names the pass and the state it found, instead of a program that
// computes something else (an SPMD program lowered again sharded its
// parameters twice and reduced twice).

// The states tp-pipeline goes through, from the MLP example.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tp-opt %examples/mlp.mlir --tp-apply-plan=plan=%examples/mlp_plan.json -o %t/applied.mlir
// RUN: tp-opt %t/applied.mlir --tp-lower-styles -o %t/lowered.mlir
// RUN: tp-opt %t/lowered.mlir --tp-optimize --tp-lower-redistribute -o %t/collectives.mlir
// RUN: tp-opt %t/collectives.mlir --tp-partition -o %t/spmd.mlir

// Already partitioned: every pass but the report refuses, the pipeline too.
// RUN: not tp-opt %t/spmd.mlir --tp-pipeline=plan=%examples/mlp_plan.json 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-apply-plan
// RUN: not tp-opt %t/spmd.mlir --tp-pipeline 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-apply-plan
// RUN: not tp-opt %t/spmd.mlir --tp-apply-plan 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-apply-plan
// RUN: not tp-opt %t/spmd.mlir --tp-lower-styles 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-lower-styles
// RUN: not tp-opt %t/spmd.mlir --tp-propagate 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-propagate
// RUN: not tp-opt %t/spmd.mlir --tp-optimize 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-optimize
// RUN: not tp-opt %t/spmd.mlir --tp-lower-redistribute 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-lower-redistribute
// RUN: not tp-opt %t/spmd.mlir --tp-partition 2>&1 | FileCheck %s --check-prefix=SPMD -DPASS=tp-partition
// SPMD: error: [[PASS]]: the module is already partitioned (tp.spmd on @forward); run tp-pipeline once, on the model
// RUN: tp-opt %t/spmd.mlir --tp-comm-report="json=- table=false" | FileCheck %s --check-prefix=REPORT
// REPORT: "all_reduce": 1

// Styles attached but not lowered: applying a plan again, and every pass
// after tp-lower-styles, refuses.
// RUN: not tp-opt %t/applied.mlir --tp-apply-plan 2>&1 | FileCheck %s --check-prefix=APPLIED
// RUN: not tp-opt %t/applied.mlir --tp-pipeline=plan=%examples/mlp_plan.json 2>&1 | FileCheck %s --check-prefix=APPLIED
// APPLIED: error: tp-apply-plan: styles are already attached (tp.style on module 'net1'); apply one plan, once, to the model
// RUN: not tp-opt %t/applied.mlir --tp-propagate 2>&1 | FileCheck %s --check-prefix=STYLED -DPASS=tp-propagate
// RUN: not tp-opt %t/applied.mlir --tp-optimize 2>&1 | FileCheck %s --check-prefix=STYLED -DPASS=tp-optimize
// RUN: not tp-opt %t/applied.mlir --tp-lower-redistribute 2>&1 | FileCheck %s --check-prefix=STYLED -DPASS=tp-lower-redistribute
// RUN: not tp-opt %t/applied.mlir --tp-partition 2>&1 | FileCheck %s --check-prefix=STYLED -DPASS=tp-partition
// RUN: not tp-opt %t/applied.mlir --tp-comm-report 2>&1 | FileCheck %s --check-prefix=STYLED -DPASS=tp-comm-report
// STYLED: error: [[PASS]]: module 'net1' still carries a tp.style; run tp-lower-styles first

// Styles lowered (before or after tp-lower-redistribute): no new plan.
// RUN: not tp-opt %t/lowered.mlir --tp-apply-plan 2>&1 | FileCheck %s --check-prefix=LOWERED
// RUN: not tp-opt %t/collectives.mlir --tp-apply-plan=plan=%examples/mlp_plan.json 2>&1 | FileCheck %s --check-prefix=LOWERED
// LOWERED: error: tp-apply-plan: styles are already lowered ('tp.distribute' yields a !tp.dtensor); apply the plan to the model, before tp-lower-styles

// Redistributions not lowered: partitioning would drop them, the report
// would not count them.
// RUN: not tp-opt %t/lowered.mlir --tp-partition 2>&1 | FileCheck %s --check-prefix=REDIST -DPASS=tp-partition
// RUN: not tp-opt %t/lowered.mlir --tp-comm-report 2>&1 | FileCheck %s --check-prefix=REDIST -DPASS=tp-comm-report
// REDIST: error: [[PASS]]: tp.redistribute is not lowered yet; run tp-lower-redistribute first

// The states in between are accepted: running a step again changes
// nothing.
// RUN: tp-opt %t/lowered.mlir --tp-lower-styles -o %t/lowered2.mlir
// RUN: diff %t/lowered.mlir %t/lowered2.mlir
// RUN: tp-opt %t/collectives.mlir --tp-lower-redistribute -o %t/collectives2.mlir
// RUN: diff %t/collectives.mlir %t/collectives2.mlir

// Placements not propagated (hand-placed dtensors, below): tp-propagate or
// tp-lower-styles must run first.
// RUN: not tp-opt %s -split-input-file --tp-optimize 2>&1 | FileCheck %s --check-prefix=UNPROP -DPASS=tp-optimize
// RUN: not tp-opt %s -split-input-file --tp-lower-redistribute 2>&1 | FileCheck %s --check-prefix=UNPROP -DPASS=tp-lower-redistribute
// RUN: not tp-opt %s -split-input-file --tp-partition 2>&1 | FileCheck %s --check-prefix=UNPROP -DPASS=tp-partition
// RUN: not tp-opt %s -split-input-file --tp-comm-report 2>&1 | FileCheck %s --check-prefix=UNPROP -DPASS=tp-comm-report
// RUN: tp-opt %s -split-input-file --tp-propagate --tp-lower-redistribute --tp-partition | FileCheck %s --check-prefix=PROPAGATED
// UNPROP: error: [[PASS]]: placements are not propagated ('model.relu' takes a !tp.dtensor but yields a plain tensor); run tp-propagate first
// UNPROP: error: [[PASS]]: placements are not propagated ('tp.redistribute' carries a style's tp.tp_axis marker); run tp-propagate first
// PROPAGATED-COUNT-2: tp.spmd}

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @relu(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @style_axis(%x: tensor<4x16xf32>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = tp.redistribute %d {tp.tp_axis = 0 : i64} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
}
