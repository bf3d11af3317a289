tp.mesh @mesh(shape = 4) {axis_names = [""]}
