// Models for the seed's legacy plan entries of styles.mlir
// (Inputs/styles-legacy.json): one function per prepare function, each
// consumer fed by a producer whose real layout is what the prepare function
// declares; then PairwiseParallel and the seed's SequenceParallel.

// make_input_shard_1d on Colwise: the input really is Shard(0) (a
// sequence-parallel dropout on dim 0).
func.func @in_shard_1d(%x: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %d = model.dropout "in_shard_1d_src"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %w = model.param "in_shard_1d.weight" : tensor<32x16xf32>
  %y = model.linear "in_shard_1d"(%d, %w) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// make_input_shard_1d(dim=1) on Rowwise: the input is a colwise output,
// Shard(1).
func.func @in_shard_1d_dim1(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %w1 = model.param "in_shard_1d_dim1_src.weight" : tensor<32x16xf32>
  %h = model.linear "in_shard_1d_dim1_src"(%x, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %w2 = model.param "in_shard_1d_dim1.weight" : tensor<16x32xf32>
  %y = model.linear "in_shard_1d_dim1"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// make_input_shard_1d_last_dim on Colwise: the input is a colwise output.
func.func @in_last_dim(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %w1 = model.param "in_last_dim_src.weight" : tensor<32x16xf32>
  %h = model.linear "in_last_dim_src"(%x, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %w2 = model.param "in_last_dim.weight" : tensor<16x32xf32>
  %y = model.linear "in_last_dim"(%h, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// make_input_reshard_replicate on Colwise: the input is Shard(0).
func.func @in_reshard_replicate(%x: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %d = model.dropout "in_reshard_replicate_src"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %w = model.param "in_reshard_replicate.weight" : tensor<32x16xf32>
  %y = model.linear "in_reshard_replicate"(%d, %w) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// make_input_replicate_1d on Rowwise: a replicated input is chunked locally.
func.func @in_replicate_1d(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %w = model.param "in_replicate_1d.weight" : tensor<8x16xf32>
  %y = model.linear "in_replicate_1d"(%x, %w) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// The output functions, on a Rowwise (natural Partial) or Colwise (natural
// Shard(-1)) linear.
func.func @out_shard_1d(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %w = model.param "out_shard_1d.weight" : tensor<8x16xf32>
  %y = model.linear "out_shard_1d"(%x, %w) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

func.func @out_shard_1d_dim1(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %w = model.param "out_shard_1d_dim1.weight" : tensor<8x16xf32>
  %y = model.linear "out_shard_1d_dim1"(%x, %w) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

func.func @out_replicate_1d(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %w = model.param "out_replicate_1d.weight" : tensor<8x16xf32>
  %y = model.linear "out_replicate_1d"(%x, %w) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

func.func @out_tensor(%x: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %w = model.param "out_tensor.weight" : tensor<32x16xf32>
  %y = model.linear "out_tensor"(%x, %w) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

func.func @out_sharded_tensor(%x: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %w = model.param "out_sharded_tensor.weight" : tensor<32x16xf32>
  %y = model.linear "out_sharded_tensor"(%x, %w) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

func.func @out_reshard_tensor(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %w = model.param "out_reshard_tensor.weight" : tensor<8x16xf32>
  %y = model.linear "out_reshard_tensor"(%x, %w) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// PairwiseParallel: a module holding two linears.
func.func @pairwise(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %y = model.module "pw"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<8x16xf32>):
    %w1 = model.param "pw.net1.weight" : tensor<32x16xf32>
    %h = model.linear "pw.net1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
    %r = model.relu %h : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %w2 = model.param "pw.net2.weight" : tensor<16x32xf32>
    %o = model.linear "pw.net2"(%r, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
    model.yield %o : tensor<8x16xf32>
  }
  return %y : tensor<8x16xf32>
}

// The seed's SequenceParallel on two blocks in a row: the first block's
// Shard(0) output is the second one's Shard(0) input.
func.func @seed_sequence_parallel(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %y0 = model.module "sp0"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<8x16xf32>):
    %w1 = model.param "sp0.net1.weight" : tensor<32x16xf32>
    %h = model.linear "sp0.net1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
    %r = model.relu %h : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %w2 = model.param "sp0.net2.weight" : tensor<16x32xf32>
    %o = model.linear "sp0.net2"(%r, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
    model.yield %o : tensor<8x16xf32>
  }
  %y1 = model.module "sp1"(%y0) : (tensor<8x16xf32>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<8x16xf32>):
    %w1 = model.param "sp1.net1.weight" : tensor<32x16xf32>
    %h = model.linear "sp1.net1"(%a, %w1) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
    %r = model.relu %h : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %w2 = model.param "sp1.net2.weight" : tensor<16x32xf32>
    %o = model.linear "sp1.net2"(%r, %w2) : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
    model.yield %o : tensor<8x16xf32>
  }
  return %y1 : tensor<8x16xf32>
}
