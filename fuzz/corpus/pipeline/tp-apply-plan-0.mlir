module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*.attention.w[qkv]", "layers.*.attention.wo", "layers.?.feed_forward.w1", "layers.0.feed_forward.w[1]", "layers.[!0].feed_forward.w2", "nothing.here", "layers.*.attention.wq.bias"], styles = [#tp.colwise<>, #tp.rowwise<>, #tp.colwise<output_layouts = #tp.replicate>, #tp.colwise<output_layouts = #tp.replicate>, #tp.rowwise<output_layouts = #tp.shard<0>>, #tp.colwise<>, #tp.colwise<>]>} {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @fnmatch_and_order(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
    %q = model.linear "layers.0.attention.wq"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %k = model.linear "layers.0.attention.wk"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %v = model.linear "layers.0.attention.wv"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %o = model.linear "layers.0.attention.wo"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %n = model.linear "layers.0.attention.wx"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %a = model.linear "layers.0.feed_forward.w1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %b = model.linear "layers.0.feed_forward.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %c = model.linear "layers.1.feed_forward.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %d = model.linear "layers.10.feed_forward.w1"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %e = model.linear "layers.10.feed_forward.w2"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    return
  }
}
