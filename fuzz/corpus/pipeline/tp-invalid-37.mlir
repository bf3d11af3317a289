module attributes {test.style = #tp.colwise<output_layouts = "Shard(0)">} {
}
