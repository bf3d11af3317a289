// The numbers of convert-tp-to-shard's rank-dependent rewrites: exported,
// lowered by upstream mlir-opt-22 for one rank at a time (the rank a
// constant through the module's MPI:comm_world_rank, so no MPI call is
// left), run by mlir-runner-22 and checked against what each rank of tp's
// runtime holds: torch.chunk pieces (10 over 4 ranks: 3, 3, 3, 1), the
// lookups' rows and classes, Partial(sum) on rank 0 only. (Collectives
// need MPI at run time; MLIR 22's MPI lowering does not run against
// OpenMPI, see docs/embedding.md.)
// DEFINE: %{rank} = sed -e 's/^module {/module attributes {mpi.dlti = #dlti.map<"MPI:comm_world_rank" = RANK>} {/'
// DEFINE: %{lower} = mlir-opt-22 --convert-shard-to-mpi --inline --canonicalize --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --expand-strided-metadata --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts
// DEFINE: %{strip} = sed -e '/shard.grid/d' -e 's/^module attributes {mpi.dlti = [^}]*} {/module {/'
// DEFINE: %{run} = mlir-runner-22 -e main -entry-point-result=void -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so,%mlir_lib_dir/libmlir_runner_utils.so
// RUN: tp-opt %s --convert-tp-to-shard -o %t.mlir
// RUN: %{rank} -e 's/RANK/0/' %t.mlir | %{lower} | %{strip} | %{run} | FileCheck %s --check-prefix=RANK0
// RUN: %{rank} -e 's/RANK/1/' %t.mlir | %{lower} | %{strip} | %{run} | FileCheck %s --check-prefix=RANK1
// RUN: %{rank} -e 's/RANK/3/' %t.mlir | %{lower} | %{strip} | %{run} | FileCheck %s --check-prefix=RANK3

// ids = [9, 4, 0]. Rank 0 holds rows/classes 0-2: the embedding's row 0
// for the third id, the third row's target logit (class 0: 20), its
// gradient rows; Partial(sum) keeps the value here, max everywhere.
// RANK0: sizes = [3]
// RANK0-NEXT: [0, 1, 2]
// RANK0: sizes = [3, 2]
// RANK0-NEXT: {{\[}}[0, 0],
// RANK0-NEXT: [0, 0],
// RANK0-NEXT: [0, 0.5]]
// RANK0: sizes = [3, 1]
// RANK0-NEXT: {{\[}}[0],
// RANK0-NEXT: [0],
// RANK0-NEXT: [20]]
// RANK0: sizes = [3, 2]
// RANK0-NEXT: {{\[}}[5, 6],
// RANK0-NEXT: [0, 0],
// RANK0-NEXT: [0, 0]]
// RANK0: sizes = [3, 3]
// RANK0-NEXT: {{\[}}[0, 0, 0],
// RANK0-NEXT: [0, 0, 0],
// RANK0-NEXT: [20, 0, 0]]
// RANK0: sizes = [4]
// RANK0-NEXT: [1, 2, 3, 4]
// RANK0: sizes = [4]
// RANK0-NEXT: [1, 2, 3, 4]

// Rank 1 holds 3-5: id 4 (the second row), class 4 of the second row (14).
// RANK1: sizes = [3]
// RANK1-NEXT: [3, 4, 5]
// RANK1: sizes = [3, 2]
// RANK1-NEXT: {{\[}}[0, 0],
// RANK1-NEXT: [4, 4.5],
// RANK1-NEXT: [0, 0]]
// RANK1: sizes = [3, 1]
// RANK1-NEXT: {{\[}}[0],
// RANK1-NEXT: [14],
// RANK1-NEXT: [0]]
// RANK1: sizes = [3, 2]
// RANK1-NEXT: {{\[}}[0, 0],
// RANK1-NEXT: [3, 4],
// RANK1-NEXT: [0, 0]]
// RANK1: sizes = [3, 3]
// RANK1-NEXT: {{\[}}[0, 0, 0],
// RANK1-NEXT: [0, 14, 0],
// RANK1-NEXT: [0, 0, 0]]
// RANK1: sizes = [4]
// RANK1-NEXT: [0, 0, 0, 0]
// RANK1: sizes = [4]
// RANK1-NEXT: [1, 2, 3, 4]

