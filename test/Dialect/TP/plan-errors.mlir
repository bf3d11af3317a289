// Malformed plan files: each is rejected by tp-apply-plan with a message
// that names what is wrong.

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-malformed.json 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: plan-malformed.json:1:1: error: plan {{.*}}plan-malformed.json: malformed JSON: [1:72, byte=72]: Expected object key

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-style.json 2>&1 | FileCheck %s --check-prefix=STYLE
// STYLE: error: plan entry 'net1': unknown style 'ColumnParallel' (expected ColwiseParallel, RowwiseParallel, SequenceParallel, PrepareModuleInput, PrepareModuleOutput, PrepareModuleInputOutput, PairwiseParallel, CustomStyle or a style registered from C++)

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-missing-style.json 2>&1 | FileCheck %s --check-prefix=NO-STYLE
// NO-STYLE: error: plan entry 'net1': missing "style" (e.g. "ColwiseParallel")

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-argument.json 2>&1 | FileCheck %s --check-prefix=ARG
// ARG: error: plan entry 'net1': unknown argument 'input_layout' for ColwiseParallel (accepted: input_layouts, output_layouts, use_local_output, _prepare_input, _prepare_output)

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-sequence-dim-type.json 2>&1 | FileCheck %s --check-prefix=ARG-TYPE
// ARG-TYPE: error: plan entry 'net1': sequence_dim must be an integer

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-bad-placement.json 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// PLACEMENT: error: plan entry 'net1': output_layouts: cannot parse placement 'Replicated()' (expected Shard(d), Replicate() or Partial(op))

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-bad-partial.json 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: plan entry 'net1': output_layouts: unknown Partial reduction 'prod' (expected sum, avg, max or min)

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-tuple-colwise.json 2>&1 | FileCheck %s --check-prefix=TUPLE
// TUPLE: error: plan entry 'net1': ColwiseParallel only supports a single input_layouts, not a tuple of layouts

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-prepare-input-lengths.json 2>&1 | FileCheck %s --check-prefix=LENGTHS
// LENGTHS: error: plan entry 'net1': PrepareModuleInput input_layouts and desired_input_layouts should have same length, got 2 and 1

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-missing-tp-axis.json 2>&1 | FileCheck %s --check-prefix=NO-TP-AXIS
// NO-TP-AXIS: error: plan {{.*}}plan-missing-tp-axis.json: the mesh has 2 axes: name the tensor-parallel one with "tp_axis"

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-tp-axis-not-in-mesh.json 2>&1 | FileCheck %s --check-prefix=TP-AXIS
// TP-AXIS: error: plan {{.*}}plan-tp-axis-not-in-mesh.json: tp_axis 'model' is not an axis of the mesh

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-bad-mesh-shape.json 2>&1 | FileCheck %s --check-prefix=MESH-SHAPE
// MESH-SHAPE: error: plan {{.*}}plan-bad-mesh-shape.json: mesh.shape must be a non-empty list of positive integers

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-axis-names-count.json 2>&1 | FileCheck %s --check-prefix=AXIS-NAMES
// AXIS-NAMES: error: plan {{.*}}plan-axis-names-count.json: mesh.axis_names has 1 names for a mesh of rank 2

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-top-level-key.json 2>&1 | FileCheck %s --check-prefix=TOP-KEY
// TOP-KEY: error: plan {{.*}}plan-unknown-top-level-key.json: unknown top-level key 'plans' (expected mesh, plan, tp_axis, dp_axis, loss_parallel)

// The module below already has a 2-rank @mesh.
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-mesh-4.json 2>&1 | FileCheck %s --check-prefix=MESH-CLASH
// MESH-CLASH: error: plan {{.*}}plan-mesh-4.json: the module already has a mesh @mesh of a different shape

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/does-not-exist.json 2>&1 | FileCheck %s --check-prefix=NO-FILE
// NO-FILE: error: cannot read plan file '{{.*}}does-not-exist.json': {{[Nn]}}o such file or directory

// Every failure stops the pass: nothing is printed.
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-style.json 2>/dev/null | count 0

tp.mesh @mesh(shape = 2)
func.func @forward(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
