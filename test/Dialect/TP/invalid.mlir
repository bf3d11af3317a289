// RUN: tp-opt %s -split-input-file -verify-diagnostics

// Verifier diagnostics of the tp dialect: meshes, the dtensor type, the
// DTensor ops, the collectives, the style attributes, the plan attribute and
// the discardable tp attributes passes attach to other ops.

// expected-error @below {{'tp.mesh' op mesh axis sizes must be positive, got 0}}
tp.mesh @mesh(shape = 2x0)

// -----

// expected-error @below {{'tp.mesh' op mesh has 2 axes but 1 axis names}}
tp.mesh @mesh(shape = 2x2) {axis_names = ["tp"]}

// -----

// expected-error @below {{'tp.mesh' op mesh axis name 'tp' is used twice}}
tp.mesh @mesh(shape = 2x2) {axis_names = ["tp", "tp"]}

// -----

// expected-error @below {{'tp.mesh' op mesh axis names must not be empty}}
tp.mesh @mesh(shape = 4) {axis_names = [""]}

// -----

tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @placements_vs_mesh_rank(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.distribute' op dtensor has 1 placements but mesh mesh2d has 2 axes}}
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>]>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @too_many_placements(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]>) {
  // expected-error @below {{'tp.redistribute' op dtensor has 2 placements but mesh mesh has 1 axes}}
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate, #tp.replicate]>
  return
}

// -----