// Rank 3 holds the short piece, row/class 9 only.
// RANK3: sizes = [1]
// RANK3-NEXT: [9]
// RANK3: sizes = [3, 2]
// RANK3-NEXT: {{\[}}[9, 9.5],
// RANK3-NEXT: [0, 0],
// RANK3-NEXT: [0, 0]]
// RANK3: sizes = [3, 1]
// RANK3-NEXT: {{\[}}[9],
// RANK3-NEXT: [0],
// RANK3-NEXT: [0]]
// RANK3: sizes = [1, 2]
// RANK3-NEXT: {{\[}}[1, 2]]
// RANK3: sizes = [3, 1]
// RANK3-NEXT: {{\[}}[9],
// RANK3-NEXT: [0],
// RANK3-NEXT: [0]]
// RANK3: sizes = [4]
// RANK3-NEXT: [0, 0, 0, 0]
// RANK3: sizes = [4]
// RANK3-NEXT: [1, 2, 3, 4]

tp.mesh @mesh(shape = 4)
func.func @pieces(%x: tensor<10xf32>, %table: tensor<10x2xf32>, %ids: tensor<3xi64>,
                  %logits: tensor<3x10xf32>, %grad: tensor<3x2xf32>, %b: tensor<4xf32>)
    -> (tensor<?xf32>, tensor<3x2xf32>, tensor<3x1xf32>, tensor<?x2xf32>, tensor<3x?xf32>, tensor<4xf32>, tensor<4xf32>) {
  %xl = tp.chunk %x on @mesh mesh_axes = [0] axis = 0 : tensor<10xf32> -> tensor<?xf32>
  %wl = tp.chunk %table on @mesh mesh_axes = [0] axis = 0 : tensor<10x2xf32> -> tensor<?x2xf32>
  %e = tp.sharded_embedding %ids, %wl on @mesh mesh_axes = [0] vocab_size = 10 : (tensor<3xi64>, tensor<?x2xf32>) -> tensor<3x2xf32>
  %ll = tp.chunk %logits on @mesh mesh_axes = [0] axis = 1 : tensor<3x10xf32> -> tensor<3x?xf32>
  %t = tp.sharded_target_logit %ll, %ids on @mesh mesh_axes = [0] num_classes = 10 : (tensor<3x?xf32>, tensor<3xi64>) -> tensor<3x1xf32>
  %eg = tp.sharded_embedding_grad %grad, %ids, %wl on @mesh mesh_axes = [0] vocab_size = 10 : (tensor<3x2xf32>, tensor<3xi64>, tensor<?x2xf32>) -> tensor<?x2xf32>
  %tg = tp.sharded_target_logit_grad %t, %ll, %ids on @mesh mesh_axes = [0] num_classes = 10 : (tensor<3x1xf32>, tensor<3x?xf32>, tensor<3xi64>) -> tensor<3x?xf32>
  %ps = tp.partial_from_replicate %b on @mesh mesh_axes = [0] reduction = sum : tensor<4xf32>
  %pm = tp.partial_from_replicate %b on @mesh mesh_axes = [0] reduction = max : tensor<4xf32>
  return %xl, %e, %t, %eg, %tg, %ps, %pm : tensor<?xf32>, tensor<3x2xf32>, tensor<3x1xf32>, tensor<?x2xf32>, tensor<3x?xf32>, tensor<4xf32>, tensor<4xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func @main() {
  %x = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>
  %table = arith.constant dense<[[0.0, 0.5], [1.0, 1.5], [2.0, 2.5], [3.0, 3.5], [4.0, 4.5], [5.0, 5.5], [6.0, 6.5], [7.0, 7.5], [8.0, 8.5], [9.0, 9.5]]> : tensor<10x2xf32>
  %ids = arith.constant dense<[9, 4, 0]> : tensor<3xi64>
  %logits = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0]]> : tensor<3x10xf32>
  %grad = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r:7 = call @pieces(%x, %table, %ids, %logits, %grad, %b) : (tensor<10xf32>, tensor<10x2xf32>, tensor<3xi64>, tensor<3x10xf32>, tensor<3x2xf32>, tensor<4xf32>)
      -> (tensor<?xf32>, tensor<3x2xf32>, tensor<3x1xf32>, tensor<?x2xf32>, tensor<3x?xf32>, tensor<4xf32>, tensor<4xf32>)
  %u0 = tensor.cast %r#0 : tensor<?xf32> to tensor<*xf32>
  %u1 = tensor.cast %r#1 : tensor<3x2xf32> to tensor<*xf32>
  %u2 = tensor.cast %r#2 : tensor<3x1xf32> to tensor<*xf32>
  %u3 = tensor.cast %r#3 : tensor<?x2xf32> to tensor<*xf32>
  %u4 = tensor.cast %r#4 : tensor<3x?xf32> to tensor<*xf32>
  %u5 = tensor.cast %r#5 : tensor<4xf32> to tensor<*xf32>
  %u6 = tensor.cast %r#6 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  return
}
