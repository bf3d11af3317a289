module attributes {test.style = #tp.prepare_module_input<input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {}>} {
}
