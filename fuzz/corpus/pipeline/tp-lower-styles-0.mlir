module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

  func.func @colwise(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %b = model.param "net1.bias" : tensor<16xf32>
    %y = model.linear "net1"(%x, %w, %b) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }

  func.func @colwise_layouts(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) {tp.style = #tp.colwise<input_layouts = #tp.shard<0>, output_layouts = #tp.replicate>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }

  func.func @colwise_embedding(%ids: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
    %w = model.param "tok_embeddings.weight" : tensor<32x8xf32>
    %y = model.embedding "tok_embeddings"(%ids, %w) {tp.style = #tp.colwise<>} : (tensor<2x4xi64>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

  func.func @rowwise_bias(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %b = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%x, %w, %b) {tp.style = #tp.rowwise<>} : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r = model.relu %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }

  func.func @rowwise_shard0(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
    %w = model.param "net2.weight" : tensor<8x16xf32>
    %b = model.param "net2.bias" : tensor<8xf32>
    %y = model.linear "net2"(%x, %w, %b) {tp.style = #tp.rowwise<output_layouts = #tp.shard<0>>} : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }

  func.func @mlp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w1 = model.param "net1.weight" : tensor<32x8xf32>
    %h = model.linear "net1"(%x, %w1) {tp.style = #tp.colwise<>} : (tensor<4x8xf32>, tensor<32x8xf32>) -> tensor<4x32xf32>
    %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
    %w2 = model.param "net2.weight" : tensor<8x32xf32>
    %y = model.linear "net2"(%r, %w2) {tp.style = #tp.rowwise<>} : (tensor<4x32xf32>, tensor<8x32xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }

  func.func @prepare_module_input(%x: tensor<4x8xf32>, %m: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "block"(%x, %m) {tp.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
      %s = model.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %s : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

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

  func.func @prepare_module_input_output(%x: tensor<4x8xf32>, %m: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = model.module "block"(%x, %m) {arg_names = ["x", "mask"], tp.style = #tp.prepare_module_input_output<input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}, output_layouts = #tp.replicate, desired_output_layouts = #tp.shard<0>>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
      %s = model.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %s : tensor<4x8xf32>
    }
    return %y : tensor<4x8xf32>
  }

  func.func @rowwise_embedding(%ids: tensor<2x4xi64>, %w: tensor<32x8xf32>) -> tensor<2x4x8xf32> {
    %y = model.embedding "tok_embeddings"(%ids, %w) {tp.style = #tp.rowwise<input_layouts = #tp.replicate, output_layouts = #tp.shard<1>>} : (tensor<2x4xi64>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

  func.func @sequence_parallel(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
    %y = model.rms_norm "norm"(%x, %g) {tp.style = #tp.sequence_parallel<>} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

  func.func @sequence_parallel_dropout(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    %y = model.dropout "drop"(%x) {tp.style = #tp.sequence_parallel<sequence_dim = -1>} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    return %y : tensor<2x4x8xf32>
  }

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

  func.func @root_module(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {tp.style = #tp.prepare_module_input_output<input_layouts = [unit, #tp.shard<0>], desired_input_layouts = [unit, #tp.replicate], output_layouts = [#tp.replicate, unit], desired_output_layouts = [#tp.shard<1>, unit]>} {
    %r = model.relu %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %r, %x : tensor<4x8xf32>, tensor<4x8xf32>
  }
}
