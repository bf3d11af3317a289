// Plan files whose mesh tp.mesh itself refuses, or that disagree with the
// mesh a module holds: tp-apply-plan fails naming the problem, before any
// pass reads an invalid mesh.

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-axis-names-twice.json 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: 'tp.mesh' op mesh axis name 'tp' is used twice
// TWICE-NOT: error:

// RUN: not tp-opt %s -tp-apply-plan=plan=%S/Inputs/plan-mesh-overflow.json 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: error: 'tp.mesh' op mesh has more ranks than fit in 64 bits
// OVERFLOW-NOT: error:

// The same shape with its axes named otherwise: tp_axis would be another axis.
// RUN: not tp-opt %S/Inputs/mesh-dp-tp.mlir -tp-apply-plan=plan=%S/Inputs/plan-axis-names-swapped.json 2>&1 | FileCheck %s --check-prefix=SWAPPED
// SWAPPED: error: plan {{.*}}plan-axis-names-swapped.json: the module already has a mesh @mesh with other axis names

// A symbol @mesh of another kind: a second @mesh would be a redefinition.
// RUN: not tp-opt %S/Inputs/mesh-symbol-func.mlir -tp-apply-plan=plan=%S/Inputs/plan-axis-names-swapped.json 2>&1 | FileCheck %s --check-prefix=NOT-MESH
// NOT-MESH: error: plan {{.*}}plan-axis-names-swapped.json: the module already has a symbol @mesh that is not a tp.mesh ('func.func')

func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