// expected-error @below {{shard dim 2 is out of range for a tensor of rank 2}}
func.func private @shard_dim_too_big(!tp.dtensor<8x16xf32, @mesh, [#tp.shard<2>]>)

// -----

// A negative dim is normalized against the rank first: -3 + 2 = -1.
// expected-error @below {{shard dim -1 is out of range for a tensor of rank 2}}
func.func private @shard_dim_too_negative(!tp.dtensor<8x16xf32, @mesh, [#tp.shard<-3>]>)

// -----

// expected-error @below {{dtensor needs one placement per mesh axis, got none}}
func.func private @no_placements(!tp.dtensor<8x16xf32, @mesh, []>)

// -----

// expected-error @below {{dtensor placement 0 is not a placement: unit}}
func.func private @not_a_placement(!tp.dtensor<8x16xf32, @mesh, [unit]>)

// -----

func.func @unknown_mesh(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.distribute' op references mesh @nope, which is not a tp.mesh in scope}}
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @nope, [#tp.shard<0>]>
  return
}

// -----

func.func @mesh_is_not_a_mesh(%x: tensor<8xf32>) {
  // expected-error @below {{'tp.all_reduce' op references mesh @mesh_is_not_a_mesh, which is not a tp.mesh in scope}}
  %r = tp.all_reduce %x on @mesh_is_not_a_mesh mesh_axes = [0] reduction = sum : tensor<8xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @collective_axis_out_of_range(%x: tensor<8xf32>) {
  // expected-error @below {{'tp.all_reduce' op mesh axis 1 is out of range for mesh mesh of rank 1}}
  %r = tp.all_reduce %x on @mesh mesh_axes = [1] reduction = sum : tensor<8xf32>
  return
}

// -----

tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @collective_axis_twice(%x: tensor<8xf32>) {
  // expected-error @below {{'tp.all_gather' op mesh axis 1 is listed twice}}
  %r = tp.all_gather %x on @mesh2d mesh_axes = [1, 1] gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  return
}

// -----

func.func @collective_negative_axis(%x: tensor<8xf32>) {
  // expected-error @below {{'tp.all_reduce' op attribute 'mesh_axes' failed to satisfy constraint}}
  %r = tp.all_reduce %x on @mesh mesh_axes = [-1] reduction = sum : tensor<8xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @all_gather_shape(%x: tensor<2x16xf32>) {
  // expected-error @below {{'tp.all_gather' op expected result dim 0 to be 8, got 4}}
  %r = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<4x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @all_gather_axis(%x: tensor<2x16xf32>) {
  // expected-error @below {{'tp.all_gather' op gather_axis 2 is out of range for a tensor of rank 2}}
  %r = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 2 : tensor<2x16xf32> -> tensor<2x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @all_gather_element_type(%x: tensor<2x16xf32>) {
  // expected-error @below {{'tp.all_gather' op result type 'tensor<8x16xf16>' is incompatible with input type 'tensor<2x16xf32>'}}
  %r = tp.all_gather %x on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<8x16xf16>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @reduce_scatter_shape(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.reduce_scatter' op expected result dim 1 to be 4, got 16}}
  %r = tp.reduce_scatter %x on @mesh mesh_axes = [0] reduction = sum scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @reduce_scatter_uneven(%x: tensor<6x16xf32>) {
  // expected-error @below {{'tp.reduce_scatter' op dim 0 of size 6 does not divide evenly over 4 ranks; the result dim must be dynamic}}
  %r = tp.reduce_scatter %x on @mesh mesh_axes = [0] reduction = sum scatter_axis = 0 : tensor<6x16xf32> -> tensor<2x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @all_to_all_shape(%x: tensor<8x4xf32>) {
  // expected-error @below {{'tp.all_to_all' op expected result dim 1 to be 16, got 4}}
  %r = tp.all_to_all %x on @mesh mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<2x4xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @all_to_all_same_axis(%x: tensor<8x4xf32>) {
  // expected-error @below {{'tp.all_to_all' op split_axis and concat_axis must differ}}
  %r = tp.all_to_all %x on @mesh mesh_axes = [0] split_axis = 1 concat_axis = 1 : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @chunk_shape(%x: tensor<8x16xf32>) {
  // Two axes of size 2: a group of 4 ranks, so 8 / 4 = 2 rows, not 4.
  // expected-error @below {{'tp.chunk' op expected result dim 0 to be 2, got 4}}
  %r = tp.chunk %x on @mesh2d mesh_axes = [0, 1] axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @chunk_axis(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.chunk' op axis -1 is out of range for a tensor of rank 2}}
  %r = tp.chunk %x on @mesh mesh_axes = [0] axis = -1 : tensor<8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @partial_from_replicate_no_axis(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.partial_from_replicate' op needs at least one mesh axis to be Partial over}}
  %r = tp.partial_from_replicate %x on @mesh mesh_axes = [] reduction = sum : tensor<8x16xf32>
  return
}

// -----

tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @partial_from_replicate_axis(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.partial_from_replicate' op mesh axis 2 is out of range for mesh mesh2d of rank 2}}
  %r = tp.partial_from_replicate %x on @mesh2d mesh_axes = [2] reduction = sum : tensor<8x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @partial_from_replicate_type(%x: tensor<8x16xf32>) {
  // The local value keeps its shape on every rank (zeros where it is not kept).
  // expected-error @below {{'tp.partial_from_replicate' op requires the same type for all operands and results}}
  %r = "tp.partial_from_replicate"(%x) <{mesh = @mesh, mesh_axes = array<i64: 0>, reduction = #tp<reduction sum>}> : (tensor<8x16xf32>) -> tensor<2x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @broadcast_root(%x: tensor<8xf32>) {
  // expected-error @below {{'tp.broadcast' op root 4 is out of range for a group of 4 ranks}}
  %r = tp.broadcast %x on @mesh mesh_axes = [0] root = 4 : tensor<8xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @broadcast_negative_root(%x: tensor<8xf32>) {
  // expected-error @below {{'tp.broadcast' op root -1 is out of range for a group of 4 ranks}}
  %r = tp.broadcast %x on @mesh mesh_axes = [0] root = -1 : tensor<8xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @redistribute_shape(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) {
  // expected-error @below {{'tp.redistribute' op redistribute must keep the global shape and element type}}
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<16x8xf32, @mesh, [#tp.replicate]>
  return
}

// -----

tp.mesh @mesh(shape = 4)
tp.mesh @other(shape = 4)
func.func @redistribute_mesh(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) {
  // expected-error @below {{'tp.redistribute' op redistribute cannot change the mesh (@mesh to @other)}}
  %r = tp.redistribute %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> !tp.dtensor<8x16xf32, @other, [#tp.replicate]>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @distribute_shape(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.distribute' op input 'tensor<8x16xf32>' does not match the global type of '!tp.dtensor<2x16xf32, @mesh, [#tp.shard<0>]>'}}
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<2x16xf32, @mesh, [#tp.shard<0>]>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @from_local_shape(%x: tensor<8x16xf32>) {
  // expected-error @below {{'tp.from_local' op local type 'tensor<8x16xf32>' does not match the shard type 'tensor<2x16xf32>'}}
  %d = tp.from_local %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
  return
}

// -----

tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
func.func @to_local_shape(%x: !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>) {
  // expected-error @below {{'tp.to_local' op local type 'tensor<4x16xf32>' does not match the shard type 'tensor<4x8xf32>'}}
  %l = tp.to_local %x : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> tensor<4x16xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @to_local_rank(%x: !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) {
  // expected-error @below {{'tp.to_local' op local type 'tensor<32xf32>' does not match the shard type 'tensor<2x16xf32>'}}
  %l = tp.to_local %x : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]> -> tensor<32xf32>
  return
}

// -----

// expected-error @below {{ColwiseParallel only supports a single input_layouts, not a tuple of layouts}}
module attributes {test.style = #tp.colwise<input_layouts = [#tp.replicate]>} {
}

// -----

// expected-error @below {{RowwiseParallel only supports a single output_layouts, not a tuple of layouts}}
module attributes {test.style = #tp.rowwise<output_layouts = [#tp.replicate, #tp.shard<0>]>} {
}

// -----

// expected-error @below {{ColwiseParallel output_layouts must be a placement (#tp.shard, #tp.replicate or #tp.partial), got "Shard(0)"}}
module attributes {test.style = #tp.colwise<output_layouts = "Shard(0)">} {
}

// -----

// expected-error @below {{PrepareModuleInput input_layouts and desired_input_layouts should have same length, got 2 and 1}}
module attributes {test.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, #tp.replicate], desired_input_layouts = [#tp.replicate]>} {
}

// -----

// expected-error @below {{PrepareModuleInput requires both input_layouts and desired_input_layouts when either is given}}
module attributes {test.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>]>} {
}

// -----

// expected-error @below {{PrepareModuleInput desired_input_layouts entry 1 is set but input_layouts entry 1 is None}}
module attributes {test.style = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, #tp.replicate]>} {
}

// -----

// expected-error @below {{PrepareModuleInput desired_input_kwarg_layouts has no entry for keyword input 'mask'}}
module attributes {test.style = #tp.prepare_module_input<input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {}>} {
}

// -----

// expected-error @below {{PrepareModuleOutput output_layouts entries must be placements or unit (None), got 1 : i64}}
module attributes {test.style = #tp.prepare_module_output<output_layouts = [1], desired_output_layouts = [#tp.replicate]>} {
}

// -----

// expected-error @below {{plan has 2 keys but 1 styles}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1", "net2"], styles = [#tp.colwise<>]>} {
}

// -----

// expected-error @below {{plan keys must be strings, got 1 : i64}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [1], styles = [#tp.colwise<>]>} {
}

// -----

// expected-error @below {{plan styles must be parallel-style attributes, got #tp.replicate}}
module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.replicate]>} {
}

// -----

// A custom style's params must be placements.
// expected-error @+1 {{Mine params['weight'] must be a placement}}
func.func private @custom_params() attributes {tp.style = #tp.custom<name = "Mine", params = {weight = 1 : i64}>}

// -----

// The modern PrepareModuleOutput requires its two layout lists.
// expected-error @below {{PrepareModuleOutput requires output_layouts and desired_output_layouts}}
func.func private @prepare_output_no_layouts() attributes {tp.a = #tp.prepare_module_output<>}

// -----

// expected-error @below {{PrepareModuleInputOutput requires output_layouts and desired_output_layouts}}
func.func private @prepare_input_output_no_outputs() attributes {tp.a = #tp.prepare_module_input_output<input_layouts = #tp.shard<0>, desired_input_layouts = #tp.replicate>}

// -----

// The seed zips input_layouts with output_layouts: both the same length.
// expected-error @below {{PrepareModuleInput input_layouts and output_layouts should have same length, got 2 and 1}}
func.func private @legacy_prepare_input_lengths() attributes {tp.a = #tp.legacy_prepare_module_input<input_layouts = [#tp.shard<0>, #tp.shard<1>], output_layouts = [#tp.replicate]>}

// -----

// expected-error @below {{PrepareModuleOutput (the 2.1 signature) supports a single output only, got 2 output_layouts; use output_layouts with desired_output_layouts for several outputs}}
func.func private @legacy_prepare_output_tuple() attributes {tp.a = #tp.legacy_prepare_module_output<output_layouts = [#tp.shard<0>, #tp.replicate]>}

// -----

// expected-error @below {{PrepareModuleOutput only supports a single input_layouts, not a tuple of layouts}}
func.func private @legacy_prepare_output_input_tuple() attributes {tp.a = #tp.legacy_prepare_module_output<input_layouts = [#tp.shard<0>]>}

// -----

// expected-error @below {{'tp.mesh' op mesh has more ranks than fit in 64 bits}}
tp.mesh @huge(shape = 4294967296x4294967296)

// -----

// A dtensor that only other dialects' ops define and use is checked by its
// mesh: one placement per mesh axis.
// expected-note @below {{mesh @mesh declared here}}
tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
func.func @placements_through_model_ops(%x: tensor<8x16xf32>) {
  %d = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>
  // expected-error @below {{'model.relu' op result #0 has type '!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]>' with 2 placements, but mesh @mesh has 1 axis}}
  %r = model.relu %d : (!tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>) -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>, #tp.shard<1>]>
  return
}

// -----

// expected-note @below {{mesh @mesh declared here}}
tp.mesh @mesh(shape = 2x2) {axis_names = ["dp", "tp"]}
// expected-error @below {{'func.func' op argument #0 has type '!tp.dtensor<8xf32, @mesh, [#tp.replicate]>' with 1 placements, but mesh @mesh has 2 axes}}
func.func @placements_of_arguments(%x: !tp.dtensor<8xf32, @mesh, [#tp.replicate]>) {
  return
}

// -----

// expected-error @below {{'func.func' op 'tp.result_types' has 0 types but the function has 1 results}}
func.func @result_types_count(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tp.spmd, tp.result_types = []} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op 'tp.result_types' entry 0 must be a ranked tensor or dtensor type, got 1 : i64}}
func.func @result_types_entries(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tp.result_types = [1]} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{'builtin.module' op 'tp.result_types' belongs on a function}}
module attributes {tp.result_types = []} {
}

// -----

// expected-error @below {{'func.func' op 'tp.arg_types' has 2 types but the function has 1 arguments}}
func.func @arg_types_count(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tp.spmd, tp.arg_types = [tensor<4xf32>, tensor<4xf32>]} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op 'tp.local' on result 0 must be a unit attribute}}
func.func private @local_result_not_unit() -> (tensor<4xf32> {tp.local = 1 : i64})

// -----

// The discardable tp attributes passes hand on (declared in TPBase.td).

// expected-error @below {{'func.func' op 'tp.style' must be a parallel style, got #tp.replicate}}
func.func private @style_not_a_style() attributes {tp.style = #tp.replicate}

// -----

// expected-error @below {{'tp.mesh' op 'tp.style' belongs on a model module op or a function}}
tp.mesh @mesh(shape = 2) {tp.style = #tp.colwise<>}

// -----

// expected-error @below {{'func.func' op 'tp.plan' belongs on a module}}
func.func private @plan_on_function() attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>}

// -----

// expected-error @below {{'builtin.module' op 'tp.plan' must be a #tp.plan, got #tp.colwise<>}}
module attributes {tp.plan = #tp.colwise<>} {
}

// -----

tp.mesh @mesh(shape = 2)
func.func @tp_axis_on_other_op(%x: !tp.dtensor<4xf32, @mesh, [#tp.shard<0>]>) -> tensor<2xf32> {
  // expected-error @below {{'tp.to_local' op 'tp.tp_axis' belongs on a tp.distribute or tp.redistribute}}
  %l = tp.to_local %x {tp.tp_axis = 0 : i64} : !tp.dtensor<4xf32, @mesh, [#tp.shard<0>]> -> tensor<2xf32>
  return %l : tensor<2xf32>
}

// -----

tp.mesh @mesh(shape = 2)
func.func @tp_axis_negative(%x: tensor<4xf32>) -> !tp.dtensor<4xf32, @mesh, [#tp.shard<0>]> {
  // expected-error @below {{'tp.distribute' op 'tp.tp_axis' must be a non-negative i64 mesh axis}}
  %d = tp.distribute %x {tp.tp_axis = -1 : i64} : tensor<4xf32> -> !tp.dtensor<4xf32, @mesh, [#tp.shard<0>]>
  return %d : !tp.dtensor<4xf32, @mesh, [#tp.shard<0>]>
}

// -----

// expected-error @below {{'func.func' op 'tp.spmd' must be a unit attribute}}
func.func private @spmd_not_unit() attributes {tp.spmd = 1 : i64}

// -----

// expected-error @below {{'builtin.module' op 'tp.spmd' belongs on a function}}
module attributes {tp.spmd} {
}

// -----

// expected-error @below {{'func.func' op 'tp.arg_types' must be an array of types}}
func.func private @arg_types_not_array(tensor<4xf32>) attributes {tp.arg_types = tensor<4xf32>}

// -----

// expected-error @below {{'func.func' op 'tp.local' belongs on a function result}}
func.func private @local_on_function() attributes {tp.local}

// -----

// expected-error @below {{'func.func' op 'tp.grad_of' on result 0 must name a parameter (a non-empty string)}}
func.func private @grad_of_not_a_name() -> (tensor<4xf32> {tp.grad_of = 1 : i64})

// -----

// expected-error @below {{'func.func' op 'tp.grad_of' on result 0 must name a parameter (a non-empty string)}}
func.func private @grad_of_empty() -> (tensor<4xf32> {tp.grad_of = ""})

// -----

// expected-error @below {{'func.func' op 'tp.grad_of' belongs on a function result}}
func.func private @grad_of_on_function() attributes {tp.grad_of = "w"}

// -----

// expected-error @below {{'func.func' op 'tp.phase' belongs on an op of a function}}
func.func private @phase_on_function() attributes {tp.phase = #tp.phase<backward>}

// -----

tp.mesh @mesh(shape = 4)
func.func @phase_not_a_phase(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'tp.all_reduce' op 'tp.phase' must be a #tp.phase, got "backward"}}
  %r = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {tp.phase = "backward"} : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A lookup into a split table: tp.sharded_embedding and
// tp.sharded_target_logit.

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_float_ids(%ids: tensor<2xf32>, %w: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op ids must be integers}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_weight_rank(%ids: tensor<2xi64>, %w: tensor<8xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op weight must be [rows, embedding_dim]}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2xi64>, tensor<8xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_result(%ids: tensor<2xi64>, %w: tensor<2x4xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{'tp.sharded_embedding' op expected a result of shape [2, 4], got [2, 5]}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2xi64>, tensor<2x4xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_vocab_not_positive(%ids: tensor<2xi64>, %w: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op vocab_size 0 is not positive}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 0 : (tensor<2xi64>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_more_rows(%ids: tensor<2xi64>, %w: tensor<16x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op holds 16 of 8 vocab_size entries}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2xi64>, tensor<16x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_not_a_share(%ids: tensor<2xi64>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op holds 3 entries on each of 4 ranks, but vocab_size is 8; an uneven split has a dynamic size}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2xi64>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_no_axes(%ids: tensor<2xi64>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op needs at least one mesh axis the table is split over}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [] vocab_size = 8 : (tensor<2xi64>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_axis_range(%ids: tensor<2xi64>, %w: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op mesh axis 1 is out of range for mesh mesh of rank 1}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [1] vocab_size = 8 : (tensor<2xi64>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @sharded_embedding_no_mesh(%ids: tensor<2xi64>, %w: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{'tp.sharded_embedding' op references mesh @mesh, which is not a tp.mesh in scope}}
  %y = tp.sharded_embedding %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2xi64>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_shapes(%l: tensor<4x8xf32>, %t: tensor<3xi64>) -> tensor<4x1xf32> {
  // expected-error @below {{'tp.sharded_target_logit' op takes logits [N, classes] and targets [N]}}
  %y = tp.sharded_target_logit %l, %t on @mesh mesh_axes = [0] num_classes = 32 : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_float_targets(%l: tensor<4x8xf32>, %t: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @below {{'tp.sharded_target_logit' op targets must be integers}}
  %y = tp.sharded_target_logit %l, %t on @mesh mesh_axes = [0] num_classes = 32 : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_result(%l: tensor<4x8xf32>, %t: tensor<4xi64>) -> tensor<4x2xf32> {
  // expected-error @below {{'tp.sharded_target_logit' op expected a result of shape [4, 1], got [4, 2]}}
  %y = tp.sharded_target_logit %l, %t on @mesh mesh_axes = [0] num_classes = 32 : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_not_a_share(%l: tensor<4x8xf32>, %t: tensor<4xi64>) -> tensor<4x1xf32> {
  // expected-error @below {{'tp.sharded_target_logit' op holds 8 entries on each of 4 ranks, but num_classes is 30; an uneven split has a dynamic size}}
  %y = tp.sharded_target_logit %l, %t on @mesh mesh_axes = [0] num_classes = 30 : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----

// The uneven sizes of a gather are the op's own (optional) attributes.

tp.mesh @mesh(shape = 2x2)
func.func @gather_global_size_alone(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{'tp.all_gather' op global_size and outer_axes go together}}
  %r = tp.all_gather %x on @mesh mesh_axes = [1] gather_axis = 0 {global_size = 5 : i64} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

tp.mesh @mesh(shape = 2x2)
func.func @gather_global_size_static(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{'tp.all_gather' op global_size is only for a dynamic gathered dim}}
  %r = tp.all_gather %x on @mesh mesh_axes = [1] gather_axis = 0 {global_size = 4 : i64, outer_axes = array<i64: 0>} : tensor<2x4xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

tp.mesh @mesh(shape = 2x2)
func.func @gather_outer_axis_gathered(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{'tp.all_gather' op outer axis 1 is also a gathered mesh axis}}
  %r = tp.all_gather %x on @mesh mesh_axes = [1] gather_axis = 0 {global_size = 5 : i64, outer_axes = array<i64: 1>} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

tp.mesh @mesh(shape = 2x2)
func.func @gather_outer_axis_range(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{'tp.all_gather' op outer axis 2 is out of range for mesh mesh of rank 2}}
  %r = tp.all_gather %x on @mesh mesh_axes = [1] gather_axis = 0 {global_size = 5 : i64, outer_axes = array<i64: 2>} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// The backward of the lookups: tp.sharded_embedding_grad and
// tp.sharded_target_logit_grad (the checks they share with the lookups are
// above).

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_grad_weight_rank(%g: tensor<2x4xf32>, %ids: tensor<2xi64>, %w: tensor<8xf32>) {
  // expected-error @below {{'tp.sharded_embedding_grad' op weight must be [rows, embedding_dim]}}
  %y = tp.sharded_embedding_grad %g, %ids, %w on @mesh mesh_axes = [0] vocab_size = 32 : (tensor<2x4xf32>, tensor<2xi64>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_grad_gradient(%g: tensor<2x5xf32>, %ids: tensor<2xi64>, %w: tensor<2x4xf32>) {
  // expected-error @below {{'tp.sharded_embedding_grad' op expected a gradient of shape [2, 4] (ids and the row), got [2, 5]}}
  %y = tp.sharded_embedding_grad %g, %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2x5xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_grad_result(%g: tensor<2x4xf32>, %ids: tensor<2xi64>, %w: tensor<2x4xf32>) {
  // expected-error @below {{'tp.sharded_embedding_grad' op expected a result of shape [2, 4], got [8, 4]}}
  %y = tp.sharded_embedding_grad %g, %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2x4xf32>, tensor<2xi64>, tensor<2x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_embedding_grad_not_a_share(%g: tensor<2x4xf32>, %ids: tensor<2xi64>, %w: tensor<3x4xf32>) {
  // expected-error @below {{'tp.sharded_embedding_grad' op holds 3 entries on each of 4 ranks, but vocab_size is 8; an uneven split has a dynamic size}}
  %y = tp.sharded_embedding_grad %g, %ids, %w on @mesh mesh_axes = [0] vocab_size = 8 : (tensor<2x4xf32>, tensor<2xi64>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_grad_targets(%g: tensor<4x1xf32>, %l: tensor<4x2xf32>, %t: tensor<3xi64>) {
  // expected-error @below {{'tp.sharded_target_logit_grad' op takes logits [N, classes] and targets [N]}}
  %y = tp.sharded_target_logit_grad %g, %l, %t on @mesh mesh_axes = [0] num_classes = 8 : (tensor<4x1xf32>, tensor<4x2xf32>, tensor<3xi64>) -> tensor<4x2xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_grad_gradient(%g: tensor<4x2xf32>, %l: tensor<4x2xf32>, %t: tensor<4xi64>) {
  // expected-error @below {{'tp.sharded_target_logit_grad' op expected a gradient of shape [N, 1], got [4, 2]}}
  %y = tp.sharded_target_logit_grad %g, %l, %t on @mesh mesh_axes = [0] num_classes = 8 : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_grad_result(%g: tensor<4x1xf32>, %l: tensor<4x2xf32>, %t: tensor<4xi64>) {
  // expected-error @below {{'tp.sharded_target_logit_grad' op expected a result of shape [4, 2], got [4, 8]}}
  %y = tp.sharded_target_logit_grad %g, %l, %t on @mesh mesh_axes = [0] num_classes = 8 : (tensor<4x1xf32>, tensor<4x2xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_target_logit_grad_more_classes(%g: tensor<4x1xf32>, %l: tensor<4x16xf32>, %t: tensor<4xi64>) {
  // expected-error @below {{'tp.sharded_target_logit_grad' op holds 16 of 8 num_classes entries}}
  %y = tp.sharded_target_logit_grad %g, %l, %t on @mesh mesh_axes = [0] num_classes = 8 : (tensor<4x1xf32>, tensor<4x16xf32>, tensor<4xi64>) -> tensor<4x16xf32>
  return
}

// -----

func.func @pack_size(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<9xf32> {
  // expected-error @below {{'tp.pack' op the inputs hold 10 elements but the result 9}}
  %p = tp.pack %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<9xf32>
  return %p : tensor<9xf32>
}

// -----

// A training dropout on a shard: tp.sharded_dropout and _grad.

tp.mesh @mesh(shape = 4)
func.func @sharded_dropout_p(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{'tp.sharded_dropout' op dropout probability must be in [0, 1)}}
  %y = tp.sharded_dropout "drop"(%x) on @mesh shard_dims = [0] global_shape = [8, 8] {p = 1.0 : f64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @pack_dtype(%a: tensor<2x3xf32>, %b: tensor<4xf16>) -> tensor<10xf32> {
  // expected-error @below {{'tp.pack' op input 1 has element type 'f16', the result 'f32'}}
  %p = tp.pack %a, %b : tensor<2x3xf32>, tensor<4xf16> -> tensor<10xf32>
  return %p : tensor<10xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_dropout_global_rank(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{'tp.sharded_dropout' op global shape [8] and the local type 'tensor<2x8xf32>' differ in rank}}
  %y = tp.sharded_dropout "drop"(%x) on @mesh shard_dims = [0] global_shape = [8] {p = 0.1 : f64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Element counts past int64 (the sum of two 2^62-element inputs, one input
// of 2^32 x 2^32) are refused, not wrapped around.
func.func @pack_count_overflow(%a: tensor<4611686018427387904xf32>, %b: tensor<4611686018427387904xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tp.pack' op the inputs hold more elements than int64 counts (input 1: 'tensor<4611686018427387904xf32>')}}
  %p = tp.pack %a, %b : tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32> -> tensor<8xf32>
  return %p : tensor<8xf32>
}

// -----

func.func @pack_shape_overflow(%a: tensor<4294967296x4294967296xf32>) -> tensor<8xf32> {
  // expected-error @below {{'tp.pack' op the inputs hold more elements than int64 counts (input 0: 'tensor<4294967296x4294967296xf32>')}}
  %p = tp.pack %a : tensor<4294967296x4294967296xf32> -> tensor<8xf32>
  return %p : tensor<8xf32>
}

// -----

func.func @pack_dynamic(%a: tensor<?x3xf32>) -> tensor<9xf32> {
  // expected-error @below {{'tp.pack' op input 0 has a dynamic shape ('tensor<?x3xf32>')}}
  %p = tp.pack %a : tensor<?x3xf32> -> tensor<9xf32>
  return %p : tensor<9xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_dropout_shard_dim(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{'tp.sharded_dropout_grad' op shard dim 2 is out of range for 'tensor<2x8xf32>' (-1: the axis shards nothing)}}
  %y = tp.sharded_dropout_grad "drop"(%x) on @mesh shard_dims = [2] global_shape = [8, 8] {p = 0.1 : f64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @unpack_outside(%a: tensor<10xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{'tp.unpack' op offset 6 and 6 elements fall outside the input's 10}}
  %u = tp.unpack %a offset = 6 : tensor<10xf32> -> tensor<2x3xf32>
  return %u : tensor<2x3xf32>
}

// -----

// An offset near INT64_MAX: offset + size would wrap around to a negative
// end and pass a naive check.
func.func @unpack_offset_overflow(%a: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @below {{'tp.unpack' op offset 9223372036854775807 and 2 elements fall outside the input's 8}}
  %u = tp.unpack %a offset = 9223372036854775807 : tensor<8xf32> -> tensor<2xf32>
  return %u : tensor<2xf32>
}

// -----

tp.mesh @mesh(shape = 2x2)
func.func @sharded_dropout_mesh_rank(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @below {{'tp.sharded_dropout' op has 1 shard dims for mesh mesh of rank 2}}
  %y = tp.sharded_dropout "drop"(%x) on @mesh shard_dims = [0] global_shape = [8, 8] {p = 0.1 : f64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @unpack_rank(%a: tensor<2x5xf32>) -> tensor<3xf32> {
  // expected-error @below {{'tp.unpack' op input must be a static 1-D tensor, not 'tensor<2x5xf32>'}}
  %u = tp.unpack %a offset = 0 : tensor<2x5xf32> -> tensor<3xf32>
  return %u : tensor<3xf32>
}

// -----

tp.mesh @mesh(shape = 4)
func.func @sharded_dropout_local_shape(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'tp.sharded_dropout' op expected a local shard of shape [2, 8], got [4, 8]}}
  %y = tp.sharded_dropout "drop"(%x) on @mesh shard_dims = [0] global_shape = [8, 8] {p = 0.1 : f64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Hand-written formats check the inherent attributes of their attr-dict
// as ODS's do.
tp.mesh @mesh(shape = 2)
func.func @chunk_module_attr(%x: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @below {{'tp.chunk' op attribute 'module' failed to satisfy constraint: string attribute}}
  %c = tp.chunk %x on @mesh mesh_axes = [0] axis = 0 {module = 3 : i64} : tensor<8x16xf32> -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

tp.mesh @mesh(shape = 2)
func.func @all_reduce_module_attr(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{'tp.all_reduce' op attribute 'module' failed to satisfy constraint: string attribute}}
  %r = tp.all_reduce %x on @mesh mesh_axes = [0] reduction = sum {module = [1]} : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// tp.local_bound (tp-partition's largest shape of an uneven result over the
// ranks) is one size per dim of the op's one tensor result, equal to each
// static dim.
func.func @local_bound_not_array(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{'model.gelu' op 'tp.local_bound' must be an array<i64>, got 2 : i64}}
  %r = model.gelu %x {tp.local_bound = 2 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

func.func @local_bound_rank(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{'model.gelu' op 'tp.local_bound' [2] does not bound the result type 'tensor<?x8xf32>' (one size >= 0 per dim, equal to each static one)}}
  %r = model.gelu %x {tp.local_bound = array<i64: 2>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

func.func @local_bound_static_dim(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @below {{'model.gelu' op 'tp.local_bound' [2, 4] does not bound the result type 'tensor<?x8xf32>'}}
  %r = model.gelu %x {tp.local_bound = array<i64: 2, 4>} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// expected-error @below {{'func.func' op 'tp.local_bound' belongs on an op with one tensor result}}
func.func private @local_bound_no_result() attributes {tp.local_bound = array<i64: 2>}
