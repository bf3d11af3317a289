#!/usr/bin/env python3
"""N-layer tensor-parallel MLP for the compile-time benchmark, in two forms.

Each layer is the Megatron MLP block on x [B, S, H] = [8, 128, 1024]:

    h = x @ W1     W1 [H, 4H] column-sharded (ColwiseParallel)
    g = gelu(h)    element-wise, stays sharded on its last dim
    y = g @ W2     W2 [4H, H] row-sharded (RowwiseParallel) -> all_reduce
                   output replicated; it is the next layer's input

on a 4-way mesh.

  --form tp        our model IR (as tp-model writes it): model.param +
                   model.linear (PyTorch [out, in] weights, no bias) inside one
                   composite `model.module "layers.{i}"` per layer; --plan
                   writes the plan JSON (layers.*.w1 Colwise, layers.*.w2
                   Rowwise).
  --form upstream  the same program as linalg + shard annotations for
                   mlir-opt's sharding-propagation + shard-partition; the form
                   of /work/shared/reference/shard-baseline/gen_mlp.py
                   (variant tp, annotate layer): linalg.generic contractions,
                   tanh-GELU generic, each layer's output annotated.
"""
import argparse
import json
import sys

B, S, H, TP = 8, 128, 1024, 4


def gen_tp(n, b=B, s=S, h=H):
    f = 4 * h
    act = f"tensor<{b}x{s}x{h}xf32>"
    hid = f"tensor<{b}x{s}x{f}xf32>"
    w1t = f"tensor<{f}x{h}xf32>"
    w2t = f"tensor<{h}x{f}xf32>"
    out = [f'func.func @forward(%x: {act} {{model.name = "x"}}) -> {act} {{']
    cur = "%x"
    for i in range(n):
        out.append(f'  %l{i} = model.module "layers.{i}"({cur}) '
                   f'{{arg_names = ["x"], kind = "MLP"}} : ({act}) -> {act} {{')
        out.append(f"  ^bb0(%a: {act}):")
        out.append(f'    %w1 = model.param "layers.{i}.w1.weight" : {w1t}')
        out.append(f'    %h = model.linear "layers.{i}.w1"(%a, %w1) : ({act}, {w1t}) -> {hid}')
        out.append(f"    %g = model.gelu %h : ({hid}) -> {hid}")
        out.append(f'    %w2 = model.param "layers.{i}.w2.weight" : {w2t}')
        out.append(f'    %y = model.linear "layers.{i}.w2"(%g, %w2) : ({hid}, {w2t}) -> {act}')
        out.append(f"    model.yield %y : {act}")
        out.append("  }")
        cur = f"%l{i}"
    out.append(f"  return {cur} : {act}")
    out.append("}")
    return "\n".join(out) + "\n"


PLAN = {"mesh": {"shape": [TP], "axis_names": ["tp"]},
        "plan": {"layers.*.w1": {"style": "ColwiseParallel"},
                 "layers.*.w2": {"style": "RowwiseParallel",
                                 "output_layouts": "Replicate()"}}}

MAPS = """#xmap = affine_map<(b, s, k, n) -> (b, s, k)>
#wmap = affine_map<(b, s, k, n) -> (k, n)>
#omap = affine_map<(b, s, k, n) -> (b, s, n)>
#id3 = affine_map<(b, s, n) -> (b, s, n)>
"""

MATMUL_BODY = """  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
"""

GELU_BODY = """  ^bb0(%a: f32, %o: f32):
    %c05 = arith.constant 0.5 : f32
    %c1 = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608 : f32
    %k1 = arith.constant 0.044715 : f32
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %k1, %a3 : f32
    %t1 = arith.addf %a, %t0 : f32
    %t2 = arith.mulf %k0, %t1 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %c1, %t3 : f32
    %t5 = arith.mulf %c05, %a : f32
    %r = arith.mulf %t5, %t4 : f32
    linalg.yield %r : f32
"""


