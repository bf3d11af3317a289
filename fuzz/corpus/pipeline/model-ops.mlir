tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}

func.func @leaf_modules(%x: tensor<2x8x16xf32>, %ids: tensor<2x8xi64>) -> tensor<2x8x32xf32> {
  %emb_w = model.param "tok_embeddings.weight" : tensor<64x16xf32>
  %emb = model.embedding "tok_embeddings"(%ids, %emb_w) : (tensor<2x8xi64>, tensor<64x16xf32>) -> tensor<2x8x16xf32>
  %w = model.param "net1.weight" : tensor<32x16xf32>
  %b = model.param "net1.bias" : tensor<32xf32>
  %lin = model.linear "net1"(%emb, %w, %b) : (tensor<2x8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %nobias = model.linear "net1_nobias"(%x, %w) : (tensor<2x8x16xf32>, tensor<32x16xf32>) -> tensor<2x8x32xf32>
  %ln = model.layer_norm "norm"(%lin, %b, %b) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %ln_eps = model.layer_norm "norm_eps"(%lin, %b, %b) {eps = 1.0e-3 : f64} : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %rms = model.rms_norm "rms"(%ln, %b) : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %rms_eps = model.rms_norm "rms_eps"(%ln, %b) {eps = 1.0e-4 : f64} : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %drop = model.dropout "drop"(%rms) {p = 0.1 : f64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %drop0 = model.dropout "drop0"(%rms) {p = 0.0 : f64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %drop : tensor<2x8x32xf32>
}

func.func @functional(%x: tensor<2x8x16xf32>, %v: tensor<16xf32>, %m: tensor<16x32xf32>) -> tensor<f32> {
  %relu = model.relu %x : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %gelu = model.gelu %relu : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %silu = model.silu %gelu : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %add = model.add %silu, %v : (tensor<2x8x16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
  %mul = model.mul %add, %x : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %mm = model.matmul %mul, %m : (tensor<2x8x16xf32>, tensor<16x32xf32>) -> tensor<2x8x32xf32>
  %sm = model.softmax %mm {dim = -1 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %sm1 = model.softmax %mm {dim = 1 : i64} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %q = model.reshape %sm : (tensor<2x8x32xf32>) -> tensor<2x8x4x8xf32>
  %kv = model.reshape %add : (tensor<2x8x16xf32>) -> tensor<2x8x2x8xf32>
  %rot = model.rotary %q : (tensor<2x8x4x8xf32>) -> tensor<2x8x4x8xf32>
  %rot_theta = model.rotary %q {theta = 500000.0 : f64} : (tensor<2x8x4x8xf32>) -> tensor<2x8x4x8xf32>
  %att = model.attention %rot, %kv, %kv : (tensor<2x8x4x8xf32>, tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  %att_full = model.attention %rot, %kv, %kv {causal = false} : (tensor<2x8x4x8xf32>, tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x8x4x8xf32>
  %tr = model.transpose %att {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x8xf32>) -> tensor<2x4x8x8xf32>
  %pos = model.arange : tensor<8xi64>
  %logits = model.reshape %mm : (tensor<2x8x32xf32>) -> tensor<16x32xf32>
  %targets = model.param "targets" : tensor<16xi32>
  %loss = model.cross_entropy %logits, %targets : (tensor<16x32xf32>, tensor<16xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @composite_modules(%x: tensor<4x8xf32>, %mask: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %out:2 = model.module "layers.0"(%x, %mask) {kind = "TransformerBlock", arg_names = ["x", "mask"]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %inner = model.module "layers.0.mlp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%c: tensor<4x8xf32>):
      %r = model.relu %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
      model.yield %r : tensor<4x8xf32>
    }
    %s = model.add %inner, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    model.yield %s, %b : tensor<4x8xf32>, tensor<4x8xf32>
  }
  model.module "side_effect_free"(%x) : (tensor<4x8xf32>) -> () {
  ^bb0(%d: tensor<4x8xf32>):
    model.yield
  }
  return %out#0 : tensor<4x8xf32>
}

func.func @on_dtensors(%x: !tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, %w: !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]> {
  %y = model.linear "net1"(%x, %w) : (!tp.dtensor<4x8xf32, @mesh, [#tp.replicate]>, !tp.dtensor<16x8xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %y : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  return %r : !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
}

func.func @dynamic_local(%x: tensor<4x8xf32>, %w: tensor<?x8xf32>) -> tensor<4x?xf32> {
  %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<?x8xf32>) -> tensor<4x?xf32>
  return %y : tensor<4x?xf32>
}

func.func @loss_pieces(%l: tensor<4x8xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %m = model.reduce_max %l {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = model.sub %l, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = model.exp %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = model.reduce_sum %e {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %lz = model.log %z : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %tl = model.target_logit %s, %t : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  %d = model.sub %lz, %tl : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %loss = model.mean %d : (tensor<4x1xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
