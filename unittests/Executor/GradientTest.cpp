//===- GradientTest.cpp - tp-differentiate against finite differences ----===//
//
// The training step tp-differentiate builds, run by the executor on one
// rank, against central finite differences of the forward program: every
// element of every parameter is perturbed (through a weights file) and the
// loss's change compared with the gradient the backward program computed.
// This checks the backward rules composed (broadcast sums, accumulation of
// a value read twice, tied parameters), on top of the kernels' own
// finite-difference tests (GradKernelsTest).
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Executor/Executor.h"
#include "tp/InitAll.h"
#include "tp/Runtime/Safetensors.h"
#include "tp/Runtime/ThreadCommunicator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace mlir;
namespace rt = ::mlir::tp::runtime;
using ::mlir::tp::exec::DataSource;
using ::mlir::tp::exec::Program;

namespace {

/// A small MLP with smooth activations (finite differences need them), a
/// broadcast scale and shift, a parameter read twice (`net2.weight`, tied),
/// and a mean squared error against `targets`.
const char *kModel = R"(
func.func @forward(%x: tensor<3x4xf32> {model.name = "x"}, %t: tensor<3x2xf32> {model.name = "targets"}) -> tensor<f32> {
  %w1 = model.param "net1.weight" : tensor<5x4xf32>
  %b1 = model.param "net1.bias" : tensor<5xf32>
  %h = model.linear "net1"(%x, %w1, %b1) : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %g = model.gelu %h : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %w2 = model.param "net2.weight" : tensor<2x5xf32>
  %y = model.linear "net2"(%g, %w2) : (tensor<3x5xf32>, tensor<2x5xf32>) -> tensor<3x2xf32>
  %w2b = model.param "net2.weight" : tensor<2x5xf32>
  %z = model.linear "tied"(%g, %w2b) : (tensor<3x5xf32>, tensor<2x5xf32>) -> tensor<3x2xf32>
  %s = model.silu %z : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %scale = model.param "scale" : tensor<2xf32>
  %m = model.mul %s, %scale : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %a = model.add %y, %m : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %d = model.sub %a, %t : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %sq = model.mul %d, %d : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %l = model.mean %sq : (tensor<3x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// A tiny GPT-style model: token and position embeddings, a pre-norm block
/// with causal grouped-query attention (2 query heads, 1 kv head), a
/// softmax mixer (transpose, batched matmuls, a broadcast 2-D matmul), a
/// GELU feed-forward, the final LayerNorm and an output linear tied to the
/// token embedding, with cross entropy against `targets`.
const char *kGPT = R"(
func.func @forward(%tok: tensor<2x4xi64> {model.name = "tokens"}, %tgt: tensor<8xi64> {model.name = "targets"}) -> tensor<f32> {
  %we = model.param "tok.weight" : tensor<8x8xf32>
  %e = model.embedding "tok"(%tok, %we) : (tensor<2x4xi64>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %wp = model.param "pos.weight" : tensor<4x8xf32>
  %pos = model.arange : tensor<4xi64>
  %p = model.embedding "pos"(%pos, %wp) : (tensor<4xi64>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %h0 = model.add %e, %p : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %lnw = model.param "ln.weight" : tensor<8xf32>
  %lnb = model.param "ln.bias" : tensor<8xf32>
  %n = model.layer_norm "ln"(%h0, %lnw, %lnb) : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %wq = model.param "attn.wq.weight" : tensor<8x8xf32>
  %q0 = model.linear "attn.wq"(%n, %wq) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q = model.reshape %q0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %wk = model.param "attn.wk.weight" : tensor<4x8xf32>
  %k0 = model.linear "attn.wk"(%n, %wk) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %k = model.reshape %k0 : (tensor<2x4x4xf32>) -> tensor<2x4x1x4xf32>
  %wv = model.param "attn.wv.weight" : tensor<4x8xf32>
  %v0 = model.linear "attn.wv"(%n, %wv) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %v = model.reshape %v0 : (tensor<2x4x4xf32>) -> tensor<2x4x1x4xf32>
  %o = model.attention %q, %k, %v {causal = true} : (tensor<2x4x2x4xf32>, tensor<2x4x1x4xf32>, tensor<2x4x1x4xf32>) -> tensor<2x4x2x4xf32>
  %o2 = model.reshape %o : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
  %wo = model.param "attn.wo.weight" : tensor<8x8xf32>
  %a = model.linear "attn.wo"(%o2, %wo) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %h1 = model.add %h0, %a : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %t = model.transpose %h1 {permutation = array<i64: 0, 2, 1>} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  %s = model.matmul %h1, %t : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %pr = model.softmax %s {dim = -1 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %mx = model.matmul %pr, %h1 : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %wm = model.param "mix.weight" : tensor<8x8xf32>
  %mm = model.matmul %mx, %wm : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %h2 = model.add %h1, %mm : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %w1 = model.param "ffn.w1.weight" : tensor<16x8xf32>
  %b1 = model.param "ffn.w1.bias" : tensor<16xf32>
  %f0 = model.linear "ffn.w1"(%h2, %w1, %b1) : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %f1 = model.gelu %f0 : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %w2 = model.param "ffn.w2.weight" : tensor<8x16xf32>
  %b2 = model.param "ffn.w2.bias" : tensor<8xf32>
  %f2 = model.linear "ffn.w2"(%f1, %w2, %b2) : (tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %h3 = model.add %h2, %f2 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %nw = model.param "norm.weight" : tensor<8xf32>
  %nb = model.param "norm.bias" : tensor<8xf32>
  %hn = model.layer_norm "norm"(%h3, %nw, %nb) : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %we2 = model.param "tok.weight" : tensor<8x8xf32>
  %lg = model.linear "output"(%hn, %we2) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %fl = model.reshape %lg : (tensor<2x4x8xf32>) -> tensor<8x8xf32>
  %l = model.cross_entropy %fl, %tgt : (tensor<8x8xf32>, tensor<8xi64>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// A tiny Llama: RMSNorm, rotary on q and k, causal GQA attention, a
/// SwiGLU feed-forward and an untied output.
const char *kLlama = R"(
func.func @forward(%tok: tensor<2x4xi64> {model.name = "tokens"}, %tgt: tensor<8xi64> {model.name = "targets"}) -> tensor<f32> {
  %we = model.param "tok.weight" : tensor<10x8xf32>
  %h0 = model.embedding "tok"(%tok, %we) : (tensor<2x4xi64>, tensor<10x8xf32>) -> tensor<2x4x8xf32>
  %anw = model.param "attention_norm.weight" : tensor<8xf32>
  %n = model.rms_norm "attention_norm"(%h0, %anw) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %wq = model.param "attn.wq.weight" : tensor<8x8xf32>
  %q0 = model.linear "attn.wq"(%n, %wq) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q1 = model.reshape %q0 : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %q = model.rotary %q1 : (tensor<2x4x2x4xf32>) -> tensor<2x4x2x4xf32>
  %wk = model.param "attn.wk.weight" : tensor<4x8xf32>
  %k0 = model.linear "attn.wk"(%n, %wk) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %k1 = model.reshape %k0 : (tensor<2x4x4xf32>) -> tensor<2x4x1x4xf32>
  %k = model.rotary %k1 : (tensor<2x4x1x4xf32>) -> tensor<2x4x1x4xf32>
  %wv = model.param "attn.wv.weight" : tensor<4x8xf32>
  %v0 = model.linear "attn.wv"(%n, %wv) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x4xf32>
  %v = model.reshape %v0 : (tensor<2x4x4xf32>) -> tensor<2x4x1x4xf32>
  %o = model.attention %q, %k, %v {causal = true} : (tensor<2x4x2x4xf32>, tensor<2x4x1x4xf32>, tensor<2x4x1x4xf32>) -> tensor<2x4x2x4xf32>
  %o2 = model.reshape %o : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
  %wo = model.param "attn.wo.weight" : tensor<8x8xf32>
  %a = model.linear "attn.wo"(%o2, %wo) : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %h1 = model.add %h0, %a : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %fnw = model.param "ffn_norm.weight" : tensor<8xf32>
  %m = model.rms_norm "ffn_norm"(%h1, %fnw) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %w1 = model.param "ffn.w1.weight" : tensor<12x8xf32>
  %g0 = model.linear "ffn.w1"(%m, %w1) : (tensor<2x4x8xf32>, tensor<12x8xf32>) -> tensor<2x4x12xf32>
  %g1 = model.silu %g0 : (tensor<2x4x12xf32>) -> tensor<2x4x12xf32>
  %w3 = model.param "ffn.w3.weight" : tensor<12x8xf32>
  %u = model.linear "ffn.w3"(%m, %w3) : (tensor<2x4x8xf32>, tensor<12x8xf32>) -> tensor<2x4x12xf32>
  %gu = model.mul %g1, %u : (tensor<2x4x12xf32>, tensor<2x4x12xf32>) -> tensor<2x4x12xf32>
  %w2 = model.param "ffn.w2.weight" : tensor<8x12xf32>
  %f = model.linear "ffn.w2"(%gu, %w2) : (tensor<2x4x12xf32>, tensor<8x12xf32>) -> tensor<2x4x8xf32>
  %h2 = model.add %h1, %f : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %nw = model.param "norm.weight" : tensor<8xf32>
  %hn = model.rms_norm "norm"(%h2, %nw) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %wout = model.param "output.weight" : tensor<10x8xf32>
  %lg = model.linear "output"(%hn, %wout) : (tensor<2x4x8xf32>, tensor<10x8xf32>) -> tensor<2x4x10xf32>
  %fl = model.reshape %lg : (tensor<2x4x10xf32>) -> tensor<8x10xf32>
  %l = model.cross_entropy %fl, %tgt : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// Cross entropy as loss_parallel decomposes it (the row maximum detached,
/// as tp-lower-styles builds it; `MAX` is replaced by the value the shift
/// reads).
const char *kLossParallel = R"(
func.func @forward(%x: tensor<4x5xf32> {model.name = "x"}, %tgt: tensor<4xi64> {model.name = "targets"}) -> tensor<f32> {
  %w = model.param "out.weight" : tensor<6x5xf32>
  %b = model.param "out.bias" : tensor<6xf32>
  %lg = model.linear "out"(%x, %w, %b) : (tensor<4x5xf32>, tensor<6x5xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %m = model.reduce_max %lg {dim = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %md = model.detach %m : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %sh = model.sub %lg, MAX : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %ex = model.exp %sh : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %su = model.reduce_sum %ex {dim = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %ls = model.log %su : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %tl = model.target_logit %sh, %tgt : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x1xf32>
  %r = model.sub %ls, %tl : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %l = model.mean %r : (tensor<4x1xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// The pointwise math ops and division with broadcasting, every one on a
/// path to the loss (sqrt, rsqrt and reciprocal read positive values).
const char *kMath = R"(
func.func @forward(%x: tensor<3x4xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<5x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %b = model.param "b" : tensor<5xf32>
  %t = model.tanh %h : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = model.sigmoid %h : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %q = model.sqrt %s : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = model.rsqrt %s : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %e = model.erf %t : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %sb = model.sigmoid %b : (tensor<5xf32>) -> tensor<5xf32>
  %ib = model.reciprocal %sb : (tensor<5xf32>) -> tensor<5xf32>
  %p3 = model.pow %t {exponent = 3.0 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %ph = model.pow %s {exponent = 0.5 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %p2 = model.pow %h {exponent = 2.0 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %d = model.div %e, %sb : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %dd = model.div %p2, %s : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %a1 = model.add %q, %r : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %a2 = model.mul %a1, %ib : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %a3 = model.add %a2, %p3 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %a4 = model.add %a3, %ph : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %a5 = model.add %a4, %d : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %a6 = model.add %a5, %dd : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %a7 = model.mul %a6, %a6 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %l = model.mean %a7 : (tensor<3x5xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// Slicing (halves, a step of 2, a negative dim) and concatenation: HF's
/// rotate_half and rows picked from a dim.
const char *kSlices = R"(
func.func @forward(%x: tensor<2x3x4xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<6x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<2x3x4xf32>, tensor<6x4xf32>) -> tensor<2x3x6xf32>
  %a = model.slice %h {dim = 2 : i64, start = 0 : i64} : (tensor<2x3x6xf32>) -> tensor<2x3x3xf32>
  %b = model.slice %h {dim = -1 : i64, start = 3 : i64} : (tensor<2x3x6xf32>) -> tensor<2x3x3xf32>
  %nb = model.neg %b : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %r = model.concat %nb, %a {dim = 2 : i64} : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x6xf32>
  %t = model.tanh %r : (tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %m = model.mul %t, %h : (tensor<2x3x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %e = model.slice %m {dim = 1 : i64, start = 0 : i64, step = 2 : i64} : (tensor<2x3x6xf32>) -> tensor<2x2x6xf32>
  %s = model.slice %h {dim = 1 : i64, start = 1 : i64} : (tensor<2x3x6xf32>) -> tensor<2x2x6xf32>
  %q = model.mul %s, %e : (tensor<2x2x6xf32>, tensor<2x2x6xf32>) -> tensor<2x2x6xf32>
  %l = model.mean %q : (tensor<2x2x6xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// A router: top-2 of 3 experts' probabilities, their one-hot mask
/// weighting each expert's output. The gradient reaches the router through
/// the gathered values (not the integer indices or the mask).
const char *kRouting = R"(
func.func @forward(%x: tensor<6x4xf32> {model.name = "x"}) -> tensor<f32> {
  %wg = model.param "gate.weight" : tensor<3x4xf32>
  %r = model.linear "gate"(%x, %wg) : (tensor<6x4xf32>, tensor<3x4xf32>) -> tensor<6x3xf32>
  %p = model.softmax %r {dim = 1 : i64} : (tensor<6x3xf32>) -> tensor<6x3xf32>
  %i = model.topk %p {dim = 1 : i64} : (tensor<6x3xf32>) -> tensor<6x2xi64>
  %v = model.gather %p, %i {dim = 1 : i64} : (tensor<6x3xf32>, tensor<6x2xi64>) -> tensor<6x2xf32>
  %oh = model.one_hot %i : (tensor<6x2xi64>) -> tensor<6x2x3xi64>
  %m = model.cast %oh : (tensor<6x2x3xi64>) -> tensor<6x2x3xf32>
  %vr = model.reshape %v : (tensor<6x2xf32>) -> tensor<6x2x1xf32>
  %wm = model.mul %m, %vr : (tensor<6x2x3xf32>, tensor<6x2x1xf32>) -> tensor<6x2x3xf32>
  %ws = model.reduce_sum %wm {dim = 1 : i64} : (tensor<6x2x3xf32>) -> tensor<6x1x3xf32>
  %w = model.reshape %ws : (tensor<6x1x3xf32>) -> tensor<6x3xf32>
  %we = model.param "experts.weight" : tensor<3x4xf32>
  %e = model.linear "experts"(%x, %we) : (tensor<6x4xf32>, tensor<3x4xf32>) -> tensor<6x3xf32>
  %t = model.tanh %e : (tensor<6x3xf32>) -> tensor<6x3xf32>
  %o = model.mul %t, %w : (tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<6x3xf32>
  %l = model.mean %o : (tensor<6x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// Masks: a comparison selecting between two branches (where), clamp's
/// decomposition, abs, and an expand (its gradient sums the copies). The masks
/// get no gradient; both branches of the where do.
const char *kMasks = R"(
func.func @forward(%x: tensor<3x4xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<4x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %z = model.full 0.1 : tensor<f32>
  %m = model.compare %x, %z {predicate = "gt"} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
  %t = model.tanh %h : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %a = model.abs %h : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %s = model.where %m, %t, %a : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %lo = model.full -0.3 : tensor<f32>
  %under = model.compare %s, %lo {predicate = "lt"} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
  %c = model.where %under, %lo, %s : (tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %q0 = model.mul %c, %h : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %r = model.reduce_sum %h {dim = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %re = model.expand %r : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %rt = model.tanh %re : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %q = model.mul %q0, %rt : (tensor<3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %l = model.mean %q : (tensor<2x3x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// A scatter-add (model.gather_grad in the forward, as tp-import writes
/// scatter_add and index_add): rows 0 and 2 of the result receive two rows
/// each, row 1 none; then a second linear reads the sums. The gradient of
/// each source row is the result's gradient at the row it went to.
const char *kScatter = R"(
func.func @forward(%x: tensor<4x3xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<3x3xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
  %t = model.tanh %h : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %i = model.constant dense<[[0, 0, 0], [2, 2, 2], [0, 0, 0], [2, 2, 2]]> : tensor<4x3xi64>
  %s = model.gather_grad %t, %i {dim = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xi64>) -> tensor<3x3xf32>
  %v = model.param "out.weight" : tensor<3x3xf32>
  %o = model.linear "out"(%s, %v) : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %q = model.mul %o, %o : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %l = model.mean %q : (tensor<3x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

/// model.generic (import-shard's linalg.generic): an element-wise body with
/// a broadcast row of a parameter (math and arith ops, a select and a max),
/// a sum over the features into an init computed from a parameter, and a
/// transpose; each operand's gradient is a generic of its own.
const char *kGeneric = R"(
func.func @forward(%x: tensor<3x4xf32> {model.name = "x"}) -> tensor<f32> {
  %w = model.param "fc.weight" : tensor<5x4xf32>
  %h = model.linear "fc"(%x, %w) : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %scale = model.param "scale" : tensor<1x5xf32>
  %e0 = model.full 0.0 : tensor<3x5xf32>
  %e = model.generic %h, %scale, %e0 {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<3x5xf32>, tensor<1x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %t = math.tanh %a : f32
    %m = arith.mulf %t, %s : f32
    %ex = math.exp %m : f32
    %lg = math.log %ex : f32
    %one = arith.constant 1.0 : f32
    %pos = arith.addf %ex, %one : f32
    %sq = math.sqrt %pos : f32
    %d = arith.divf %lg, %sq : f32
    %sn = math.sin %a : f32
    %cs = math.cos %s : f32
    %at = math.atan %m : f32
    %mx = arith.maximumf %sn, %cs : f32
    %gt = arith.cmpf ogt, %a, %s : f32
    %sel = arith.select %gt, %at, %mx : f32
    %p = math.powf %pos, %s : f32
    %sc = arith.mulf %sn, %cs : f32
    %r0 = arith.addf %d, %sel : f32
    %r1 = arith.addf %r0, %sc : f32
    %r = arith.subf %r1, %p : f32
    model.generic_yield %r : f32
  }
  %b = model.param "b" : tensor<3xf32>
  %init = model.mul %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %sum = model.generic %e, %h, %init {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %x2 = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %x2 : f32
    model.generic_yield %r : f32
  }
  %t0 = model.full 0.0 : tensor<5x3xf32>
  %tr = model.generic %e, %t0 {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} : (tensor<3x5xf32>, tensor<5x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%a: f32, %out: f32):
    model.generic_yield %a : f32
  }
  %sq = model.mul %tr, %tr : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %l1 = model.mean %sq : (tensor<5x3xf32>) -> tensor<f32>
  %s2 = model.mul %sum, %sum : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %l2 = model.mean %s2 : (tensor<3xf32>) -> tensor<f32>
  %l = model.add %l1, %l2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
)";

class GradientTest : public ::testing::Test {
protected:
  GradientTest() {
    DialectRegistry registry;
    mlir::tp::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The model, differentiated or not, compiled for one rank.
  Program compile(bool differentiate, const char *text = kModel) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      throw std::runtime_error("the test model does not parse");
    if (differentiate && failed(mlir::tp::differentiate(*module)))
      throw std::runtime_error("tp-differentiate failed");
    if (failed(mlir::tp::partition(*module)))
      throw std::runtime_error("tp-partition failed");
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    modules.push_back(std::move(module));
    return Program::compile(entry);
  }

  static std::vector<rt::Tensor> run(const Program &program,
                                     const DataSource &data) {
    std::vector<rt::Tensor> out;
    rt::runRanks(
        1, [&](rt::Communicator &comm) { out = program.run(comm, data); });
    return out;
  }

  /// Checks every element of every parameter gradient of the training
  /// step of \p text against central finite differences of its forward
  /// program (each element perturbed by +-h through a weights file), or,
  /// with \p stepLoss, of the step's own loss: a model with dropouts, which
  /// only the training step applies (the mask of one step and seed is a
  /// fixed function of the parameters' consumers, so the loss is smooth).
  /// \p names are the parameter FQNs in definition order.
  void checkAgainstFiniteDifferences(const char *text,
                                     const std::vector<std::string> &names,
                                     double atol = 2e-3, double rtol = 1e-2,
                                     bool stepLoss = false) {
    Program step = compile(/*differentiate=*/true, text);
    Program forward = compile(/*differentiate=*/false, text);
    DataSource data;
    data.seed = 11;
    std::vector<rt::Tensor> out = run(step, data);
    ASSERT_EQ(out.size(), names.size() + 1);
    if (stepLoss)
      EXPECT_NE(out[0].at(0), run(forward, data).at(0).at(0));
    else
      EXPECT_FLOAT_EQ(out[0].at(0), run(forward, data).at(0).at(0));
    std::vector<std::string> found;
    std::vector<rt::Tensor> params;
    for (const auto &p : forward.params()) {
      if (std::find(found.begin(), found.end(), p.name) != found.end())
        continue;
      found.push_back(p.name);
      params.push_back(Program::globalParam(p, data));
    }
    ASSERT_EQ(found, names);
    // One file per test: ctest runs the tests as parallel processes.
    std::string path =
        ::testing::TempDir() + "/gradient-test-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name() +
        ".safetensors";
    auto lossWith = [&](size_t which, int64_t i, float delta) {
      std::vector<rt::Tensor> perturbed = params;
      perturbed[which].data()[i] += delta;
      std::vector<std::pair<std::string, const rt::Tensor *>> named;
      for (size_t k = 0; k < names.size(); ++k)
        named.push_back({names[k], &perturbed[k]});
      rt::writeSafetensors(path, named);
      DataSource file = data;
      file.weightsFile = path;
      return static_cast<double>(
          run(stepLoss ? step : forward, file).at(0).at(0));
    };
    const float h = 1e-2f;
    int64_t checked = 0, expected = 0;
    for (size_t k = 0; k < names.size(); ++k) {
      const rt::Tensor &grad = out[1 + k];
      ASSERT_EQ(grad.shape(), params[k].shape()) << names[k];
      expected += grad.numel();
      for (int64_t i = 0; i < grad.numel(); ++i) {
        double numeric = (lossWith(k, i, h) - lossWith(k, i, -h)) / (2.0 * h);
        EXPECT_NEAR(grad.at(i), numeric, atol + rtol * std::fabs(numeric))
            << names[k] << " element " << i;
        ++checked;
      }
    }
    EXPECT_EQ(checked, expected);
  }

  MLIRContext context;
  std::vector<OwningOpRef<ModuleOp>> modules;
};

TEST_F(GradientTest, BackwardProgramMatchesFiniteDifferences) {
  // One gradient per parameter FQN: the tied net2.weight once, summed.
  checkAgainstFiniteDifferences(
      kModel, {"net1.weight", "net1.bias", "net2.weight", "scale"});
}

TEST_F(GradientTest, TransformerBlockMatchesFiniteDifferences) {
  checkAgainstFiniteDifferences(
      kGPT, {"tok.weight", "pos.weight", "ln.weight", "ln.bias",
             "attn.wq.weight", "attn.wk.weight", "attn.wv.weight",
             "attn.wo.weight", "mix.weight", "ffn.w1.weight", "ffn.w1.bias",
             "ffn.w2.weight", "ffn.w2.bias", "norm.weight", "norm.bias"});
}

TEST_F(GradientTest, LlamaBlockMatchesFiniteDifferences) {
  checkAgainstFiniteDifferences(
      kLlama, {"tok.weight", "attention_norm.weight", "attn.wq.weight",
               "attn.wk.weight", "attn.wv.weight", "attn.wo.weight",
               "ffn_norm.weight", "ffn.w1.weight", "ffn.w3.weight",
               "ffn.w2.weight", "norm.weight", "output.weight"});
}

TEST_F(GradientTest, MathOpsMatchFiniteDifferences) {
  checkAgainstFiniteDifferences(kMath, {"fc.weight", "b"});
}

TEST_F(GradientTest, GenericMatchesFiniteDifferences) {
  checkAgainstFiniteDifferences(kGeneric, {"fc.weight", "scale", "b"});
}

TEST_F(GradientTest, SlicesAndConcatMatchFiniteDifferences) {
  checkAgainstFiniteDifferences(kSlices, {"fc.weight"});
}

TEST_F(GradientTest, MasksMatchFiniteDifferences) {
  checkAgainstFiniteDifferences(kMasks, {"fc.weight"});
}

TEST_F(GradientTest, RoutingMatchesFiniteDifferences) {
  checkAgainstFiniteDifferences(kRouting, {"gate.weight", "experts.weight"});
}

TEST_F(GradientTest, ScatterAddMatchesFiniteDifferences) {
  checkAgainstFiniteDifferences(kScatter, {"fc.weight", "out.weight"});
}

/// Dropout in training (p = 0.5 after the GELU, whose output both linears
/// read): the backward scales by the forward's mask, drawn again.
TEST_F(GradientTest, DropoutMatchesFiniteDifferencesOfTheStep) {
  std::string text = kModel;
  std::string gelu =
      "%g = model.gelu %h : (tensor<3x5xf32>) -> tensor<3x5xf32>\n";
  size_t at = text.find(gelu);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, gelu.size(),
               "%g0 = model.gelu %h : (tensor<3x5xf32>) -> tensor<3x5xf32>\n"
               "  %g = model.dropout \"drop\"(%g0) {p = 0.5 : f64} : "
               "(tensor<3x5xf32>) -> tensor<3x5xf32>\n");
  checkAgainstFiniteDifferences(
      text.c_str(), {"net1.weight", "net1.bias", "net2.weight", "scale"}, 2e-3,
      1e-2, /*stepLoss=*/true);
}

/// The decomposed cross entropy, with the maximum detached (as
/// loss_parallel builds it) and, through reduce_max's own gradient, not:
/// the loss does not depend on the shift, so both are the true gradient.
TEST_F(GradientTest, DecomposedCrossEntropyMatchesFiniteDifferences) {
  for (const char *shift : {"%md", "%m"}) {
    std::string text = kLossParallel;
    text.replace(text.find("MAX"), 3, shift);
    SCOPED_TRACE(shift);
    checkAgainstFiniteDifferences(text.c_str(), {"out.weight", "out.bias"});
  }
}

} // namespace

namespace {

/// The training step with an optimizer: after one step the parameters the
/// program returns are PyTorch's update of the ones it read, and the next
/// step reads them (the RankState keeps them): its loss is the forward
/// program's loss at those parameters.
TEST_F(GradientTest, OptimizerStepUpdatesWhatTheNextStepReads) {
  for (const char *kind : {"sgd", "adamw"}) {
    SCOPED_TRACE(kind);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kModel, &context);
    ASSERT_TRUE(module);
    mlir::tp::OptimizerOptions options;
    options.kind = kind;
    options.lr = 0.1;
    ASSERT_TRUE(succeeded(mlir::tp::differentiate(*module)));
    ASSERT_TRUE(succeeded(mlir::tp::addOptimizerStep(*module, options)));
    ASSERT_TRUE(succeeded(mlir::tp::partition(*module)));
    func::FuncOp entry;
    module->walk([&](func::FuncOp f) { entry = f; });
    Program step = Program::compile(entry);
    Program forward = compile(/*differentiate=*/false);
    DataSource data;
    data.seed = 5;

    // Two steps with one RankState.
    std::vector<std::vector<rt::Tensor>> outs;
    rt::runRanks(1, [&](rt::Communicator &comm) {
      ::mlir::tp::exec::RankState state;
      for (int s = 0; s < 2; ++s)
        outs.push_back(step.run(comm, data, nullptr, nullptr, &state));
    });
    // Loss, 4 gradients, 4 updated parameters.
    ASSERT_EQ(outs[0].size(), 9u);
    const char *names[] = {"net1.weight", "net1.bias", "net2.weight", "scale"};
    std::vector<std::pair<std::string, const rt::Tensor *>> named;
    for (int k = 0; k < 4; ++k) {
      const rt::Tensor &grad = outs[0][1 + k], &updated = outs[0][5 + k];
      rt::Tensor before;
      for (const auto &p : step.params())
        if (p.name == names[k])
          before = Program::globalParam(p, data);
      ASSERT_EQ(before.shape(), updated.shape()) << names[k];
      for (int64_t i = 0; i < grad.numel(); ++i) {
        double p = before.at(i), g = grad.at(i), expected;
        if (std::string(kind) == "sgd") {
          expected = p - 0.1 * g;
        } else {
          // AdamW's first step: decay, then m_hat = g, v_hat = g^2.
          expected = p * (1 - 0.1 * 0.01) - 0.1 * g / (std::fabs(g) + 1e-8);
        }
        EXPECT_NEAR(updated.at(i), expected, 1e-5 * (1 + std::fabs(expected)))
            << names[k] << " element " << i;
      }
      named.push_back({names[k], &updated});
    }
    // The second step read the updated parameters.
    std::string path = ::testing::TempDir() + "/optimizer-step.safetensors";
    rt::writeSafetensors(path, named);
    DataSource file = data;
    file.weightsFile = path;
    EXPECT_NEAR(outs[1][0].at(0), run(forward, file).at(0).at(0), 1e-6);
    EXPECT_NE(outs[1][0].at(0), outs[0][0].at(0));

    // A training loop that reads the updated parameters after its last step
    // only: the steps before return them empty (the parameters are updated
    // in place and stay resident), and the steps compute the same.
    std::vector<std::vector<rt::Tensor>> quiet;
    int64_t paramBytes = 0, optimizerBytes = 0, firstPeak = 0, lastPeak = 0;
    rt::runRanks(1, [&](rt::Communicator &comm) {
      ::mlir::tp::exec::RankState state;
      for (int s = 0; s < 3; ++s) {
        state.setReturnsUpdated(s == 2);
        quiet.push_back(
            step.run(comm, data, s ? &lastPeak : &firstPeak, nullptr, &state));
      }
      paramBytes = state.paramBytes();
      optimizerBytes = state.optimizerBytes();
    });
    for (int k = 0; k < 9; ++k) {
      bool updated = k >= 5;
      EXPECT_EQ(quiet[0][k].numel() == 0, updated) << "result " << k;
      if (!updated) {
        EXPECT_EQ(quiet[0][k], outs[0][k]) << "result " << k;
      }
      EXPECT_EQ(quiet[1][k].numel() == 0, updated) << "result " << k;
      if (!updated) {
        EXPECT_EQ(quiet[1][k], outs[1][k]) << "result " << k;
      }
      EXPECT_NE(quiet[2][k].numel(), 0) << "result " << k;
    }
    // The parameters are held once (per param op), however many steps ran;
    // AdamW keeps two moments per element of each parameter (the tied
    // "net2.weight" is one), which count in the peak from the step that
    // made them.
    int64_t elements = 0, unique = 0;
    std::set<std::string> seen;
    for (const auto &p : step.params()) {
      int64_t n = 1;
      for (int64_t d : p.globalShape)
        n *= d;
      elements += n;
      if (seen.insert(p.name).second)
        unique += n;
    }
    EXPECT_EQ(paramBytes, elements * 4);
    EXPECT_EQ(optimizerBytes,
              std::string(kind) == "adamw" ? 2 * unique * 4 : 0);
    EXPECT_GE(lastPeak, paramBytes + optimizerBytes);
    EXPECT_LE(lastPeak, firstPeak + optimizerBytes);
  }
}

} // namespace
