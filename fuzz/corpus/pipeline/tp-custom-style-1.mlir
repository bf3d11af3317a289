module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["net1"], styles = [#tp.custom<name = "Mine", params = {weight = #tp.shard<1>}, input_layouts = [#tp.shard<-1>], output_layouts = [#tp.replicate]>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @out(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
    %w = model.param "net1.weight" : tensor<16x8xf32>
    %y = model.linear "net1"(%x, %w) : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}
