// RUN: tp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tp-fsdp-prefetch))' | FileCheck %s

// tp-fsdp-prefetch on a partitioned training step whose plan shards
// parameters over dp (fsdp_axis), after tp-fsdp-units: each parameter gather
// over dp moves, with the parameter, chunks, cast and pack that make its
// operand, to right before the first reader of the gather before it in its
// phase. layers.1's gather (a cast shard, mixed precision) is issued before
// layers.0 computes, layers.2's (a unit's pack) before layers.1 computes
// (before the cast that reads layers.1's gather);
// in the backward, layers.0's regather before layers.1's backward. The
// first gather of each phase, an activation gather over dp and a gather over
// tp stay where they are.

module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], fsdp_axis = "dp">} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  // CHECK-LABEL: func.func @step(
  func.func @step(%x: tensor<8xf32>, %h: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>) attributes {tp.spmd} {
    // CHECK:      %[[A:.*]] = model.param "layers.0.a.weight"
    // CHECK-NEXT: %[[AS:.*]] = tp.chunk %[[A]]
    // CHECK-NEXT: %[[AF:.*]] = tp.all_gather %[[AS]] {{.*}}{module = "layers.0.a"}
    // CHECK-NEXT: %[[B:.*]] = model.param "layers.1.b.weight"
    // CHECK-NEXT: %[[BS:.*]] = tp.chunk %[[B]]
    // CHECK-NEXT: %[[BC:.*]] = model.cast %[[BS]]
    // CHECK-NEXT: %[[BF:.*]] = tp.all_gather %[[BC]] {{.*}}{module = "layers.1.b"}
    // CHECK-NEXT: %[[Y:.*]] = model.add %arg0, %[[AF]]
    %a = model.param "layers.0.a.weight" : tensor<8xf32>
    %as = tp.chunk %a on @mesh mesh_axes = [0] axis = 0 : tensor<8xf32> -> tensor<4xf32>
    %af = tp.all_gather %as on @mesh mesh_axes = [0] gather_axis = 0 {module = "layers.0.a"} : tensor<4xf32> -> tensor<8xf32>
    %y = model.add %x, %af : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // An activation gathered over dp is no parameter's: it stays.
    // CHECK-NEXT: %[[HF:.*]] = tp.all_gather %arg1
    %hf = tp.all_gather %h on @mesh mesh_axes = [0] gather_axis = 0 : tensor<4xf32> -> tensor<8xf32>
    // CHECK-NEXT: %[[V:.*]] = model.param "layers.2.v.weight"
    // CHECK-NEXT: %[[VS:.*]] = tp.chunk %[[V]]
    // CHECK-NEXT: %[[W:.*]] = model.param "layers.2.w.weight"
    // CHECK-NEXT: %[[WS:.*]] = tp.chunk %[[W]]
    // CHECK-NEXT: %[[PK:.*]] = tp.pack %[[VS]], %[[WS]]
    // CHECK-NEXT: %[[G2:.*]] = tp.all_gather %[[PK]] {{.*}}{module = "layers.2"}
    // CHECK-NEXT: %[[BW:.*]] = model.cast %[[BF]]
    // CHECK-NEXT: %[[Y1:.*]] = model.add %[[Y]], %[[HF]]
    // CHECK-NEXT: %[[Z:.*]] = model.add %[[Y1]], %[[BW]]
    %b = model.param "layers.1.b.weight" : tensor<8xf32>
    %bs = tp.chunk %b on @mesh mesh_axes = [0] axis = 0 : tensor<8xf32> -> tensor<4xf32>
    %bc = model.cast %bs : (tensor<4xf32>) -> tensor<4xbf16>
    %bf = tp.all_gather %bc on @mesh mesh_axes = [0] gather_axis = 0 {module = "layers.1.b"} : tensor<4xbf16> -> tensor<8xbf16>
    %bw = model.cast %bf : (tensor<8xbf16>) -> tensor<8xf32>
    %y1 = model.add %y, %hf : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %z = model.add %y1, %bw : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // A gather over tp (tensor parallelism's) stays.
    // CHECK: tp.all_gather %{{.*}} on @mesh mesh_axes = [1]
    %zs = tp.chunk %z on @mesh mesh_axes = [1] axis = 0 : tensor<8xf32> -> tensor<4xf32>
    %zf = tp.all_gather %zs on @mesh mesh_axes = [1] gather_axis = 0 : tensor<4xf32> -> tensor<8xf32>
    %v = model.param "layers.2.v.weight" : tensor<4xf32>
    %vs = tp.chunk %v on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %w = model.param "layers.2.w.weight" : tensor<4xf32>
    %ws = tp.chunk %w on @mesh mesh_axes = [0] axis = 0 : tensor<4xf32> -> tensor<2xf32>
    %pk = tp.pack %vs, %ws : tensor<2xf32>, tensor<2xf32> -> tensor<4xf32>
    %g2 = tp.all_gather %pk on @mesh mesh_axes = [0] gather_axis = 0 {module = "layers.2"} : tensor<4xf32> -> tensor<8xf32>
    %u = model.add %zf, %g2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // The backward: layers.1's regather, then layers.0's, which moves up
    // before layers.1's backward computes.
    // CHECK:      %[[BF2:.*]] = tp.all_gather %[[BC]] {{.*}}tp.phase = #tp.phase<backward>
    // CHECK-NEXT: %[[AF2:.*]] = tp.all_gather %[[AS]] {{.*}}tp.phase = #tp.phase<backward>
    // CHECK-NEXT: model.cast %[[BF2]]
    %bf2 = tp.all_gather %bc on @mesh mesh_axes = [0] gather_axis = 0 {module = "layers.1.b", tp.phase = #tp.phase<backward>} : tensor<4xbf16> -> tensor<8xbf16>
    %bw2 = model.cast %bf2 {tp.phase = #tp.phase<backward>} : (tensor<8xbf16>) -> tensor<8xf32>
    %g1 = model.mul %u, %bw2 {tp.phase = #tp.phase<backward>} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %af2 = tp.all_gather %as on @mesh mesh_axes = [0] gather_axis = 0 {module = "layers.0.a", tp.phase = #tp.phase<backward>} : tensor<4xf32> -> tensor<8xf32>
    %g0 = model.mul %g1, %af2 {tp.phase = #tp.phase<backward>} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    return %g0, %u : tensor<8xf32>, tensor<8xf32>
  }
}

// -----

// Without an fsdp_axis the pass changes nothing.
// CHECK-LABEL: func.func @ddp(
// CHECK:      tp.all_gather
// CHECK-NEXT: model.add
// CHECK-NEXT: model.param
module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], dp_axis = "dp">} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
  func.func @ddp(%x: tensor<8xf32>) -> tensor<8xf32> attributes {tp.spmd} {
    %a = model.param "layers.0.a.weight" : tensor<8xf32>
    %as = tp.chunk %a on @mesh mesh_axes = [0] axis = 0 : tensor<8xf32> -> tensor<4xf32>
    %af = tp.all_gather %as on @mesh mesh_axes = [0] gather_axis = 0 : tensor<4xf32> -> tensor<8xf32>
    %y = model.add %x, %af : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %b = model.param "layers.1.b.weight" : tensor<8xf32>
    %bs = tp.chunk %b on @mesh mesh_axes = [0] axis = 0 : tensor<8xf32> -> tensor<4xf32>
    %bf = tp.all_gather %bs on @mesh mesh_axes = [0] gather_axis = 0 : tensor<4xf32> -> tensor<8xf32>
    %z = model.add %y, %bf : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    return %z : tensor<8xf32>
  }
}
