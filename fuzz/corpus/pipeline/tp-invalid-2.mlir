tp.mesh @mesh(shape = 2x2) {axis_names = ["tp", "tp"]}
