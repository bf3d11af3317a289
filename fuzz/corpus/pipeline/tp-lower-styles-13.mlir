module {
  tp.mesh @mesh(shape = 2) {axis_names = ["tp"]}
  func.func @no_styles(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %d = tp.distribute %x : tensor<4x16xf32> -> !tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>
    %r = model.relu %d : (!tp.dtensor<4x16xf32, @mesh, [#tp.shard<1>]>) -> tensor<4x16xf32>
    return %r : tensor<4x16xf32>
  }
}
