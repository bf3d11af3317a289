func.func @forward(%ids: tensor<2x4xi64>) -> tensor<2x4x16xf32> {
  %emb_w = model.param "tok_embeddings.weight" : tensor<16x8xf32>
  %h0 = model.embedding "tok_embeddings"(%ids, %emb_w) : (tensor<2x4xi64>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %h1 = model.module "layers.0"(%h0) {kind = "TransformerBlock"} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  ^bb0(%x: tensor<2x4x8xf32>):
    %an_w = model.param "layers.0.attention_norm.weight" : tensor<8xf32>
    %an = model.rms_norm "layers.0.attention_norm"(%x, %an_w) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    %att = model.module "layers.0.attention"(%an) {kind = "Attention"} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    ^bb0(%a: tensor<2x4x8xf32>):
      %wq_w = model.param "layers.0.attention.wq.weight" : tensor<8x8xf32>
      %q = model.linear "layers.0.attention.wq"(%a, %wq_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      %qh = model.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
      %wk_w = model.param "layers.0.attention.wk.weight" : tensor<8x8xf32>
      %k = model.linear "layers.0.attention.wk"(%a, %wk_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      %kh = model.reshape %k : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
      %wv_w = model.param "layers.0.attention.wv.weight" : tensor<8x8xf32>
      %v = model.linear "layers.0.attention.wv"(%a, %wv_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      %vh = model.reshape %v : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
      %qr = model.rotary %qh : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
      %kr = model.rotary %kh : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
      %o = model.attention %qr, %kr, %vh : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
      %of = model.reshape %o : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
      %wo_w = model.param "layers.0.attention.wo.weight" : tensor<8x8xf32>
      %out = model.linear "layers.0.attention.wo"(%of, %wo_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      model.yield %out : tensor<2x4x8xf32>
    }
    %r1 = model.add %x, %att : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %fn_w = model.param "layers.0.ffn_norm.weight" : tensor<8xf32>
    %fn = model.rms_norm "layers.0.ffn_norm"(%r1, %fn_w) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    %ff = model.module "layers.0.feed_forward"(%fn) {kind = "FeedForward"} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    ^bb0(%f: tensor<2x4x8xf32>):
      %w1_w = model.param "layers.0.feed_forward.w1.weight" : tensor<16x8xf32>
      %g = model.linear "layers.0.feed_forward.w1"(%f, %w1_w) : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
      %gs = model.silu %g : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
      %w3_w = model.param "layers.0.feed_forward.w3.weight" : tensor<16x8xf32>
      %u = model.linear "layers.0.feed_forward.w3"(%f, %w3_w) : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
      %gu = model.mul %gs, %u : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
      %w2_w = model.param "layers.0.feed_forward.w2.weight" : tensor<8x16xf32>
      %d = model.linear "layers.0.feed_forward.w2"(%gu, %w2_w) : (tensor<2x4x16xf32>, tensor<8x16xf32>) -> tensor<2x4x8xf32>
      model.yield %d : tensor<2x4x8xf32>
    }
    %r2 = model.add %r1, %ff : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    model.yield %r2 : tensor<2x4x8xf32>
  }
  %h2 = model.module "layers.1"(%h1) {kind = "TransformerBlock"} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  ^bb0(%x: tensor<2x4x8xf32>):
    %an_w = model.param "layers.1.attention_norm.weight" : tensor<8xf32>
    %an = model.rms_norm "layers.1.attention_norm"(%x, %an_w) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    %att = model.module "layers.1.attention"(%an) {kind = "Attention"} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    ^bb0(%a: tensor<2x4x8xf32>):
      %wq_w = model.param "layers.1.attention.wq.weight" : tensor<8x8xf32>
      %q = model.linear "layers.1.attention.wq"(%a, %wq_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      %qh = model.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
      %wk_w = model.param "layers.1.attention.wk.weight" : tensor<8x8xf32>
      %k = model.linear "layers.1.attention.wk"(%a, %wk_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      %kh = model.reshape %k : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
      %wv_w = model.param "layers.1.attention.wv.weight" : tensor<8x8xf32>
      %v = model.linear "layers.1.attention.wv"(%a, %wv_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      %vh = model.reshape %v : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
      %qr = model.rotary %qh : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
      %kr = model.rotary %kh : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
      %o = model.attention %qr, %kr, %vh : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
      %of = model.reshape %o : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
      %wo_w = model.param "layers.1.attention.wo.weight" : tensor<8x8xf32>
      %out = model.linear "layers.1.attention.wo"(%of, %wo_w) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
      model.yield %out : tensor<2x4x8xf32>
    }
    %r1 = model.add %x, %att : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %fn_w = model.param "layers.1.ffn_norm.weight" : tensor<8xf32>
    %fn = model.rms_norm "layers.1.ffn_norm"(%r1, %fn_w) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
    %ff = model.module "layers.1.feed_forward"(%fn) {kind = "FeedForward"} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    ^bb0(%f: tensor<2x4x8xf32>):
      %w1_w = model.param "layers.1.feed_forward.w1.weight" : tensor<16x8xf32>
      %g = model.linear "layers.1.feed_forward.w1"(%f, %w1_w) : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
      %gs = model.silu %g : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
      %w3_w = model.param "layers.1.feed_forward.w3.weight" : tensor<16x8xf32>
      %u = model.linear "layers.1.feed_forward.w3"(%f, %w3_w) : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
      %gu = model.mul %gs, %u : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
      %w2_w = model.param "layers.1.feed_forward.w2.weight" : tensor<8x16xf32>
      %d = model.linear "layers.1.feed_forward.w2"(%gu, %w2_w) : (tensor<2x4x16xf32>, tensor<8x16xf32>) -> tensor<2x4x8xf32>
      model.yield %d : tensor<2x4x8xf32>
    }
    %r2 = model.add %r1, %ff : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    model.yield %r2 : tensor<2x4x8xf32>
  }
  %norm_w = model.param "norm.weight" : tensor<8xf32>
  %n = model.rms_norm "norm"(%h2, %norm_w) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %out_w = model.param "output.weight" : tensor<16x8xf32>
  %logits = model.linear "output"(%n, %out_w) : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
  return %logits : tensor<2x4x16xf32>
}
