// RUN: tp-opt %s | tp-opt | FileCheck %s
// RUN: tp-opt %s --mlir-print-op-generic | tp-opt | FileCheck %s

// Round trip of every tp op, placement, style and plan attribute and of the
// dtensor type, in the custom and in the generic form.

// CHECK: module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = ["layers.*.attention.w[qkv]", "output"], styles = [#tp.colwise<>, #tp.rowwise<input_layouts = #tp.shard<-1>, output_layouts = #tp.shard<0>, use_local_output = false>]>}
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = ["layers.*.attention.w[qkv]", "output"], styles = [#tp.colwise<>, #tp.rowwise<input_layouts = #tp.shard<-1>, output_layouts = #tp.shard<0>, use_local_output = false>]>} {

// CHECK: tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
// CHECK: tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
// CHECK: tp.mesh @unnamed(shape = 1x2x3){{$}}
tp.mesh @unnamed(shape = 1x2x3)

//===----------------------------------------------------------------------===//
// Placements and the dtensor type
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func private @placements_1d
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]>
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>
// CHECK-SAME: !tp.dtensor<8x16xbf16, @mesh, [#tp.partial<min>]>
// CHECK-SAME: !tp.dtensor<f32, @mesh, [#tp.replicate]>
func.func private @placements_1d(
    !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>,
    !tp.dtensor<8x16xbf16, @mesh, [#tp.partial<min>]>,
    !tp.dtensor<f32, @mesh, [#tp.replicate]>)

// Negative shard dims are stored normalized against the tensor rank.
// CHECK-LABEL: func.func private @negative_shard_dim
// CHECK-SAME: (!tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<2>]>, !tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<0>]>)
func.func private @negative_shard_dim(
    !tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<-1>]>,
    !tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<-3>]>)

// CHECK-LABEL: func.func private @placements_2d
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.partial<sum>]>
// CHECK-SAME: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>
func.func private @placements_2d(
    !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>,
    !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.partial<sum>]>,
    !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>)

//===----------------------------------------------------------------------===//
// Styles
//===----------------------------------------------------------------------===//

