module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.replicate]>} {
}
