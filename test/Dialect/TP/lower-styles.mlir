// RUN: tp-opt %s -split-input-file -tp-lower-styles -verify-diagnostics | FileCheck %s

// tp-lower-styles: parameters get their style's placements (tp.distribute),
// inputs are laid out as declared and redistributed to what the style wants,
// and natural outputs are redistributed to the requested output layouts.

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

  // ColwiseParallel: weight and bias Shard(0), input stays replicated, the
  // output is Shard(-1).
  // CHECK-LABEL: func.func @colwise
  // CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {tp.local})
  // CHECK: %[[W:.*]] = model.param "net1.weight"
  // CHECK: %[[B:.*]] = model.param "net1.bias"
  // CHECK: %[[DW:.*]] = tp.distribute %[[W]] {module = "net1"} : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK: %[[DB:.*]] = tp.distribute %[[B]] {module = "net1"} : tensor<16xf32> -> !tp.dtensor<16xf32, @mesh, [#tp.shard<0>]>
  // CHECK-NOT: tp.redistribute
  // CHECK: %[[Y:.*]] = model.linear "net1"(%[[X]], %[[DW]], %[[DB]])
  // CHECK-NOT: tp.style
  // CHECK-SAME: -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK-NEXT: return %[[Y]]
  func.func @colwise(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %b = model.param "net1.bias" : tensor<16xf32>
    %y = model.linear "net1"(%x, %w, %b) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }

  // Declared input Shard(0): the model input arrives as each rank's shard
  // (its type says so, as DTensor.from_local), and is redistributed to the
  // Replicate the style needs; the natural Shard(-1) output to the
  // requested Replicate.
  // CHECK-LABEL: func.func @colwise_layouts
  // CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  // CHECK: %[[XR:.*]] = tp.redistribute %[[X]] {module = "net1"} : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK: %[[DW:.*]] = tp.distribute %{{.*}} {module = "net1"} : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK: %[[Y:.*]] = model.linear "net1"(%[[XR]], %[[DW]]) {{.*}} -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: %[[YR:.*]] = tp.redistribute %[[Y]] {module = "net1"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  // CHECK: return %[[YR]]
  func.func @colwise_layouts(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<input_layouts = #tp.shard<0>, output_layouts = #tp.replicate>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }

  // A colwise embedding shards its weight on the embedding dim.
  // CHECK-LABEL: func.func @colwise_embedding
  // CHECK: %[[DW:.*]] = tp.distribute %{{.*}} {module = "tok_embeddings"} : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @mesh, [#tp.shard<1>]>
  // CHECK: model.embedding "tok_embeddings"(%{{.*}}, %[[DW]])
  // CHECK-SAME: -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>
  func.func @colwise_embedding(%ids: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
    %w = model.param "tok_embeddings.weight" : tensor<32x8xf32>
    %y = model.embedding "tok_embeddings"(%ids, %w) {tp.style = #tp.colwise<>} : (tensor<2x4xi64>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

  // RowwiseParallel: input Shard(-1), weight Shard(1), output Partial(sum)
  // redistributed to Replicate; the bias is split off and added once, after
  // the redistribution.
  // CHECK-LABEL: func.func @rowwise_bias
  // CHECK-SAME: (%[[XS:.*]]: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>)
  // CHECK: %[[W:.*]] = model.param "net2.weight"
  // CHECK: %[[B:.*]] = model.param "net2.bias"
  // CHECK: %[[DW:.*]] = tp.distribute %[[W]] {module = "net2"} : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: %[[P:.*]] = model.linear "net2"(%[[XS]], %[[DW]]) :
  // CHECK-SAME: -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[P]] {module = "net2"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: %[[BIASED:.*]] = model.add %[[R]], %[[B]] : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, tensor<8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: %[[RELU:.*]] = model.relu %[[BIASED]]
  // CHECK-NEXT: return %[[RELU]]
  func.func @rowwise_bias(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %b = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%x, %w, %b) {tp.style = #tp.rowwise<>} : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r = model.relu %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }

  // output_layouts = Shard(0): the Partial output is reduce-scattered on the
  // batch dim; the bias is still added once, on each rank's rows.
  // CHECK-LABEL: func.func @rowwise_shard0
  // CHECK: %[[B:.*]] = model.param "net2.bias"
  // CHECK: %[[P:.*]] = model.linear "net2"
  // CHECK-SAME: -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: %[[S:.*]] = tp.redistribute %[[P]] {module = "net2"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK-NEXT: %[[BIASED:.*]] = model.add %[[S]], %[[B]] : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>, tensor<8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK-NEXT: return %[[BIASED]]
  func.func @rowwise_shard0(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %b = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%x, %w, %b) {tp.style = #tp.rowwise<output_layouts = #tp.shard<0>>} : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }

  // Colwise then rowwise (the MLP): the colwise output already is the
  // rowwise input layout, so the only redistribution is the Partial one.
  // CHECK-LABEL: func.func @mlp
  // CHECK: %[[H:.*]] = model.linear "net1"
  // CHECK-SAME: -> !tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>
  // CHECK: %[[R:.*]] = model.relu %[[H]] : (!tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>
  // CHECK-NOT: tp.redistribute
  // CHECK: model.linear "net2"(%[[R]], %{{.*}}) :
  // CHECK-SAME: -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: tp.redistribute
  // CHECK-SAME: [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NOT: tp.redistribute
  // CHECK: return
  func.func @mlp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w1 = model.param "net1.weight" : tensor<32x8xf32>
    %h = model.linear "net1"(%x, %w1) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<32x8xf32>) -> tensor<4x32xf32>
    %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
    %w2 = model.param "net2.weight" : tensor<8x32xf32>
    %y = model.linear "net2"(%r, %w2) {tp.style = #tp.rowwise<>} : (tensor<4x32xf32>, tensor<8x32xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }

  // PrepareModuleInput on a composite module: the first input is declared
  // Shard(0) and wanted Replicate; the second (None) passes through.
  // CHECK-LABEL: func.func @prepare_module_input
  // CHECK-SAME: (%[[XS:.*]]: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>, %[[M:.*]]: tensor<4x8xf32>)
  // CHECK: %[[XR:.*]] = tp.redistribute %[[XS]] {module = "block"} : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK: model.module "block"(%[[XR]], %[[M]]) : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: ^bb0(%{{.*}}: !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, %{{.*}}: tensor<4x8xf32>):
  func.func @prepare_module_input(%x: tensor<4x8xf32>, %m: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "block"(%x, %m) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
      %s = model.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %s : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  // PrepareModuleOutput: the yielded value is redistributed inside the
  // module, and the module's result type follows.
  // CHECK-LABEL: func.func @prepare_module_output
  // CHECK: %[[Y:.*]] = model.module "block"(%{{.*}}) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  // CHECK: %[[G:.*]] = model.gelu
  // CHECK-NEXT: %[[GR:.*]] = tp.redistribute %[[G]] {module = "block"} : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: model.yield %[[GR]] : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  // CHECK: return %[[Y]] : !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  func.func @prepare_module_output(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %h = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %y = model.module "block"(%h) {tp.style = #tp.prepare_module_output<output_layouts = #tp.shard<1>, desired_output_layouts = #tp.replicate>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
    ^bb0(%a: tensor<4x16xf32>):
      %g = model.gelu %a : (tensor<4x16xf32>) -> tensor<4x16xf32>
      model.yield %g : tensor<4x16xf32>
    }
    return %y : tensor<4x16xf32>
  }

  // PrepareModuleInputOutput with a keyword input found through arg_names.
  // CHECK-LABEL: func.func @prepare_module_input_output
  // CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[MS:.*]]: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>)
  // CHECK: %[[MR:.*]] = tp.redistribute %[[MS]] {module = "block"} : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK: model.module "block"(%[[X]], %[[MR]]) {arg_names = ["x", "mask"]}
  // CHECK-SAME: -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK: tp.redistribute %{{.*}} {module = "block"} : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK-NEXT: model.yield
  func.func @prepare_module_input_output(%x: tensor<4x8xf32>, %m: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "block"(%x, %m) {arg_names = ["x", "mask"], tp.style = #tp.prepare_module_input_output<input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}, output_layouts = #tp.replicate, desired_output_layouts = #tp.shard<0>>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
      %s = model.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %s : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  // RowwiseParallel on an embedding shards the vocabulary (weight rows):
  // ids outside a rank's rows look up zeros, so the output is Partial(sum).
  // CHECK-LABEL: func.func @rowwise_embedding
  // CHECK-SAME: (%[[IDS:.*]]: tensor<2x4xi64>, %[[W:.*]]: tensor<32x8xf32>)
  // CHECK-NEXT: %[[DW:.*]] = tp.distribute %[[W]] {module = "tok_embeddings"} : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK-NEXT: %[[E:.*]] = model.embedding "tok_embeddings"(%[[IDS]], %[[DW]]) : (tensor<2x4xi64>, !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: %[[S:.*]] = tp.redistribute %[[E]] {module = "tok_embeddings"} : !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
  // CHECK-NEXT: return %[[S]]
  func.func @rowwise_embedding(%ids: tensor<2x4xi64>, %w: tensor<32x8xf32>) -> tensor<2x4x8xf32> {
    %y = model.embedding "tok_embeddings"(%ids, %w) {tp.style = #tp.rowwise<input_layouts = #tp.replicate, output_layouts = #tp.shard<1>>} : (tensor<2x4xi64>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

  // SequenceParallel: the norm's input and output are sharded on the
  // sequence dim (default 1); its weight stays replicated.
  // CHECK-LABEL: func.func @sequence_parallel
  // CHECK-SAME: (%[[XS:.*]]: !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>, %[[G:.*]]: tensor<8xf32>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
  // CHECK-NEXT: %[[N:.*]] = model.rms_norm "norm"(%[[XS]], %[[G]]) : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>, tensor<8xf32>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<1>]>
  // CHECK-NEXT: return %[[N]]
  func.func @sequence_parallel(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
    %y = model.rms_norm "norm"(%x, %g) {tp.style = #tp.sequence_parallel<>} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

  // A dropout may be sharded on its last dim too.
  // CHECK-LABEL: func.func @sequence_parallel_dropout
  // CHECK: model.dropout "drop"(%{{.*}}) : (!tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>
  func.func @sequence_parallel_dropout(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    %y = model.dropout "drop"(%x) {tp.style = #tp.sequence_parallel<sequence_dim = -1>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

  // The seed's PairwiseParallel: first linear colwise, second rowwise, and
  // the output as output_layouts asks (default Replicate).
  // CHECK-LABEL: func.func @pairwise
  // CHECK: model.module "mlp"(%{{.*}}) {kind = "FeedForward"} : (tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK: tp.distribute %{{.*}} {module = "mlp.net1"} : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK: model.linear "mlp.net1"
  // CHECK-SAME: -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: tp.distribute %{{.*}} {module = "mlp.net2"} : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: %[[P:.*]] = model.linear "mlp.net2"
  // CHECK-SAME: -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: %[[S:.*]] = tp.redistribute %[[P]] {module = "mlp.net2"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK-NEXT: model.yield %[[S]]
  func.func @pairwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "mlp"(%x) {kind = "FeedForward", tp.style = #tp.pairwise_parallel<output_layouts = #tp.shard<0>>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %w1 = model.param "mlp.net1.weight" : tensor<16x8xf32>
      %h = model.linear "mlp.net1"(%a, %w1) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
      %r = model.relu %h : (tensor<4x16xf32>) -> tensor<4x16xf32>
      %w2 = model.param "mlp.net2.weight" : tensor<8x16xf32>
      %o = model.linear "mlp.net2"(%r, %w2) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
      model.yield %o : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  // The seed's SequenceParallel variant: input Shard(0) -> Replicate,
  // output Shard(0). As in the seed, the input is prepared where the first
  // linear takes it (its input_fn), the output where the last one gives it.
  // That input is the model's, passed into `mlp` unchanged: it arrives as
  // each rank's Shard(0), and the module's block argument says so too.
  // CHECK-LABEL: func.func @pairwise_sequence_parallel
  // CHECK-SAME: (%{{.*}}: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>) -> (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> {tp.local})
  // CHECK: model.module "mlp"(%{{.*}}) : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>)
  // CHECK-NEXT: ^bb0(%[[A:.*]]: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>):
  // CHECK: %[[XR:.*]] = tp.redistribute %[[A]] {module = "mlp.net1"} : {{.*}} -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK: model.linear "mlp.net1"(%[[XR]],
  // CHECK: tp.redistribute %{{.*}} {module = "mlp.net2"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  func.func @pairwise_sequence_parallel(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "mlp"(%x) {tp.style = #tp.pairwise_sequence_parallel<>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %w1 = model.param "mlp.net1.weight" : tensor<16x8xf32>
      %h = model.linear "mlp.net1"(%a, %w1) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
      %w2 = model.param "mlp.net2.weight" : tensor<8x16xf32>
      %o = model.linear "mlp.net2"(%h, %w2) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
      model.yield %o : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  // PrepareModuleInputOutput on the root module (plan key ""): the model
  // function's arguments and returned values.
  // CHECK-LABEL: func.func @root_module
  // CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[YS:.*]]: !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>) -> (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]> {tp.local}, tensor<4x8xf32>)
  // CHECK-NOT: tp.style
  // CHECK-NEXT: %[[YR:.*]] = tp.redistribute %[[YS]] : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: %[[R:.*]] = model.relu %[[YR]]
  // CHECK-NEXT: %[[RS:.*]] = tp.redistribute %[[R]] : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  // CHECK-NEXT: return %[[RS]], %[[X]]
  func.func @root_module(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {tp.style = #tp.prepare_module_input_output<input_layouts = [unit, #tp.shard<0>], desired_input_layouts = [unit, #tp.replicate], output_layouts = [#tp.replicate, unit], desired_output_layouts = [#tp.shard<1>, unit]>} {
    %r = model.relu %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %r, %x : tensor<4x8xf32>, tensor<4x8xf32>
  }
}

// -----

// A 2-D mesh: the styles act on the plan's tp_axis, other axes replicate.
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2x4) {axis_names = ["dp", "tp"]}
  // CHECK-LABEL: func.func @mlp_2d
  // CHECK: tp.distribute %{{.*}} {module = "net1"} : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
  // CHECK: tp.distribute %{{.*}} {module = "net1"} : tensor<32xf32> -> !tp.dtensor<32xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
  // CHECK: %[[H:.*]] = model.linear "net1"
  // CHECK-SAME: -> !tp.dtensor<4x32xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
  // CHECK: tp.distribute %{{.*}} {module = "net2"} : tensor<8x32xf32> -> !tp.dtensor<8x32xf32, @mesh, [#tp.replicate, #tp.shard<1>]>
  // CHECK: %[[P:.*]] = model.linear "net2"
  // CHECK-SAME: -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate, #tp.partial<sum>]>
  // CHECK-NEXT: tp.redistribute %[[P]] {module = "net2"} : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate, #tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate, #tp.replicate]>
  func.func @mlp_2d(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w1 = model.param "net1.weight" : tensor<32x8xf32>
    %b1 = model.param "net1.bias" : tensor<32xf32>
    %h = model.linear "net1"(%x, %w1, %b1) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>
    %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
    %w2 = model.param "net2.weight" : tensor<8x32xf32>
    %b2 = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%r, %w2, %b2) {tp.style = #tp.rowwise<>} : (tensor<4x32xf32>, tensor<8x32xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
}

// -----

// Without styles the pass changes nothing, and needs no plan.
// CHECK-LABEL: func.func @no_styles
// CHECK-NEXT: return %arg0 : tensor<4xf32>
func.func @no_styles(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{modules carry tp.style but the module has no tp.plan naming the mesh; run tp-apply-plan}}
module {
  tp.mesh @mesh(shape = 4)
  func.func @no_plan(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return
  }
}

// -----

// expected-error @below {{plan on mesh @mesh: the mesh has 2 axes: name the tensor-parallel one with tp_axis}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  func.func @no_tp_axis(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return
  }
}

// -----

// expected-error @below {{plan on mesh @mesh: tp_axis 'model' is not an axis of the mesh (its axes: dp, tp)}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "model", keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  func.func @bad_tp_axis(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return
  }
}

// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @too_many_input_layouts(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) {
    // expected-error @below {{PrepareModuleInput on 'net1': module inputs and input_layouts should have same length, got 1 input and 2 layouts}}
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, #tp.shard<0>], desired_input_layouts = [#tp.replicate, #tp.replicate]>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return
  }
}

// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @unknown_keyword(%x: tensor<4x8xf32>) {
    // expected-error @below {{PrepareModuleInput on 'block': the module has no keyword input 'mask'}}
    %y = model.module "block"(%x) {arg_names = ["x"], tp.style = #tp.prepare_module_input<input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return
  }
}

// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @too_many_output_layouts(%x: tensor<4x8xf32>) {
    // expected-error @below {{PrepareModuleOutput on 'block': module outputs and output_layouts should have same length, got 1 output and 2 layouts}}
    %y = model.module "block"(%x) {tp.style = #tp.prepare_module_output<output_layouts = [#tp.replicate, #tp.replicate], desired_output_layouts = [#tp.shard<0>, #tp.shard<0>]>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return
  }
}

// -----
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @sequence_dim_out_of_range(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) {
    // expected-error @below {{SequenceParallel on 'norm': sequence_dim 2 is out of range (or the normalized dim) for an input of rank 3}}
    %y = model.rms_norm "norm"(%x, %g) {tp.style = #tp.sequence_parallel<sequence_dim = 2>} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    return
  }
}
// -----
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @pairwise_one_linear(%x: tensor<4x8xf32>) {
    // The seed leaves a module with fewer than two linears as it is.
    // expected-warning @below {{PairwiseParallel on 'mlp' parallelizes nothing: neither it nor any module under it has two direct Linear children}}
    %y = model.module "mlp"(%x) {tp.style = #tp.pairwise_parallel<>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %w = model.param "mlp.net1.weight" : tensor<8x8xf32>
      %h = model.linear "mlp.net1"(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      model.yield %h : tensor<4x8xf32>
    }
    return
  }
}
// -----
// A style written by hand on a module type it does not support (tp-apply-plan
// would have rejected it) is an error, not a miscompile.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  func.func @unsupported_module_type(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) {
    // expected-error @below {{RowwiseParallel does not support module 'norm' of type RMSNorm}}
    %y = model.rms_norm "norm"(%x, %g) {tp.style = #tp.rowwise<>} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    return
  }
}
// -----
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4)
  // expected-error @below {{PrepareModuleInput on the root module: module inputs and input_layouts should have same length, got 1 input and 2 layouts}}
  func.func @root_too_many_layouts(%x: tensor<4x8xf32>) attributes {tp.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, #tp.shard<0>], desired_input_layouts = [#tp.replicate, #tp.replicate]>} {
    return
  }
}
// -----
// Without any style the pass still propagates hand-placed dtensors:
// tp-pipeline runs no tp-propagate of its own.
module {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  // CHECK-LABEL: func.func @no_styles
  // CHECK-SAME: -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: %[[D:.*]] = tp.distribute
  // CHECK-NEXT: model.relu %[[D]] : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  func.func @no_styles(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
    %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
    return %r : tensor<4x16xf32>
  }
}
// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2)
  // The seed's PairwiseParallel on the root (plan key ""): the function's
  // two direct linears pair up, colwise then rowwise, output replicated.
  // CHECK-LABEL: func.func @pairwise_root
  // CHECK: tp.distribute %{{.*}} {module = "net1"} : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK: tp.distribute %{{.*}} {module = "net2"} : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  // CHECK: tp.redistribute %{{.*}} {module = "net2"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  func.func @pairwise_root(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {tp.style = #tp.pairwise_parallel<>} {
    %w1 = model.param "net1.weight" : tensor<16x8xf32>
    %h = model.linear "net1"(%x, %w1) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %w2 = model.param "net2.weight" : tensor<8x16xf32>
    %y = model.linear "net2"(%h, %w2) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }

  // Linears pair in definition order (`children`), not call order: w1
  // colwise, w2 rowwise; w3, called before w2, stays replicated.
  // CHECK-LABEL: func.func @pairwise_definition_order
  // CHECK: tp.distribute %{{.*}} {module = "ffn.w1"} : tensor<16x8xf32> -> !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK-NOT: module = "ffn.w3"
  // CHECK: tp.distribute %{{.*}} {module = "ffn.w2"} : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  func.func @pairwise_definition_order(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "ffn"(%x) {children = ["w1", "w2", "w3"], tp.style = #tp.pairwise_parallel<>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %w1 = model.param "ffn.w1.weight" : tensor<16x8xf32>
      %h1 = model.linear "ffn.w1"(%a, %w1) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
      %w3 = model.param "ffn.w3.weight" : tensor<16x8xf32>
      %h3 = model.linear "ffn.w3"(%a, %w3) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
      %m = model.mul %h1, %h3 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
      %w2 = model.param "ffn.w2.weight" : tensor<8x16xf32>
      %o = model.linear "ffn.w2"(%m, %w2) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
      model.yield %o : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }
}