// Default-valued parameters are elided when printing.
// CHECK-LABEL: func.func private @colwise()
// CHECK-SAME: tp.a = #tp.colwise<>
// CHECK-SAME: tp.b = #tp.colwise<>
// CHECK-SAME: tp.c = #tp.colwise<input_layouts = #tp.shard<0>, output_layouts = #tp.replicate, use_local_output = false>
func.func private @colwise() attributes {
  tp.a = #tp.colwise<>,
  tp.b = #tp.colwise<use_local_output = true>,
  tp.c = #tp.colwise<input_layouts = #tp.shard<0>, output_layouts = #tp.replicate, use_local_output = false>}

// CHECK-LABEL: func.func private @rowwise()
// CHECK-SAME: tp.a = #tp.rowwise<>
// CHECK-SAME: tp.b = #tp.rowwise<input_layouts = #tp.shard<-1>, output_layouts = #tp.shard<0>>
// CHECK-SAME: tp.c = #tp.rowwise<output_layouts = #tp.partial<sum>, use_local_output = false>
func.func private @rowwise() attributes {
  tp.a = #tp.rowwise<>,
  tp.b = #tp.rowwise<input_layouts = #tp.shard<-1>, output_layouts = #tp.shard<0>>,
  tp.c = #tp.rowwise<output_layouts = #tp.partial<sum>, use_local_output = false>}

// CHECK-LABEL: func.func private @sequence_parallel()
// CHECK-SAME: tp.a = #tp.sequence_parallel<>
// CHECK-SAME: tp.b = #tp.sequence_parallel<sequence_dim = 0, use_local_output = true>
func.func private @sequence_parallel() attributes {
  tp.a = #tp.sequence_parallel<>,
  tp.b = #tp.sequence_parallel<sequence_dim = 0, use_local_output = true>}

// `unit` stands for Python's None in layout lists.
// CHECK-LABEL: func.func private @prepare_module_input()
// CHECK-SAME: tp.a = #tp.prepare_module_input<>
// CHECK-SAME: tp.b = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit], input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}, use_local_output = true>
// CHECK-SAME: tp.c = #tp.prepare_module_input<input_layouts = #tp.shard<1>, desired_input_layouts = #tp.replicate>
func.func private @prepare_module_input() attributes {
  tp.a = #tp.prepare_module_input<>,
  tp.b = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit], input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}, use_local_output = true>,
  tp.c = #tp.prepare_module_input<input_layouts = #tp.shard<1>, desired_input_layouts = #tp.replicate, use_local_output = false>}

// CHECK-LABEL: func.func private @prepare_module_output()
// CHECK-SAME: tp.a = #tp.prepare_module_output<output_layouts = #tp.shard<0>, desired_output_layouts = #tp.replicate>
// CHECK-SAME: tp.b = #tp.prepare_module_output<output_layouts = [#tp.partial<sum>, unit], desired_output_layouts = [#tp.shard<0>, unit], use_local_output = false>
func.func private @prepare_module_output() attributes {
  tp.a = #tp.prepare_module_output<output_layouts = #tp.shard<0>, desired_output_layouts = #tp.replicate>,
  tp.b = #tp.prepare_module_output<output_layouts = [#tp.partial<sum>, unit], desired_output_layouts = [#tp.shard<0>, unit], use_local_output = false>}

// CHECK-LABEL: func.func private @prepare_module_input_output()
// CHECK-SAME: tp.a = #tp.prepare_module_input_output<input_layouts = #tp.shard<0>, desired_input_layouts = #tp.replicate, use_local_input = true, output_layouts = #tp.partial<sum>, desired_output_layouts = #tp.replicate, use_local_output = false>
func.func private @prepare_module_input_output() attributes {
  tp.a = #tp.prepare_module_input_output<input_layouts = #tp.shard<0>, desired_input_layouts = #tp.replicate, use_local_input = true, output_layouts = #tp.partial<sum>, desired_output_layouts = #tp.replicate, use_local_output = false>}

// The seed's (PyTorch 2.1) signatures of PrepareModuleInput/Output.
// CHECK-LABEL: func.func private @legacy_prepare()
// CHECK-SAME: tp.a = #tp.legacy_prepare_module_input<>
// CHECK-SAME: tp.b = #tp.legacy_prepare_module_input<input_layouts = [#tp.shard<1>, unit], output_layouts = [#tp.replicate, unit], use_local_output = true>
// CHECK-SAME: tp.c = #tp.legacy_prepare_module_output<>
// CHECK-SAME: tp.d = #tp.legacy_prepare_module_output<input_layouts = #tp.shard<0>, output_layouts = #tp.replicate, use_local_output = false>
func.func private @legacy_prepare() attributes {
  tp.a = #tp.legacy_prepare_module_input<>,
  tp.b = #tp.legacy_prepare_module_input<input_layouts = [#tp.shard<1>, unit], output_layouts = [#tp.replicate, unit], use_local_output = true>,
  tp.c = #tp.legacy_prepare_module_output<>,
  tp.d = #tp.legacy_prepare_module_output<input_layouts = #tp.shard<0>, output_layouts = #tp.replicate, use_local_output = false>}

// The seed's deprecated pairwise styles still parse and print.
// CHECK-LABEL: func.func private @legacy_pairwise()
// CHECK-SAME: tp.a = #tp.pairwise_parallel<>
// CHECK-SAME: tp.b = #tp.pairwise_parallel<input_layouts = #tp.replicate, output_layouts = #tp.replicate, use_local_output = false>
// CHECK-SAME: tp.c = #tp.pairwise_sequence_parallel<input_layouts = #tp.shard<0>, output_layouts = #tp.shard<0>>
func.func private @legacy_pairwise() attributes {
  tp.a = #tp.pairwise_parallel<>,
  tp.b = #tp.pairwise_parallel<input_layouts = #tp.replicate, output_layouts = #tp.replicate, use_local_output = false>,
  tp.c = #tp.pairwise_sequence_parallel<input_layouts = #tp.shard<0>, output_layouts = #tp.shard<0>>}

// A plan without tp_axis, on the 2-D mesh's symbol (held by a function
// here, so not as the module's verified tp.plan).
// CHECK-LABEL: func.func private @plan()
// CHECK-SAME: tp.a = #tp.plan<mesh = @mesh2d, keys = [], styles = []>
func.func private @plan() attributes {
  tp.a = #tp.plan<mesh = @mesh2d, keys = [], styles = []>}

//===----------------------------------------------------------------------===//
// DTensor ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dtensor_ops
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
func.func @dtensor_ops(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[D:.*]] = tp.distribute %[[X]] {module = "net1"} : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %d = tp.distribute %x {module = "net1"} : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<-1>]>
  // CHECK: tp.redistribute %[[D]] : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  // CHECK: tp.redistribute %{{.*}} {module = "net2"} : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>
  %p = tp.redistribute %r {module = "net2"} : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>
  // Any change of placements is a valid op (tp-lower-redistribute rejects
  // Shard -> Partial on an axis of more than one rank).
  // CHECK: tp.redistribute %{{.*}} : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>
  %pm = tp.redistribute %p : !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>
  // CHECK: tp.redistribute %[[D]] : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]>
  %sp = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]>
  // CHECK: %[[L:.*]] = tp.to_local %[[D]] : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> tensor<8x4xf32>
  %l = tp.to_local %d : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> tensor<8x4xf32>
  // CHECK: tp.from_local %[[L]] : tensor<8x4xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %f = tp.from_local %l : tensor<8x4xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: tp.distribute %[[X]] : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>
  %d2 = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>
  // CHECK: tp.to_local %{{.*}} : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> tensor<4x8xf32>
  %l2 = tp.to_local %d2 : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> tensor<4x8xf32>
  // Uneven shards have dynamic local dims.
  // CHECK: tp.from_local %{{.*}} : tensor<?x16xf32> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
  %u = tensor.empty() : tensor<2x16xf32>
  %uc = tensor.cast %u : tensor<2x16xf32> to tensor<?x16xf32>
  %uf = tp.from_local %uc : tensor<?x16xf32> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
  // CHECK: return %[[L]] : tensor<8x4xf32>
  return %l : tensor<8x4xf32>
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @collectives
// CHECK-SAME: (%[[IN:.*]]: tensor<8x4xf32>, %[[FULL:.*]]: tensor<8x16xf32>)
func.func @collectives(%in: tensor<8x4xf32>, %full: tensor<8x16xf32>) {
  // CHECK: tp.all_gather %[[IN]] on @mesh mesh_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  %g = tp.all_gather %in on @mesh mesh_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  // CHECK: tp.all_reduce %[[FULL]] on @mesh mesh_axes = [0] reduction = {{ *}}sum : tensor<8x16xf32>
  %s = tp.all_reduce %full on @mesh mesh_axes = [0] reduction = sum : tensor<8x16xf32>
  // The phase of a training step a collective serves (tp-differentiate).
  // CHECK: tp.all_gather %[[IN]] on @mesh mesh_axes = [0] gather_axis = 1 {module = "net1", tp.phase = #tp.phase<backward>} : tensor<8x4xf32> -> tensor<8x16xf32>
  %gb = tp.all_gather %in on @mesh mesh_axes = [0] gather_axis = 1 {module = "net1", tp.phase = #tp.phase<backward>} : tensor<8x4xf32> -> tensor<8x16xf32>
  // CHECK: tp.all_reduce %[[FULL]] on @mesh mesh_axes = [0] reduction = {{ *}}avg {module = "net2"} : tensor<8x16xf32>
  %a = tp.all_reduce %full on @mesh mesh_axes = [0] reduction = avg {module = "net2"} : tensor<8x16xf32>
  // CHECK: tp.all_reduce %[[FULL]] on @mesh2d mesh_axes = [0, 1] reduction = {{ *}}max : tensor<8x16xf32>
  %mx = tp.all_reduce %full on @mesh2d mesh_axes = [0, 1] reduction = max : tensor<8x16xf32>
  // CHECK: tp.reduce_scatter %[[FULL]] on @mesh mesh_axes = [0] reduction = {{ *}}min scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  %rs = tp.reduce_scatter %full on @mesh mesh_axes = [0] reduction = min scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  // CHECK: tp.all_to_all %[[IN]] on @mesh mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
  %aa = tp.all_to_all %in on @mesh mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
  // CHECK: tp.broadcast %[[IN]] on @mesh2d mesh_axes = [1] root = 1 : tensor<8x4xf32>
  %b = tp.broadcast %in on @mesh2d mesh_axes = [1] root = 1 : tensor<8x4xf32>
  // CHECK: tp.chunk %[[FULL]] on @mesh2d mesh_axes = [0, 1] axis = 0 {module = "net1"} : tensor<8x16xf32> -> tensor<2x16xf32>
  %c = tp.chunk %full on @mesh2d mesh_axes = [0, 1] axis = 0 {module = "net1"} : tensor<8x16xf32> -> tensor<2x16xf32>
  // tp.chunk and tp.all_reduce print their attribute dictionary by hand
  // (without building it): inherent and discardable attributes, by name.
  // CHECK: tp.chunk %[[FULL]] on @mesh mesh_axes = [0] axis = 1 {aa = 1 : i64, module = "net1", tp.phase = #tp.phase<backward>} : tensor<8x16xf32> -> tensor<8x4xf32>
  %cd = tp.chunk %full on @mesh mesh_axes = [0] axis = 1 {tp.phase = #tp.phase<backward>, module = "net1", aa = 1 : i64} : tensor<8x16xf32> -> tensor<8x4xf32>
  // CHECK: tp.all_reduce %[[FULL]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "net2", zz} : tensor<8x16xf32>
  %ad = tp.all_reduce %full on @mesh mesh_axes = [0] reduction = sum {zz, module = "net2"} : tensor<8x16xf32>
  // Uneven chunks are dynamic.
  // CHECK: %[[CU:.*]] = tp.chunk %[[IN]] on @unnamed mesh_axes = [2] axis = 0 : tensor<8x4xf32> -> tensor<?x4xf32>
  %cu = tp.chunk %in on @unnamed mesh_axes = [2] axis = 0 : tensor<8x4xf32> -> tensor<?x4xf32>
  // CHECK: tp.partial_from_replicate %[[FULL]] on @mesh mesh_axes = [0] reduction = {{ *}}sum {module = "net2"} : tensor<8x16xf32>
  %ps = tp.partial_from_replicate %full on @mesh mesh_axes = [0] reduction = sum {module = "net2"} : tensor<8x16xf32>
  // CHECK: tp.partial_from_replicate %[[CU]] on @mesh2d mesh_axes = [0, 1] reduction = {{ *}}max : tensor<?x4xf32>
  %pm = tp.partial_from_replicate %cu on @mesh2d mesh_axes = [0, 1] reduction = max : tensor<?x4xf32>
  return
}

// Lookups into a table split over mesh axes, even and uneven.
// CHECK-LABEL: func.func @sharded_lookups
func.func @sharded_lookups(%ids: tensor<2x3xi64>, %w: tensor<8x16xf32>, %wu: tensor<?x16xf32>, %l: tensor<4x8xf32>, %t: tensor<4xi32>) {
  // CHECK: tp.sharded_embedding %{{.*}}, %{{.*}} on @mesh mesh_axes = [0] vocab_size = 32 {module = "tok_embeddings"} : (tensor<2x3xi64>, tensor<8x16xf32>) -> tensor<2x3x16xf32>
  %e = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 32 {module = "tok_embeddings"} : (tensor<2x3xi64>, tensor<8x16xf32>) -> tensor<2x3x16xf32>
  // CHECK: tp.sharded_embedding %{{.*}}, %{{.*}} on @mesh2d mesh_axes = [0, 1] vocab_size = 10 : (tensor<2x3xi64>, tensor<?x16xf32>) -> tensor<2x3x16xf32>
  %eu = tp.sharded_embedding %ids, %wu on @mesh2d mesh_axes = [0, 1] vocab_size = 10 : (tensor<2x3xi64>, tensor<?x16xf32>) -> tensor<2x3x16xf32>
  // CHECK: tp.sharded_target_logit %{{.*}}, %{{.*}} on @mesh mesh_axes = [0] num_classes = 32 : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<4x1xf32>
  %tl = tp.sharded_target_logit %l, %t on @mesh mesh_axes = [0] num_classes = 32 : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<4x1xf32>
  // CHECK: tp.sharded_embedding_grad %{{.*}}, %{{.*}}, %{{.*}} on @mesh mesh_axes = [0] vocab_size = 32 {module = "tok_embeddings"} : (tensor<2x3x16xf32>, tensor<2x3xi64>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %ge = tp.sharded_embedding_grad %e, %ids, %w on @mesh mesh_axes = [0] vocab_size = 32 {module = "tok_embeddings"} : (tensor<2x3x16xf32>, tensor<2x3xi64>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: tp.sharded_embedding_grad %{{.*}} on @mesh2d mesh_axes = [0, 1] vocab_size = 10 : (tensor<2x3x16xf32>, tensor<2x3xi64>, tensor<?x16xf32>) -> tensor<?x16xf32>
  %geu = tp.sharded_embedding_grad %eu, %ids, %wu on @mesh2d mesh_axes = [0, 1] vocab_size = 10 : (tensor<2x3x16xf32>, tensor<2x3xi64>, tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: tp.sharded_target_logit_grad %{{.*}}, %{{.*}}, %{{.*}} on @mesh mesh_axes = [0] num_classes = 32 : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  %gl = tp.sharded_target_logit_grad %tl, %l, %t on @mesh mesh_axes = [0] num_classes = 32 : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
  return
}

// Training dropouts on a shard: the shard dim of each mesh axis (-1: none)
// and the global shape; uneven and nested splits have dynamic dims.
// CHECK-LABEL: func.func @sharded_dropouts
func.func @sharded_dropouts(%x: tensor<2x2x16xf32>, %u: tensor<?x8xf32>, %g: tensor<1x8x16xf32>) {
  // CHECK: tp.sharded_dropout "drop"(%{{.*}}) on @mesh shard_dims = [1] global_shape = [2, 8, 16] {p = 1.000000e-01 : f64} : tensor<2x2x16xf32>
  %y = tp.sharded_dropout "drop"(%x) on @mesh shard_dims = [1] global_shape = [2, 8, 16] {p = 0.1 : f64} : tensor<2x2x16xf32>
  // CHECK: tp.sharded_dropout "drop"(%{{.*}}) on @mesh2d shard_dims = [0, 0] global_shape = [10, 8] {p = 1.000000e-01 : f64} : tensor<?x8xf32>
  %yu = tp.sharded_dropout "drop"(%u) on @mesh2d shard_dims = [0, 0] global_shape = [10, 8] {p = 0.1 : f64} : tensor<?x8xf32>
  // CHECK: tp.sharded_dropout_grad "drop"(%{{.*}}) on @mesh2d shard_dims = [0, -1] global_shape = [2, 8, 16] {p = 5.000000e-01 : f64} : tensor<1x8x16xf32>
  %gy = tp.sharded_dropout_grad "drop"(%g) on @mesh2d shard_dims = [0, -1] global_shape = [2, 8, 16] {p = 0.5 : f64} : tensor<1x8x16xf32>
  return
}

}
