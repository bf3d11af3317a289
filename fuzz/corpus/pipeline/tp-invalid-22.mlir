tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @chunk_shape(%x: tensor<8x16xf32>) {
  %r = tp.chunk %x on @mesh2d mesh_axes = [0, 1] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  return
}
