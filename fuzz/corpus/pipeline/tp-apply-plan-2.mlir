module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["", "tok_embeddings", "layers.0", "layers.0.norm"], styles = [#tp.prepare_module_input<input_layouts = #tp.replicate, desired_input_layouts = #tp.replicate>, #tp.rowwise<input_layouts = #tp.replicate, output_layouts = #tp.shard<1>>, #tp.prepare_module_output<output_layouts = #tp.shard<1>, desired_output_layouts = #tp.replicate>, #tp.sequence_parallel<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @supported_module_types(%ids: tensor<4x8xi64>, %emb: tensor<16x8xf32>, %g: tensor<8xf32>) -> tensor<4x8x8xf32> {
    %h = model.embedding "tok_embeddings"(%ids, %emb) : (tensor<4x8xi64>, tensor<16x8xf32>) -> tensor<4x8x8xf32>
    %y = model.module "layers.0"(%h, %g) {kind = "TransformerBlock"} : (tensor<4x8x8xf32>, tensor<8xf32>) -> tensor<4x8x8xf32> {
    ^bb0(%a: tensor<4x8x8xf32>, %ga: tensor<8xf32>):
      %n = model.rms_norm "layers.0.norm"(%a, %ga) : (tensor<4x8x8xf32>, tensor<8xf32>) -> tensor<4x8x8xf32>
      model.yield %n : tensor<4x8x8xf32>
    }
    return %y : tensor<4x8x8xf32>
  }
}
