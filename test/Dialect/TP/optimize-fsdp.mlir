// RUN: tp-opt %s --pass-pipeline='builtin.module(func.func(tp-optimize))' | FileCheck %s

// Under a plan with an fsdp_axis, a parameter distributed sharded over that
// axis is what each rank stores of it between gathers (tp-lower-styles):
// tp-optimize keeps that distribute and its gather even where nothing else
// reads the shard (a frozen parameter: no gradient, no update), instead of
// distributing the parameter replicated. Other values still fold.

module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = [], styles = [], fsdp_axis = "dp">} {
  tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}

  // CHECK-LABEL: func.func @frozen_parameter
  // CHECK-NEXT: %[[P:.*]] = model.param "w" {frozen}
  // CHECK-NEXT: %[[S:.*]] = tp.distribute %[[P]] {module = "fc"} : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.replicate]>
  // CHECK-NEXT: %[[G:.*]] = tp.redistribute %[[S]] {module = "fc"} : {{.*}} -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
  // CHECK-NEXT: return %[[G]]
  func.func @frozen_parameter() -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]> {
    %p = model.param "w" {frozen} : tensor<8x4xf32>
    %s = tp.distribute %p {module = "fc"} : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.replicate]>
    %g = tp.redistribute %s {module = "fc"} : !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
    return %g : !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
  }

  // A parameter sharded over tp only, and an input: distributed straight.
  // CHECK-LABEL: func.func @not_fsdp_storage
  // CHECK-NEXT: %[[P:.*]] = model.param "v"
  // CHECK-NEXT: %[[D:.*]] = tp.distribute %[[P]] {{.*}} -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
  // CHECK-NEXT: %[[X:.*]] = tp.distribute %arg0 {{.*}} -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
  // CHECK-NEXT: return %[[D]], %[[X]]
  func.func @not_fsdp_storage(%x: tensor<8x4xf32>) -> (!tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>, !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>) {
    %p = model.param "v" : tensor<8x4xf32>
    %s = tp.distribute %p : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]>
    %g = tp.redistribute %s : !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.shard<0>]> -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
    %xs = tp.distribute %x : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.replicate]>
    %xg = tp.redistribute %xs : !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
    return %g, %xg : !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>, !tp.dtensor<8x4xf32, @mesh, [#tp.replicate, #tp.replicate]>
  }
}
