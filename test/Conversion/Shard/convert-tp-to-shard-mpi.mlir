// Upstream continues from convert-tp-to-shard's output: MLIR 22's
// convert-shard-to-mpi lowers the all_reduce and the rank queries behind
// tp.chunk and tp.partial_from_replicate (process_multi_index) to MPI.
// RUN: tp-opt %s --convert-tp-to-shard | mlir-opt-22 --convert-shard-to-mpi | FileCheck %s
// MLIR 22 lowers no other collective (all_gather, reduce_scatter,
// all_to_all, broadcast are "explicitly marked illegal"): upstream's gap,
// the shard ops themselves are valid (see convert-tp-to-shard.mlir). The
// upstream pass reports the error but still exits 0 and prints the IR with
// the collective left in it.
// RUN: tp-opt %S/Inputs/gather.mlir --convert-tp-to-shard -o %t.gather.mlir
// RUN: mlir-opt-22 %t.gather.mlir --convert-shard-to-mpi 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: error: failed to legalize operation 'shard.all_gather' that was explicitly marked illegal
// GATHER: shard.all_gather

// A rowwise linear: this rank's columns of the weight, its partial product,
// one all_reduce (MPI_SUM over the group of axis 0).
// CHECK-LABEL: func.func @rowwise
// CHECK: %[[RANK:.*]], %{{.*}} = mpi.comm_rank
// CHECK: %[[R:.*]] = arith.index_cast
// CHECK: %[[I:.*]] = arith.remsi %[[R]], %c4
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %c8
// CHECK: tensor.extract_slice %{{.*}}[0, %[[OFF]]] [8, 8] [1, 1] : tensor<8x32xf32> to tensor<8x8xf32>
// CHECK: linalg.matmul
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: mpi.comm_split
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}})
tp.mesh @mesh(shape = 4)
func.func @rowwise(%x: tensor<4x8xf32>, %w: tensor<8x32xf32>) -> tensor<4x8xf32> {
  %c = tp.chunk %w on @mesh mesh_axes = [0] axis = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %c : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = tp.partial_from_replicate %m on @mesh mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  %r = tp.all_reduce %p on @mesh mesh_axes = [0] reduction = sum : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
