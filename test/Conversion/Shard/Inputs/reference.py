"""Checks tp's output of an imported shard program against the program's
math computed here in plain Python (float64) from the same inputs.

usage: reference.py MODEL INPUTS.safetensors OUTPUTS.safetensors
MODEL: mlp-gelu (gelu_tanh(x @ w1) @ w2, for each (w1, w2) pair of the
arguments after x in turn), mlp (x @ w1 @ w2) or partial-add
(x1 @ w1 + x2 @ w2), exp (exp(x)) or linear-rowsum (the row sums of
x @ w^T) or generics (a^T @ w plus, along rows, the product of
1 + 0.05 sin(x) over each row: Inputs/generics.mlir) or tensor-ops
(Inputs/tensor_ops.mlir). Prints the largest error and exits 1 if
an element is off by more than 1e-4 relative to the output's scale.
"""
import json
import math
import struct
import sys


def load(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", info
        begin, end = info["data_offsets"]
        count = (end - begin) // 4
        values = struct.unpack("<%df" % count, data[begin:end])
        tensors[name] = (info["shape"], list(values))
    return tensors


def matmul(a, a_shape, b, b_shape):
    """[..., m, k] x [k, n] -> [..., m, n], row-major lists."""
    k, n = b_shape
    rows = len(a) // k
    out = [0.0] * (rows * n)
    for r in range(rows):
        for j in range(n):
            out[r * n + j] = sum(a[r * k + i] * b[i * n + j] for i in range(k))
    return out, a_shape[:-1] + [n]


def gelu_tanh(v):
    return 0.5 * v * (1 + math.tanh(0.7978845608 * (v + 0.044715 * v ** 3)))


def main():
    model, inputs, outputs = sys.argv[1:4]
    ins = load(inputs)
    (out_shape, out) = load(outputs)["output"]
    if model == "linear-rowsum":
        (sx, x), (sw, w) = ins["arg0"], ins["arg1"]
        n, k = sw
        wt = [w[j * k + i] for i in range(k) for j in range(n)]
        h, sh = matmul(x, sx, wt, [k, n])
        ref = [sum(h[r * n:(r + 1) * n]) for r in range(sh[0])]
        shape = [sh[0]]
    elif model == "generics":
        (sx, x), (sa, a), (sw, w) = ins["arg0"], ins["arg1"], ins["arg2"]
        rows, cols = sx
        k, m = sa
        n = sw[1]
        prod = []
        for r in range(rows):
            p = 1.0
            for c in range(cols):
                p *= 1 + 0.05 * math.sin(x[r * cols + c])
            prod.append(p)
        ref = [sum(a[i * m + r] * w[i * n + j] for i in range(k)) + prod[r]
               for r in range(m) for j in range(n)]
        shape = [m, n]
    elif model == "tensor-ops":
        (sx, x) = ins["arg0"]
        rows, cols = sx
        grid = [x[r * cols:(r + 1) * cols] for r in range(rows)]
        padded = [[0.5] + row + [0.5] for row in grid]
        strided = [row[0:18:2] for row in padded]
        joined = [row + row for row in strided]
        for r in range(rows):
            joined[r][5:9] = grid[r][0:4]
        ref = [v for row in joined for v in row]
        shape = [rows, 18]
    elif model == "exp":
        shape, x = ins["arg0"]
        ref = [math.exp(v) for v in x]
    elif model == "partial-add":
        (s1, x1), (sw1, w1), (s2, x2), (sw2, w2) = (
            ins["arg0"], ins["arg1"], ins["arg2"], ins["arg3"])
        a, shape = matmul(x1, s1, w1, sw1)
        b, _ = matmul(x2, s2, w2, sw2)
        ref = [p + q for p, q in zip(a, b)]
    else:
        shape, ref = ins["arg0"]
        layers = (len(ins) - 1) // 2
        for i in range(layers):
            (sw1, w1), (sw2, w2) = ins["arg%d" % (2 * i + 1)], ins["arg%d" % (2 * i + 2)]
            h, sh = matmul(ref, shape, w1, sw1)
            if model == "mlp-gelu":
                h = [gelu_tanh(v) for v in h]
            ref, shape = matmul(h, sh, w2, sw2)
    assert shape == out_shape, (shape, out_shape)
    scale = max(1.0, max(abs(v) for v in ref))
    err = max(abs(p - q) for p, q in zip(ref, out))
    print("elements %d max abs error %.3g scale %.3g" % (len(ref), err, scale))
    if err > 1e-4 * scale:
        print("MISMATCH")
        sys.exit(1)
    print("MATCH")


main()
