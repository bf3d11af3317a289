tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}

func.func @forward(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %y = model.module "mlp"(%x) {kind = "FeedForward"} : (tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> {
  ^bb0(%a: tensor<4x8xf32>):
    %w1 = model.param "mlp.net1.weight" : tensor<32x8xf32>
    %dw1 = tp.distribute %w1 {module = "mlp.net1"} : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>
    %h = model.linear "mlp.net1"(%a, %dw1) : (tensor<4x8xf32>, !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>
    %r = model.relu %h : (!tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>
    %w2 = model.param "mlp.net2.weight" : tensor<8x32xf32>
    %dw2 = tp.distribute %w2 {module = "mlp.net2"} : tensor<8x32xf32> -> !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>
    %p = model.linear "mlp.net2"(%r, %dw2) : (!tp.dtensor<4x32xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x32xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]>
    %l = tp.to_local %p : !tp.dtensor<4x8xf32, @mesh, [#tp.partial<sum>]> -> tensor<4x8xf32>
    %s = tp.all_reduce %l on @mesh mesh_axes = [0] reduction = sum {module = "mlp.net2"} : tensor<4x8xf32>
    %o = tp.from_local %s : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
    model.yield %o : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>
  }
  %ly = tp.to_local %y : !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]> -> tensor<4x8xf32>
  %z = model.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %ly, %z : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @distributed_result(%x: tensor<4x8xf32>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  %r = model.gelu %d : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
}

func.func @mixed_results(%x: tensor<4x8xf32>) -> (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<4x8xf32>) {
  %d = tp.distribute %x : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  return %d, %x : !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, tensor<4x8xf32>
}

func.func @vocab_shard(%ids: tensor<2x4xi64>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]> {
  %w = model.param "tok_embeddings.weight" : tensor<32x8xf32>
  %dw = tp.distribute %w : tensor<32x8xf32> -> !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>
  %e = model.embedding "tok_embeddings"(%ids, %dw) : (tensor<2x4xi64>, !tp.dtensor<32x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
  return %e : !tp.dtensor<2x4x8xf32, @mesh, [#tp.partial<sum>]>
}

func.func @uneven(%x: tensor<6x8xf32>) -> !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]> {
  %d = tp.distribute %x : tensor<6x8xf32> -> !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>
  %r = model.gelu %d : (!tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>
  return %r : !tp.dtensor<6x8xf32, @mesh, [#tp.shard<0>]>
}
