// convert-tp-to-shard on hand-written partitioned programs whose other ops
// are upstream ones: every tp op becomes shard/tensor/arith/linalg, and
// upstream's own mlir-opt parses and verifies the result.
// RUN: tp-opt %s --convert-tp-to-shard --split-input-file | FileCheck %s
// RUN: tp-opt %s --convert-tp-to-shard --split-input-file | mlir-opt-22 --split-input-file | FileCheck %s --check-prefix=UPSTREAM

// The mesh becomes a grid; collectives keep their axes, tp's attributes go
// and a phase stays as a string.
// CHECK: module {
// CHECK: shard.grid @mesh(shape = 2x4)
// CHECK-NOT: tp.
// CHECK-LABEL: func.func @collectives
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<8x4xf32> {
// CHECK: %[[SUM:.*]] = shard.all_reduce %[[X]] on @mesh grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK: %[[AVG:.*]] = shard.all_reduce %[[SUM]] on @mesh grid_axes = [0, 1] reduction = average {tp_phase = "backward"}
// CHECK: %[[MAX:.*]] = shard.all_reduce %[[AVG]] on @mesh grid_axes = [1] reduction = max
// CHECK: %[[MIN:.*]] = shard.all_reduce %[[MAX]] on @mesh grid_axes = [1] reduction = min
// CHECK: %[[RS:.*]] = shard.reduce_scatter %[[MIN]] on @mesh grid_axes = [1] reduction = max scatter_axis = 1 : tensor<4x8xf32> -> tensor<4x2xf32>
// CHECK: %[[AG:.*]] = shard.all_gather %[[RS]] on @mesh grid_axes = [1] gather_axis = 1 : tensor<4x2xf32> -> tensor<4x8xf32>
// CHECK: %[[A2A:.*]] = shard.all_to_all %[[AG]] on @mesh grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
// Root 5 of the 2x4 group is coordinate (1, 1).
// CHECK: %[[BC:.*]] = shard.broadcast %{{.*}} on @mesh grid_axes = [0, 1] root = [1, 1] : (tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: return %[[BC]]
// UPSTREAM: shard.grid @mesh(shape = 2x4)
// UPSTREAM: shard.reduce_scatter
// UPSTREAM: shard.broadcast
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2x4) {axis_names = ["dp", "tp"]}
  func.func @collectives(%x: tensor<4x8xf32>) -> tensor<8x4xf32>
      attributes {tp.spmd, tp.result_types = [!tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>]} {
    %s = tp.all_reduce %x on @mesh mesh_axes = [1] reduction = sum {module = "net"} : tensor<4x8xf32>
    %a = tp.all_reduce %s on @mesh mesh_axes = [0, 1] reduction = avg {tp.phase = #tp.phase<backward>} : tensor<4x8xf32>
    %m = tp.all_reduce %a on @mesh mesh_axes = [1] reduction = max : tensor<4x8xf32>
    %n = tp.all_reduce %m on @mesh mesh_axes = [1] reduction = min : tensor<4x8xf32>
    %r = tp.reduce_scatter %n on @mesh mesh_axes = [1] reduction = max scatter_axis = 1 : tensor<4x8xf32> -> tensor<4x2xf32>
    %g = tp.all_gather %r on @mesh mesh_axes = [1] gather_axis = 1 : tensor<4x2xf32> -> tensor<4x8xf32>
    %t = tp.all_to_all %g on @mesh mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x8xf32> -> tensor<8x4xf32>
    %c = arith.addf %t, %t : tensor<8x4xf32>
    %b = tp.broadcast %c on @mesh mesh_axes = [0, 1] root = 5 : tensor<8x4xf32>
    return %b : tensor<8x4xf32>
  }
}

// -----

