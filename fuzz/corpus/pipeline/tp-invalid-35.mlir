module attributes {test.style = #tp.colwise<input_layouts = [#tp.replicate]>} {
}
