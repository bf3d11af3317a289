module attributes {test.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, #tp.replicate]>} {
}