// -----

// Partial layouts. A declared Partial input of a computed, replicated value
// is tp.distribute'd as Partial (tp-partition keeps it on coordinate 0 for
// sum, everywhere for avg/max/min), then redistributed to what is desired;
// a value that is already Partial of that kind needs nothing; a model input
// (a function argument, here passed straight into the module) arrives as
// declared, so its type says Partial. Partial targets are redistributions
// (from Replicate or another Partial; a Shard source is rejected by
// tp-lower-redistribute).
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

  // CHECK-LABEL: func.func @prepare_input_partial
  // CHECK: %[[V:.*]] = model.relu
  // CHECK-NEXT: %[[P:.*]] = tp.distribute %[[V]] {module = "block"} : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[P]] {module = "block"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: model.module "block"(%[[R]])
  func.func @prepare_input_partial(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %v = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %y = model.module "block"(%v) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.partial<sum>], desired_input_layouts = [#tp.replicate]>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %r = model.relu %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %r : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  // CHECK-LABEL: func.func @prepare_model_input_partial
  // CHECK-SAME: (%[[X:.*]]: !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>)
  // CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[X]] {module = "block"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: model.module "block"(%[[R]])
  func.func @prepare_model_input_partial(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "block"(%x) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.partial<sum>], desired_input_layouts = [#tp.replicate]>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %r = model.relu %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %r : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  // A Colwise input declared Partial(max) is reduced to the Replicate the
  // style needs.
  // CHECK-LABEL: func.func @colwise_partial_max_input
  // CHECK: %[[P:.*]] = tp.distribute %{{.*}} {module = "net1"} : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]>
  // CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[P]] {module = "net1"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<max>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK: model.linear "net1"(%[[R]], %{{.*}})
  func.func @colwise_partial_max_input(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %v = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%v, %w) {tp.style = #tp.colwise<input_layouts = #tp.partial<max>>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }

  // A Rowwise output wanted as Partial(max): from its natural Partial(sum).
  // CHECK-LABEL: func.func @rowwise_partial_max_output
  // CHECK: %[[Y:.*]] = model.linear "net1"{{.*}} -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: %[[M:.*]] = tp.redistribute %[[Y]] {module = "net1"} : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<max>]>
  // CHECK-NEXT: return %[[M]]
  func.func @rowwise_partial_max_output(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.rowwise<output_layouts = #tp.partial<max>, use_local_output = false>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }

  // A module output declared Partial(avg).
  // CHECK-LABEL: func.func @prepare_output_partial
  // CHECK: %[[O:.*]] = model.relu
  // CHECK-NEXT: %[[P:.*]] = tp.distribute %[[O]] {module = "block"} : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]>
  // CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[P]] {module = "block"} : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<avg>]> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: model.yield %[[R]]
  func.func @prepare_output_partial(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "block"(%x) {tp.style = #tp.prepare_module_output<output_layouts = [#tp.partial<avg>], desired_output_layouts = [#tp.replicate]>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      %r = model.relu %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %r : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  // Rowwise keeps its Partial(sum) output; the next module declares it
  // Partial(sum) (nothing to do) and wants it Replicate: one redistribution,
  // for that module.
  // CHECK-LABEL: func.func @partial_into_partial
  // CHECK: %[[Y:.*]] = model.linear "net2"{{.*}} -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
  // CHECK-NEXT: %[[R:.*]] = tp.redistribute %[[Y]] {module = "post"} : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
  // CHECK-NEXT: model.module "post"(%[[R]])
  // CHECK-NOT: tp.redistribute
  func.func @partial_into_partial(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net2.weight" : tensor<16x8xf32>
    // A DTensor or a local tensor (from_local as Partial again): the same.
    // expected-warning @below {{RowwiseParallel on 'net2': use_local_output = false has no effect: its output reaches no model result}}
    %y = model.linear "net2"(%x, %w) {tp.style = #tp.rowwise<output_layouts = #tp.partial<sum>, use_local_output = false>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %z = model.module "post"(%y) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.partial<sum>], desired_input_layouts = [#tp.replicate]>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
    ^bb0(%a: tensor<4x16xf32>):
      %r = model.relu %a : (tensor<4x16xf32>) -> tensor<4x16xf32>
      model.yield %r : tensor<4x16xf32>
    }
    return %z : tensor<4x16xf32>
  }

  // Partial desired from a declared Replicate.
  // CHECK-LABEL: func.func @prepare_input_desired_partial
  // CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
  // CHECK-NEXT: %[[P:.*]] = tp.distribute %[[X]] {module = "block"} : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<min>]>
  // CHECK-NEXT: model.module "block"(%[[P]])
  func.func @prepare_input_desired_partial(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "block"(%x) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.replicate], desired_input_layouts = [#tp.partial<min>]>} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }
}

// -----

// ColwiseParallel with shard_pieces on a fused projection read as three
// contiguous pieces (GPT-2's c_attn split into q, k and v): one linear per
// piece on its rows of the weight and bias, each piece sharded on its own,
// so the split needs no gather. Without shard_pieces the fused linear stays
// whole (the next function).
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  // CHECK-LABEL: func.func @pieces
  // CHECK: %[[W:.*]] = model.param "attn.c_attn.weight"
  // CHECK: %[[B:.*]] = model.param "attn.c_attn.bias"
  // CHECK: %[[W0:.*]] = model.slice %[[W]] {dim = 0 : i64, start = 0 : i64} : (tensor<24x8xf32>) -> tensor<8x8xf32>
  // CHECK: %[[B0:.*]] = model.slice %[[B]] {dim = 0 : i64, start = 0 : i64} : (tensor<24xf32>) -> tensor<8xf32>
  // CHECK: %[[DW0:.*]] = tp.distribute %[[W0]] {module = "attn.c_attn"} : tensor<8x8xf32> -> !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>
  // CHECK: model.linear "attn.c_attn"(%{{.*}}, %[[DW0]], %{{.*}}) {{.*}} -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.shard<2>]>
  // CHECK: model.slice %[[W]] {dim = 0 : i64, start = 8 : i64}
  // CHECK: model.slice %[[W]] {dim = 0 : i64, start = 16 : i64}
  // CHECK-NOT: tp.redistribute
  // CHECK-NOT: model.slice %{{.*}} {dim = 2
  // CHECK: return
  func.func @pieces(%x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
    %w = model.param "attn.c_attn.weight" : tensor<24x8xf32>
    %b = model.param "attn.c_attn.bias" : tensor<24xf32>
    %h = model.linear "attn.c_attn"(%x, %w, %b) {tp.style = #tp.colwise<shard_pieces = true>} : (tensor<2x4x8xf32>, tensor<24x8xf32>, tensor<24xf32>) -> tensor<2x4x24xf32>
    %k = model.slice %h {dim = 2 : i64, start = 8 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x8xf32>
    %q = model.slice %h {dim = -1 : i64, start = 0 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x8xf32>
    %v = model.slice %h {dim = 2 : i64, start = 16 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x8xf32>
    return %q, %k, %v : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
  }

  // CHECK-LABEL: func.func @whole
  // CHECK: model.linear "attn.c_attn"({{.*}}) : {{.*}} -> !tp.dtensor<2x4x24xf32, @mesh, [#tp.shard<2>]>
  // CHECK: tp.redistribute {{.*}} -> !tp.dtensor<2x4x24xf32, @mesh, [#tp.replicate]>
  func.func @whole(%x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x16xf32>) {
    %w = model.param "attn.c_attn.weight" : tensor<24x8xf32>
    %h = model.linear "attn.c_attn"(%x, %w) {tp.style = #tp.colwise<>} : (tensor<2x4x8xf32>, tensor<24x8xf32>) -> tensor<2x4x24xf32>
    // expected-warning @below {{'' slices dim 2, which is sharded over the 2 ranks of mesh axis 'tp'}}
    %q = model.slice %h {dim = 2 : i64, start = 0 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x8xf32>
    %kv = model.slice %h {dim = 2 : i64, start = 8 : i64} : (tensor<2x4x24xf32>) -> tensor<2x4x16xf32>
    return %q, %kv : tensor<2x4x8xf32>, tensor<2x4x16xf32>
  }

  // shard_pieces where the output is not read as pieces of the features
  // (GPT-NeoX views it per head first): no effect, and a warning says so.
  // CHECK-LABEL: func.func @not_pieces
  // CHECK: model.linear "attn.query_key_value"({{.*}}) : {{.*}} -> !tp.dtensor<2x4x24xf32, @mesh, [#tp.shard<2>]>
  func.func @not_pieces(%x: tensor<2x4x8xf32>) -> tensor<2x4x2x12xf32> {
    %w = model.param "attn.query_key_value.weight" : tensor<24x8xf32>
    // expected-warning @below {{"shard_pieces" on 'attn.query_key_value' has no effect: its output is read other than as contiguous slices of the features ('model.reshape'); its weight is chunked whole}}
    %h = model.linear "attn.query_key_value"(%x, %w) {tp.style = #tp.colwise<shard_pieces = true>} : (tensor<2x4x8xf32>, tensor<24x8xf32>) -> tensor<2x4x24xf32>
    %r = model.reshape %h : (tensor<2x4x24xf32>) -> tensor<2x4x2x12xf32>
    return %r : tensor<2x4x2x12xf32>
  }
}
