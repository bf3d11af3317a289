tp.mesh @mesh(shape = 2x0)
