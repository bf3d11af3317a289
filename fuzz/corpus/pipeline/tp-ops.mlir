module attributes {tp.plan = #tp.plan<mesh = @mesh, tp_axis = "tp", keys = ["layers.*.attention.w[qkv]", "output"], styles = [#tp.colwise<>, #tp.rowwise<input_layouts = #tp.shard<-1>, output_layouts = #tp.shard<0>, use_local_output = false>]>} {

tp.mesh @mesh(shape = 4) {axis_names = ["tp"]}
tp.mesh @mesh2d(shape = 2x2) {axis_names = ["dp", "tp"]}
tp.mesh @unnamed(shape = 1x2x3)


func.func private @placements_1d(
    !tp.dtensor<8x16xf32, @mesh, [#tp.shard<0>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.partial<avg>]>,
    !tp.dtensor<8x16xf32, @mesh, [#tp.partial<max>]>,
    !tp.dtensor<8x16xbf16, @mesh, [#tp.partial<min>]>,
    !tp.dtensor<f32, @mesh, [#tp.replicate]>)

func.func private @negative_shard_dim(
    !tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<-1>]>,
    !tp.dtensor<2x8x16xf32, @mesh, [#tp.shard<-3>]>)

func.func private @placements_2d(
    !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>,
    !tp.dtensor<8x16xf32, @mesh2d, [#tp.replicate, #tp.partial<sum>]>,
    !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<0>]>)


func.func private @colwise() attributes {
  tp.a = #tp.colwise<>,
  tp.b = #tp.colwise<use_local_output = true>,
  tp.c = #tp.colwise<input_layouts = #tp.shard<0>, output_layouts = #tp.replicate, use_local_output = false>}

func.func private @rowwise() attributes {
  tp.a = #tp.rowwise<>,
  tp.b = #tp.rowwise<input_layouts = #tp.shard<-1>, output_layouts = #tp.shard<0>>,
  tp.c = #tp.rowwise<output_layouts = #tp.partial<sum>, use_local_output = false>}

func.func private @sequence_parallel() attributes {
  tp.a = #tp.sequence_parallel<>,
  tp.b = #tp.sequence_parallel<sequence_dim = 0, use_local_output = true>}

func.func private @prepare_module_input() attributes {
  tp.a = #tp.prepare_module_input<>,
  tp.b = #tp.prepare_module_input<input_layouts = [#tp.shard<0>, unit], desired_input_layouts = [#tp.replicate, unit], input_kwarg_layouts = {mask = #tp.shard<0>}, desired_input_kwarg_layouts = {mask = #tp.replicate}, use_local_output = true>,
  tp.c = #tp.prepare_module_input<input_layouts = #tp.shard<1>, desired_input_layouts = #tp.replicate, use_local_output = false>}

func.func private @prepare_module_output() attributes {
  tp.a = #tp.prepare_module_output<output_layouts = #tp.shard<0>, desired_output_layouts = #tp.replicate>,
  tp.b = #tp.prepare_module_output<output_layouts = [#tp.partial<sum>, unit], desired_output_layouts = [#tp.shard<0>, unit], use_local_output = false>}

func.func private @prepare_module_input_output() attributes {
  tp.a = #tp.prepare_module_input_output<input_layouts = #tp.shard<0>, desired_input_layouts = #tp.replicate, use_local_input = true, output_layouts = #tp.partial<sum>, desired_output_layouts = #tp.replicate, use_local_output = false>}

func.func private @legacy_pairwise() attributes {
  tp.a = #tp.pairwise_parallel<>,
  tp.b = #tp.pairwise_parallel<input_layouts = #tp.replicate, output_layouts = #tp.replicate, use_local_output = false>,
  tp.c = #tp.pairwise_sequence_parallel<input_layouts = #tp.shard<0>, output_layouts = #tp.shard<0>>}

func.func private @plan() attributes {
  tp.plan = #tp.plan<mesh = @mesh2d, keys = [], styles = []>}


func.func @dtensor_ops(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %d = tp.distribute %x {module = "net1"} : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<-1>]>
  %r = tp.redistribute %d : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]>
  %p = tp.redistribute %r {module = "net2"} : !tp.dtensor<8x16xf32, @mesh, [#tp.replicate]> -> !tp.dtensor<8x16xf32, @mesh, [#tp.partial<sum>]>
  %l = tp.to_local %d : !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]> -> tensor<8x4xf32>
  %f = tp.from_local %l : tensor<8x4xf32> -> !tp.dtensor<8x16xf32, @mesh, [#tp.shard<1>]>
  %d2 = tp.distribute %x : tensor<8x16xf32> -> !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]>
  %l2 = tp.to_local %d2 : !tp.dtensor<8x16xf32, @mesh2d, [#tp.shard<0>, #tp.shard<1>]> -> tensor<4x8xf32>
  %u = tensor.empty() : tensor<2x16xf32>
  %uc = tensor.cast %u : tensor<2x16xf32> to tensor<?x16xf32>
  %uf = tp.from_local %uc : tensor<?x16xf32> -> !tp.dtensor<6x16xf32, @mesh, [#tp.shard<0>]>
  return %l : tensor<8x4xf32>
}


func.func @collectives(%in: tensor<8x4xf32>, %full: tensor<8x16xf32>) {
  %g = tp.all_gather %in on @mesh mesh_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  %s = tp.all_reduce %full on @mesh mesh_axes = [0] reduction = sum : tensor<8x16xf32>
  %a = tp.all_reduce %full on @mesh mesh_axes = [0] reduction = avg {module = "net2"} : tensor<8x16xf32>
  %mx = tp.all_reduce %full on @mesh2d mesh_axes = [0, 1] reduction = max : tensor<8x16xf32>
  %rs = tp.reduce_scatter %full on @mesh mesh_axes = [0] reduction = min scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  %aa = tp.all_to_all %in on @mesh mesh_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x4xf32> -> tensor<2x16xf32>
  %b = tp.broadcast %in on @mesh2d mesh_axes = [1] root = 1 : tensor<8x4xf32>
  %c = tp.chunk %full on @mesh2d mesh_axes = [0, 1] axis = 0 {module = "net1"} : tensor<8x16xf32> -> tensor<2x16xf32>
  %cu = tp.chunk %in on @unnamed mesh_axes = [2] axis = 0 : tensor<8x4xf32> -> tensor<?x4xf32>
  return
}

}
