module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1", "net2"], styles = [#tp.colwise<>]>} {
}
