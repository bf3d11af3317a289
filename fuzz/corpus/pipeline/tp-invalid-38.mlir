module attributes {test.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, #tp.replicate], desired_input_layouts = [#tp.replicate]>} {
}