// tp.chunk: this rank's torch.chunk piece. Even: a static size at index *
// size, the index row-major over the listed axes; uneven: ceil(n/k) pieces,
// the last ones short or empty (dynamic size).
// CHECK-LABEL: func.func @chunks
// CHECK: %[[MI:.*]]:2 = shard.process_multi_index on @mesh axes = [0, 1] : index, index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[ROW:.*]] = arith.muli %[[MI]]#0, %[[C4]]
// CHECK: %[[IDX:.*]] = arith.addi %[[ROW]], %[[MI]]#1
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[IDX]], %[[C2]]
// CHECK: tensor.extract_slice %{{.*}}[0, %[[OFF]]] [3, 2] [1, 1] : tensor<3x16xf32> to tensor<3x2xf32>
// CHECK: %[[I:.*]] = shard.process_multi_index on @mesh axes = [1] : index
// CHECK: %[[N:.*]] = arith.constant 10 : index
// CHECK: %[[K:.*]] = arith.constant 4 : index
// CHECK: %[[P:.*]] = arith.ceildivui %[[N]], %[[K]]
// CHECK: %[[S:.*]] = arith.muli %[[I]], %[[P]]
// CHECK: %[[START:.*]] = arith.minui %[[S]], %[[N]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[N]], %[[START]]
// CHECK: %[[SIZE:.*]] = arith.minui %{{.*}}, %[[LEFT]]
// CHECK: tensor.extract_slice %{{.*}}[%[[START]]] [%[[SIZE]]] [1] : tensor<10xf32> to tensor<?xf32>
// UPSTREAM-LABEL: func.func @chunks
// UPSTREAM: tensor.extract_slice
tp.mesh @mesh(shape = 2x4)
func.func @chunks(%w: tensor<3x16xf32>, %b: tensor<10xf32>) -> (tensor<3x2xf32>, tensor<?xf32>) {
  %c = tp.chunk %w on @mesh mesh_axes = [0, 1] axis = 1 : tensor<3x16xf32> -> tensor<3x2xf32>
  %u = tp.chunk %b on @mesh mesh_axes = [1] axis = 0 : tensor<10xf32> -> tensor<?xf32>
  return %c, %u : tensor<3x2xf32>, tensor<?xf32>
}

// -----

// Partial(sum) from a replicated value: the group's coordinate 0 keeps it,
// the others hold zeros; avg/max/min keep it everywhere.
// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[MI:.*]]:2 = shard.process_multi_index on @mesh axes = [0, 1]
// CHECK: %[[E0:.*]] = arith.cmpi eq, %[[MI]]#0
// CHECK: %[[E1:.*]] = arith.cmpi eq, %[[MI]]#1
// CHECK: %[[KEEP:.*]] = arith.andi %[[E0]], %[[E1]]
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: %[[SUM:.*]] = arith.select %[[KEEP]], %[[X]], %[[Z]] : tensor<4xf32>
// CHECK: return %[[SUM]], %[[X]]
tp.mesh @mesh(shape = 2x2)
func.func @partial(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = tp.partial_from_replicate %x on @mesh mesh_axes = [0, 1] reduction = sum : tensor<4xf32>
  %m = tp.partial_from_replicate %x on @mesh mesh_axes = [1] reduction = max : tensor<4xf32>
  return %s, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

// A bucket: flattened, concatenated, reduced once, read back by offset.
// CHECK-LABEL: func.func @bucket
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[L:.*]]: tensor<f32>)
// CHECK: %[[FW:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: %[[FL:.*]] = tensor.expand_shape %[[L]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[P:.*]] = tensor.concat dim(0) %[[FW]], %[[B]], %[[FL]] : (tensor<32xf32>, tensor<8xf32>, tensor<1xf32>) -> tensor<41xf32>
// CHECK: %[[R:.*]] = shard.all_reduce %[[P]] on @mesh grid_axes = [0]
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[R]][0] [32] [1] : tensor<41xf32> to tensor<32xf32>
// CHECK: %[[UW:.*]] = tensor.expand_shape %[[S0]] {{\[}}[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// CHECK: %[[UB:.*]] = tensor.extract_slice %[[R]][32] [8] [1] : tensor<41xf32> to tensor<8xf32>
// CHECK: %[[S2:.*]] = tensor.extract_slice %[[R]][40] [1] [1] : tensor<41xf32> to tensor<1xf32>
// CHECK: %[[UL:.*]] = tensor.collapse_shape %[[S2]] [] : tensor<1xf32> into tensor<f32>
// CHECK: return %[[UW]], %[[UB]], %[[UL]]
tp.mesh @mesh(shape = 2)
func.func @bucket(%w: tensor<4x8xf32>, %b: tensor<8xf32>, %l: tensor<f32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<f32>) {
  %p = tp.pack %w, %b, %l : tensor<4x8xf32>, tensor<8xf32>, tensor<f32> -> tensor<41xf32>
  %r = tp.all_reduce %p on @mesh mesh_axes = [0] reduction = sum : tensor<41xf32>
  %uw = tp.unpack %r offset = 0 : tensor<41xf32> -> tensor<4x8xf32>
  %ub = tp.unpack %r offset = 32 : tensor<41xf32> -> tensor<8xf32>
  %ul = tp.unpack %r offset = 40 : tensor<41xf32> -> tensor<f32>
  return %uw, %ub, %ul : tensor<4x8xf32>, tensor<8xf32>, tensor<f32>
}

