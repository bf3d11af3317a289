module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = ["layers.*"], styles = [#tp.rowwise<>]>} {
  tp.mesh @mesh(shape = 2)
  func.func @rowwise_on_composite(%x: tensor<4x8xf32>) {
    %y = model.module "layers.0"(%x) {kind = "TransformerBlock"} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>):
      model.yield %a : tensor<4x8xf32>
    }
    return
  }
}