def gen_upstream(n, b=B, s=S, h=H, tp=TP):
    """Same text as shard-baseline/gen_mlp.py --variant tp --annotate layer."""
    f = 4 * h
    act = f"tensor<{b}x{s}x{h}xf32>"
    hid = f"tensor<{b}x{s}x{f}xf32>"
    w1t = f"tensor<{h}x{f}xf32>"
    w2t = f"tensor<{f}x{h}xf32>"
    out = [f"shard.grid @grid(shape = {tp})", MAPS]
    args = [f"%x: {act}"]
    for i in range(n):
        args += [f"%w1_{i}: {w1t}", f"%w2_{i}: {w2t}"]
    out.append(f"func.func @mlp_{n}(" + ", ".join(args) + f") -> {act} {{")
    out.append("  %s_act = shard.sharding @grid split_axes = [[]] : !shard.sharding")
    out.append("  %s_col = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding")
    out.append("  %s_row = shard.sharding @grid split_axes = [[0]] : !shard.sharding")
    out.append("  %s_hid = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding")
    out.append("  %s_rep = shard.sharding @grid split_axes = [[]] : !shard.sharding")
    out.append("  %zero = arith.constant 0.0 : f32")
    out.append(f"  %x_in = shard.shard %x to %s_act : {act}")
    cur = "%x_in"
    for i in range(n):
        out.append(f"  // ---- layer {i}")
        out.append(f"  %w1s_{i} = shard.shard %w1_{i} to %s_col : {w1t}")
        out.append(f"  %w2s_{i} = shard.shard %w2_{i} to %s_row : {w2t}")
        out.append(f"  %e1_{i} = tensor.empty() : {hid}")
        out.append(f"  %f1_{i} = linalg.fill ins(%zero : f32) outs(%e1_{i} : {hid}) -> {hid}")
        out.append(f"  %h_{i} = linalg.generic {{indexing_maps = [#xmap, #wmap, #omap], "
                   f"iterator_types = [\"parallel\", \"parallel\", \"reduction\", \"parallel\"]}} "
                   f"ins({cur}, %w1s_{i} : {act}, {w1t}) outs(%f1_{i} : {hid}) {{")
        out.append(MATMUL_BODY + f"  }} -> {hid}")
        out.append(f"  %e2_{i} = tensor.empty() : {hid}")
        out.append(f"  %g_{i} = linalg.generic {{indexing_maps = [#id3, #id3], "
                   f"iterator_types = [\"parallel\", \"parallel\", \"parallel\"]}} "
                   f"ins(%h_{i} : {hid}) outs(%e2_{i} : {hid}) {{")
        out.append(GELU_BODY + f"  }} -> {hid}")
        out.append(f"  %e3_{i} = tensor.empty() : {act}")
        out.append(f"  %f3_{i} = linalg.fill ins(%zero : f32) outs(%e3_{i} : {act}) -> {act}")
        out.append(f"  %y_{i} = linalg.generic {{indexing_maps = [#xmap, #wmap, #omap], "
                   f"iterator_types = [\"parallel\", \"parallel\", \"reduction\", \"parallel\"]}} "
                   f"ins(%g_{i}, %w2s_{i} : {hid}, {w2t}) outs(%f3_{i} : {act}) {{")
        out.append(MATMUL_BODY + f"  }} -> {act}")
        out.append(f"  %ys_{i} = shard.shard %y_{i} to %s_act : {act}")
        cur = f"%ys_{i}"
    out.append(f"  return {cur} : {act}")
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", "--layers", type=int, default=1)
    p.add_argument("--form", choices=["tp", "upstream"], default="tp")
    p.add_argument("--plan", help="also write the plan JSON (form tp) here")
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args()
    text = gen_tp(a.layers) if a.form == "tp" else gen_upstream(a.layers)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as fh:
            fh.write(text)
    if a.plan:
        with open(a.plan, "w") as fh:
            json.dump(PLAN, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main()