// -----

// Uneven torch.chunk pieces (10 rows over 4 ranks: 3, 3, 3, 1). A gather
// pads each piece to 3 rows, gathers 12 and keeps the first 10 (the full
// pieces come first); a reduce_scatter pads the input to 12 rows with
// zeros, scatters 3 to each rank and keeps this rank's piece of them.
// CHECK-LABEL: func.func @uneven
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[Y:.*]]: tensor<10x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[HIGH:.*]] = arith.subi %{{.*}}, %[[D]]
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0] high[%[[HIGH]], 0]
// CHECK: %[[PADS:.*]] = tensor.cast %[[PAD]] : tensor<?x8xf32> to tensor<3x8xf32>
// CHECK: %[[G:.*]] = shard.all_gather %[[PADS]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<3x8xf32> -> tensor<12x8xf32>
// CHECK: %[[GX:.*]] = tensor.extract_slice %[[G]][0, 0] [10, 8] [1, 1] : tensor<12x8xf32> to tensor<10x8xf32>
// CHECK: %[[YP:.*]] = tensor.pad %[[Y]] low[0, 0] high[2, 0]
// CHECK: %[[RS:.*]] = shard.reduce_scatter %[[YP]] on @mesh grid_axes = [0] scatter_axis = 0 : tensor<12x8xf32> -> tensor<3x8xf32>
// CHECK: %[[I:.*]] = shard.process_multi_index on @mesh axes = [0]
// CHECK: %[[START:.*]] = arith.minui
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[START]]
// CHECK: %[[SIZE:.*]] = arith.minui %{{.*}}, %[[LEFT]]
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[RS]][0, 0] [%[[SIZE]], 8] [1, 1] : tensor<3x8xf32> to tensor<?x8xf32>
// CHECK: return %[[GX]], %[[MINE]]
// UPSTREAM-LABEL: func.func @uneven
// UPSTREAM: shard.all_gather
// UPSTREAM: shard.reduce_scatter
tp.mesh @mesh(shape = 4)
func.func @uneven(%x: tensor<?x8xf32>, %y: tensor<10x8xf32>) -> (tensor<10x8xf32>, tensor<?x8xf32>) {
  %g = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<?x8xf32> -> tensor<10x8xf32>
  %r = tp.reduce_scatter %y on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 : tensor<10x8xf32> -> tensor<?x8xf32>
  return %g, %r : tensor<10x8xf32>, tensor<?x8xf32>
}

// -----

// A module nested in the module holds its own mesh of the same name: each
// op reads the shape of the mesh its symbol resolves to (4 ranks, an even
// gather), and both meshes become grids.
// CHECK-LABEL: module {
// CHECK: shard.grid @mesh(shape = 2)
// CHECK: module {
// CHECK: shard.grid @mesh(shape = 4)
// CHECK-LABEL: func.func @nested_gather
// CHECK-NEXT: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
// CHECK-NOT: tp.
// UPSTREAM-LABEL: func.func @nested_gather
module {
  tp.mesh @mesh(shape = 2)
  module {
    tp.mesh @mesh(shape = 4)
    func.func @nested_gather(%x: tensor<4x8xf32>) -> tensor<16x8xf32> attributes {tp.spmd} {
      %g = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
      return %g : tensor<16x8xf32>
    }
  }
}
