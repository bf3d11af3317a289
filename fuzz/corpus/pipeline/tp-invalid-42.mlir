module attributes {test.style = #tp.prepare_module_output<output_layouts = [1], desired_output_layouts = [#tp.replicate]>} {
}
