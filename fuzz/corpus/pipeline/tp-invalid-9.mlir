func.func private @not_a_placement(!tp.dtensor<8x16xf32, @mesh, [unit]>)
