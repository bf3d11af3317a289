tp.mesh @mesh(shape = 4)
func.func @broadcast_root(%x: tensor<8xf32>) {
  %r = tp.broadcast %x on @mesh mesh_axes = [0] root = 4 : tensor<8xf32>
  return
}
