// Malformed plan files: each is rejected by tp-apply-plan with a message
// that names what is wrong.

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-malformed.json 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: plan-malformed.json:1:1: error: plan {{.*}}plan-malformed.json: malformed JSON: [1:72, byte=72]: Expected object key

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-style.json 2>&1 | FileCheck %s --check-prefix=STYLE
// STYLE: error: plan entry 'net1': unknown style 'ColumnParallel' (expected ColwiseParallel, RowwiseParallel, SequenceParallel, PrepareModuleInput, PrepareModuleOutput, PrepareModuleInputOutput, PairwiseParallel, CustomStyle or a style registered from C++: --load-style-plugin)

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-missing-style.json 2>&1 | FileCheck %s --check-prefix=NO-STYLE
// NO-STYLE: error: plan entry 'net1': missing "style" (e.g. "ColwiseParallel")

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-argument.json 2>&1 | FileCheck %s --check-prefix=ARG
// ARG: error: plan entry 'net1': unknown argument 'input_layout' for ColwiseParallel (accepted: input_layouts, output_layouts, use_local_output, shard_pieces, _prepare_input, _prepare_output)

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
// NO-TP-AXIS: error: plan {{.*}}plan-missing-tp-axis.json: the mesh has 2 axes: name the tensor-parallel one with tp_axis

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-tp-axis-not-in-mesh.json 2>&1 | FileCheck %s --check-prefix=TP-AXIS
// TP-AXIS: error: plan {{.*}}plan-tp-axis-not-in-mesh.json: tp_axis 'model' is not an axis of the mesh (its axes: dp, tp)

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-bad-mesh-shape.json 2>&1 | FileCheck %s --check-prefix=MESH-SHAPE
// MESH-SHAPE: error: plan {{.*}}plan-bad-mesh-shape.json: mesh.shape must be a non-empty list of positive integers

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-axis-names-count.json 2>&1 | FileCheck %s --check-prefix=AXIS-NAMES
// AXIS-NAMES: error: plan {{.*}}plan-axis-names-count.json: mesh.axis_names has 1 names for a mesh of rank 2

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-top-level-key.json 2>&1 | FileCheck %s --check-prefix=TOP-KEY
// TOP-KEY: error: plan {{.*}}plan-unknown-top-level-key.json: unknown top-level key 'plans' (expected mesh, plan, tp_axis, dp_axis, fsdp_axis, reshard_after_forward, fsdp_units, loss_parallel, frozen, recompute)

// The module below already has a 2-rank @mesh.
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-mesh-4.json 2>&1 | FileCheck %s --check-prefix=MESH-CLASH
// MESH-CLASH: error: plan {{.*}}plan-mesh-4.json: the module already has a mesh @mesh of a different shape

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/does-not-exist.json 2>&1 | FileCheck %s --check-prefix=NO-FILE
// NO-FILE: error: cannot read plan file '{{.*}}does-not-exist.json': {{[Nn]}}o such file or directory

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-style-number.json 2>&1 | FileCheck %s --check-prefix=STYLE-NUMBER
// STYLE-NUMBER: error: plan entry 'net1': "style" must be a string naming a style (e.g. "ColwiseParallel"), got a number

// A key written with \u escapes is the key it decodes to.
// RUN: tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unicode-key.json 2>&1 | FileCheck %s --check-prefix=UNICODE
// UNICODE: model.linear "net1"({{.*}}) {tp.style = #tp.colwise<>}

// PrepareModuleInput/Output: an argument of each signature is an error; the
// modern PrepareModuleOutput needs both layout lists; the 2.1 one takes one
// output.
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-prepare-mixed.json 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: error: plan entry 'net1': PrepareModuleInput mixes the 2.1 signature (output_layouts) with the modern one (desired_input_layouts)
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-prepare-output-no-layouts.json 2>&1 | FileCheck %s --check-prefix=OUT-NO-LAYOUTS
// OUT-NO-LAYOUTS: error: plan entry 'net1': PrepareModuleOutput requires both output_layouts and desired_output_layouts when either is given
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-prepare-output-2.1-tuple.json 2>&1 | FileCheck %s --check-prefix=OUT-TUPLE
// OUT-TUPLE: error: plan entry 'net1': PrepareModuleOutput (the 2.1 signature) supports a single output only, got 2 output_layouts; use output_layouts with desired_output_layouts for several outputs

// _prepare_input wins over input_layouts wherever either is written, and
// "_prepare_output": null is the seed's None (the style's own output).
// RUN: tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-prepare-precedence.json 2>&1 | FileCheck %s --check-prefix=PRECEDENCE
// PRECEDENCE: warning: plan entry 'net1': make_input_replicate_1d is deprecated; specify input_layouts instead
// PRECEDENCE: model.linear "net1"({{.*}}) {tp.style = #tp.colwise<input_layouts = #tp.replicate>}

// The prepare functions' arguments: only the shard_1d ones take a dim, and it
// must be in range for the tensor.
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-make-output-tensor-dim.json 2>&1 | FileCheck %s --check-prefix=FN-ARGS
// FN-ARGS: error: plan entry 'net1': make_output_tensor takes no arguments, got 'dim=3'
// RUN: not tp-opt %s --tp-pipeline=plan=%S/Inputs/plan-make-input-shard-dim.json 2>&1 | FileCheck %s --check-prefix=FN-DIM
// FN-DIM: error: ColwiseParallel on 'net1': input_layouts Shard(3) is out of range for input 0 of rank 2

// A key twice (a plan key, or an argument of one entry) is an error, not
// "the later one wins".
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-duplicate-argument.json 2>&1 | FileCheck %s --check-prefix=DUPLICATE
// DUPLICATE: error: plan {{.*}}plan-duplicate-argument.json: malformed JSON: duplicate key 'output_layouts' in 'net1' at line 1, column 102

// Every failure stops the pass: nothing is printed.
// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-unknown-style.json 2>/dev/null | count 0

tp.mesh @mesh(shape = 2)
func.func @forward(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
