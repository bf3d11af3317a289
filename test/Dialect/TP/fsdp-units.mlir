// RUN: tp-opt %s --pass-pipeline='builtin.module(func.func(tp-fsdp-units))' | FileCheck %s

// tp-fsdp-units on a partitioned program whose plan shards parameters over
// dp (fsdp_axis): the forward gathers of layers.0's two parameters (a
// weight and a norm weight, unit layers.0 by default) become one all_gather
// of their packed shards at the first one, the second parameter's
// declaration moving up; layers.1's single parameter keeps its gather. The
// backward reduce-scatters of layers.0's gradients (module: the owning
// module) become one, after the last gradient, and the all_reduce that read
// the first one's shard (HSDP's, over rep) moves after it.

module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], dp_axis = "rep", fsdp_axis = "dp">} {
  tp.mesh @mesh(shape = 2x2x2) {axis_names = ["rep", "dp", "tp"]}
  // CHECK-LABEL: func.func @step(
  func.func @step(%x: tensor<8xf32>, %g1: tensor<8x4xf32>, %g2: tensor<8xf32>) -> (tensor<8x4xf32>, tensor<8xf32>, tensor<4x4xf32>, tensor<4xf32>) attributes {tp.spmd} {
    // CHECK: %[[W:.*]] = model.param "layers.0.a.weight"
    // CHECK-NEXT: %[[WS:.*]] = tp.chunk %[[W]] on @mesh mesh_axes = [1] axis = 0
    // CHECK-NEXT: %[[N:.*]] = model.param "layers.0.norm.weight"
    // CHECK-NEXT: %[[NS:.*]] = tp.chunk %[[N]] on @mesh mesh_axes = [1] axis = 0
    // CHECK-NEXT: %[[PK:.*]] = tp.pack %[[WS]], %[[NS]] : tensor<4x4xf32>, tensor<4xf32> -> tensor<20xf32>
    // CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[PK]] on @mesh mesh_axes = [1] gather_axis = 0 {module = "layers.0"} : tensor<20xf32> -> tensor<40xf32>
    // CHECK-NEXT: %[[R:.*]] = model.reshape %[[G]] : (tensor<40xf32>) -> tensor<2x20xf32>
    // CHECK-NEXT: %[[C0:.*]] = model.slice %[[R]] {dim = 1 : i64, start = 0 : i64} : (tensor<2x20xf32>) -> tensor<2x16xf32>
    // CHECK-NEXT: %[[WF:.*]] = model.reshape %[[C0]] : (tensor<2x16xf32>) -> tensor<8x4xf32>
    // CHECK-NEXT: %[[C1:.*]] = model.slice %[[R]] {dim = 1 : i64, start = 16 : i64} : (tensor<2x20xf32>) -> tensor<2x4xf32>
    // CHECK-NEXT: %[[NF:.*]] = model.reshape %[[C1]] : (tensor<2x4xf32>) -> tensor<8xf32>
    // CHECK-NEXT: model.add %{{.*}}, %[[NF]]
    %w = model.param "layers.0.a.weight" : tensor<8x4xf32>
    %ws = tp.chunk %w on @mesh mesh_axes = [1] axis = 0 {module = "layers.0.a"} : tensor<8x4xf32> -> tensor<4x4xf32>
    %wf = tp.all_gather %ws on @mesh mesh_axes = [1] gather_axis = 0 {module = "layers.0.a"} : tensor<4x4xf32> -> tensor<8x4xf32>
    %n = model.param "layers.0.norm.weight" : tensor<8xf32>
    %ns = tp.chunk %n on @mesh mesh_axes = [1] axis = 0 {module = "layers.0.norm"} : tensor<8xf32> -> tensor<4xf32>
    %nf = tp.all_gather %ns on @mesh mesh_axes = [1] gather_axis = 0 {module = "layers.0.norm"} : tensor<4xf32> -> tensor<8xf32>
    %y = model.add %x, %nf : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // A unit of one parameter keeps its own gather.
    // CHECK: %[[V:.*]] = model.param "layers.1.b.weight"
    // CHECK: tp.all_gather %{{.*}} on @mesh mesh_axes = [1] gather_axis = 0 {module = "layers.1.b"} : tensor<4xf32> -> tensor<8xf32>
    %v = model.param "layers.1.b.weight" : tensor<8xf32>
    %vs = tp.chunk %v on @mesh mesh_axes = [1] axis = 0 {module = "layers.1.b"} : tensor<8xf32> -> tensor<4xf32>
    %vf = tp.all_gather %vs on @mesh mesh_axes = [1] gather_axis = 0 {module = "layers.1.b"} : tensor<4xf32> -> tensor<8xf32>
    %z = model.add %y, %vf : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // The gradients: one reduce_scatter after the last, rows rank by rank.
    // CHECK: %[[A:.*]] = model.add %{{.*}}, %{{.*}} {tp.phase = #tp.phase<backward>}
    // CHECK-NEXT: %[[R1:.*]] = model.reshape %{{.*}} {tp.phase = #tp.phase<backward>} : (tensor<8x4xf32>) -> tensor<2x16xf32>
    // CHECK-NEXT: %[[R2:.*]] = model.reshape %[[A]] {tp.phase = #tp.phase<backward>} : (tensor<8xf32>) -> tensor<2x4xf32>
    // CHECK-NEXT: %[[CAT:.*]] = model.concat %[[R1]], %[[R2]] {dim = 1 : i64, tp.phase = #tp.phase<backward>} : (tensor<2x16xf32>, tensor<2x4xf32>) -> tensor<2x20xf32>
    // CHECK-NEXT: %[[FL:.*]] = model.reshape %[[CAT]] {tp.phase = #tp.phase<backward>} : (tensor<2x20xf32>) -> tensor<40xf32>
    // CHECK-NEXT: %[[RS:.*]] = tp.reduce_scatter %[[FL]] on @mesh mesh_axes = [1] reduction = {{ *}}sum scatter_axis = 0 {module = "layers.0", tp.phase = #tp.phase<backward>} : tensor<40xf32> -> tensor<20xf32>
    // CHECK-NEXT: %[[D1:.*]] = tp.unpack %[[RS]] offset = 0 {tp.phase = #tp.phase<backward>} : tensor<20xf32> -> tensor<4x4xf32>
    // CHECK-NEXT: %[[D2:.*]] = tp.unpack %[[RS]] offset = 16 {tp.phase = #tp.phase<backward>} : tensor<20xf32> -> tensor<4xf32>
    // CHECK-NEXT: %[[AR:.*]] = tp.all_reduce %[[D1]] on @mesh mesh_axes = [0]
    // CHECK-NEXT: return %{{.*}}, %{{.*}}, %[[AR]], %[[D2]]
    %d1 = tp.reduce_scatter %g1 on @mesh mesh_axes = [1] reduction = sum scatter_axis = 0 {module = "layers.0.a", tp.phase = #tp.phase<backward>} : tensor<8x4xf32> -> tensor<4x4xf32>
    %r1 = tp.all_reduce %d1 on @mesh mesh_axes = [0] reduction = sum {tp.phase = #tp.phase<backward>} : tensor<4x4xf32>
    %g2b = model.add %g2, %z {tp.phase = #tp.phase<backward>} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %d2 = tp.reduce_scatter %g2b on @mesh mesh_axes = [1] reduction = sum scatter_axis = 0 {module = "layers.0.norm", tp.phase = #tp.phase<backward>} : tensor<8xf32> -> tensor<4xf32>
    return %wf, %nf, %r1, %d2 : tensor<8x4xf32>, tensor<8xf32>, tensor<4x4xf32>, tensor<4xf32>
  }
}
