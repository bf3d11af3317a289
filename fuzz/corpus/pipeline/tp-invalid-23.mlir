tp.mesh @mesh(shape = 4)
func.func @chunk_axis(%x: tensor<8x16xf32>) {
  %r = tp.chunk %x on @mesh mesh_axes = [0] axis = -1 : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}
