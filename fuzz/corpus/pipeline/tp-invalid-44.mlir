module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [1], styles = [#tp.colwise<>]>} {
}
