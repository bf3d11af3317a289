tp.mesh @mesh2x2(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @partial_max_to_min_2x2(%x: tensor<8x16xf32>) {
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<max>, #tp.replicate]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<max>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh2x2, [#tp.partial<min>, #tp.replicate]>
  return
}
