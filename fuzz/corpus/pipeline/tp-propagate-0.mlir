tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}

func.func @elementwise(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %g = model.gelu %r : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = model.add %g, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %a : tensor<4x16xf32>
}

func.func @partial(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dx = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %dw = tp.distribute %w : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %p = model.linear "net2"(%dx, %dw) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  %m = model.mul %p, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = model.add %m, %p : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = model.relu %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @partial_plus_replicate(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %dx = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %dw = tp.distribute %w : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %p = model.linear "net2"(%dx, %dw) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x8xf32>
  %a = model.add %p, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

func.func @heads(%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x8xf32> {
  %dw = tp.distribute %w : tensor<8x8xf32> -> !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>
  %q = model.linear "wq"(%x, %dw) : (tensor<2x4x8xf32>, !tp.dtensor<8x8xf32, @mesh, [#tp.shard<0>]>) -> tensor<2x4x8xf32>
  %qh = model.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %qr = model.rotary %qh : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
  %o = model.attention %qr, %qh, %qh : (tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>, tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
  %t = model.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %sm = model.softmax %t {dim = -1 : i64} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %tt = model.transpose %sm {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
  %f = model.reshape %tt : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
  return %f : tensor<2x4x8xf32>
}

func.func @needs_whole_dim(%x: tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32> {
  %d = tp.distribute %x : tensor<2x4x2x4xf32> -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<3>]>
  %s = model.softmax %d {dim = -1 : i64} : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<3>]>) -> tensor<2x4x2x4xf32>
  %e = tp.distribute %s : tensor<2x4x2x4xf32> -> !tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<1>]>
  %r = model.rotary %e : (!tp.dtensor<2x4x2x4xf32, @mesh, [#tp.shard<1>]>) -> tensor<2x4x2x4xf32>
  return %r : tensor<2x4x2x4xf32>
}

func.func @matmul_and_norm(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %g: tensor<8xf32>) -> (tensor<4x4xf32>, tensor<4x8xf32>) {
  %da = tp.distribute %a : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>
  %db = tp.distribute %b : tensor<8x4xf32> -> !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>]>
  %c = model.matmul %da, %db : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<1>]>, !tp.dtensor<8x4xf32, @mesh, [#tp.shard<0>]>) -> tensor<4x4xf32>
  %rows = tp.distribute %a : tensor<4x8xf32> -> !tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>
  %n = model.rms_norm "norm"(%rows, %g) : (!tp.dtensor<4x8xf32, @mesh, [#tp.shard<0>]>, tensor<8xf32>) -> tensor<4x8xf32>
  return %c, %n : tensor<4x4xf32>, tensor<4x8xf32>
}

func.func @declared_layout_mismatch(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %e = tp.distribute %r {module = "next"} : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>
  %g = model.gelu %e : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<0>]>) -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

func.func @declared_layout_match(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %e = tp.distribute %r : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %g = model.gelu %e : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

func.func private @external(tensor<4x16xf32>) -> tensor<4x16xf32>
func.func @no_rule(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
  %c = func.call @external(%r) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

func.func @composite(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
  %y = model.module "block"(%d) : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32> {
  ^bb0(%a: !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>):
    %s = model.silu %a : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
    model.yield %s : tensor<4x16xf32>
  }
  return %y : tensor<4x16xf32>
}
