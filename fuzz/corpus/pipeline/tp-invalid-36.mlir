module attributes {test.style = #tp.rowwise<output_layouts = [#tp.replicate, #tp.shard<0>]>} {
}
