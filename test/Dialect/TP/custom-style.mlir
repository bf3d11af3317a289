// RUN: tp-opt %S/../../../examples/mlp.mlir --tp-pipeline="plan=%S/Inputs/custom-style-plan.json" | FileCheck %s
// RUN: tp-opt %s -split-input-file -tp-apply-plan -tp-lower-styles -verify-diagnostics | FileCheck %s --check-prefix=OUT

// A generic custom style (#tp.custom) applies its explicit layouts; the rest
// follows from propagation. net1: weight and bias sharded on rows (a
// colwise linear); net2: weight sharded on columns with a bias, input
// declared Shard(-1), output Replicate: the linear rule cannot split the
// bias, so the input is gathered and the product computed whole.
// CHECK: #tp.custom<name = "MyColwise", params = {bias = #tp.shard<0>, weight = #tp.shard<0>}>
// CHECK-LABEL: func.func @forward
// CHECK: tp.chunk %{{.*}} axis = 0 {module = "net1"} : tensor<32xf32> -> tensor<16xf32>
// CHECK: tp.chunk %{{.*}} axis = 0 {module = "net1"} : tensor<32x8xf32> -> tensor<16x8xf32>
// CHECK: model.linear "net1"
// CHECK: tp.all_gather %{{.*}} gather_axis = 1 {module = "net2"} : tensor<4x16xf32> -> tensor<4x32xf32>
// CHECK: model.linear "net2"
// CHECK-NOT: tp.all_reduce

// A parameter the module does not have.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.custom<name = "Mine", params = {gamma = #tp.shard<0>}>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    // expected-error @+1 {{custom style on 'net1': the module has no parameter 'net1.gamma'}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// Explicit output layout on a leaf: the partial product is reduced.
// OUT-LABEL: func.func @out
// OUT: model.linear "net1"{{.*}} -> !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]>
// OUT-NEXT: tp.redistribute %{{.*}} : !tp.dtensor<4x16xf32, @mesh, [#tp.partial<sum>]> -> !tp.dtensor<4x16xf32, @mesh, [#tp.replicate]>
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.custom<name = "Mine", params = {weight = #tp.shard<1>}, input_layouts = [#tp.shard<-1>], output_layouts = [#tp.replicate]>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @out(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// A parameter is a whole tensor: Partial is not a placement it can have.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.custom<name = "Mine", params = {weight = #tp.partial<sum>}>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @partial_param(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    // expected-error @+1 {{custom style on 'net1': parameter 'net1.weight' cannot be Partial() (a parameter is a whole tensor: use Shard(d) or Replicate())}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.custom<name = "Mine", params = {weight = #tp.shard<2>}>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @shard_out_of_range(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    // expected-error @+1 {{custom style on 'net1': Shard(2) is out of range for parameter 'net1.weight' of rank 2}}
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// The weight sharded on its output dim with the bias left out: legal, but
// every rank keeps the whole bias.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.custom<name = "Mine", params = {weight = #tp.shard<0>}>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @replicated_bias(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %b = model.param "net1.bias" : tensor<16xf32>
    // expected-warning @+1 {{Mine on 'net1': the weight is Shard(0) but the bias stays replicated, so every rank holds the whole bias and uses one chunk of it; give params "bias": "Shard(0)"}}
    %y = model.linear "net1"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}

// -----

// A tied weight placed two ways (embedding Colwise: Shard(1); output
// Colwise: Shard(0)) is held twice per rank: a warning with the cost.
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["emb", "out"], styles = [#tp.colwise<>, #tp.colwise<output_layouts = #tp.replicate>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @tied(%ids: tensor<4xi64>) -> tensor<4x10xf32> {
    %w = model.param "emb.weight" : tensor<10x8xf32>
    // expected-warning @+1 {{parameter 'emb.weight' is placed 2 ways: [Shard(1)] by 'emb', [Shard(0)] by 'out'; each rank holds every one of these chunks (320 bytes instead of 160)}}
    %h = model.embedding "emb"(%ids, %w) : (tensor<4xi64>, tensor<10x8xf32>) -> tensor<4x8xf32>
    %y = model.linear "out"(%h, %w) : (tensor<4x8xf32>, tensor<10x8xf32>) -> tensor<4x10xf32>
    return %y : tensor<4x10xf32>
  }
}
