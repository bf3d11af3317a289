// The example MLP with net2 unbiased and a module after it (PyTorch:
// net1 = Linear(8, 32), ReLU, net2 = Linear(32, 8, bias=False),
// post.proj = Linear(8, 8, bias=False)), returning net2's output and post's.
func.func @forward(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w1 = model.param "net1.weight" : tensor<32x8xf32>
  %b1 = model.param "net1.bias" : tensor<32xf32>
  %h = model.linear "net1"(%x, %w1, %b1) : (tensor<4x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %r = model.relu %h : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %w2 = model.param "net2.weight" : tensor<8x32xf32>
  %y = model.linear "net2"(%r, %w2) : (tensor<4x32xf32>, tensor<8x32xf32>) -> tensor<4x8xf32>
  %z = model.module "post"(%y) {arg_names = ["x"], children = ["proj"]} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %w3 = model.param "post.proj.weight" : tensor<8x8xf32>
    %p = model.linear "post.proj"(%a, %w3) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    model.yield %p : tensor<4x8xf32>
  }
  return %y, %z : tensor<4x8xf32>, tensor<4x8xf32>
}
