"""Recognizes what users write by hand as the `model` ops tp has.

Everything imports as the generic ops it is written with; these fusions
only make it faster: `rms_norm`, `rotary` (Meta's interleaved pairs, whose
complex numbers have no generic op) and causal grouped-query `attention`. Each pattern below anchors on
the last node of the hand-written form, checks every step (constants by
their values: a mask must be causal, a rotary table must be
`exp(i * p * theta^(-2k/d))`), and points the anchor's uses at the model
op. The nodes it replaces die unless something else reads them; whatever
raw `torch.` node stays live is reported when the IR is written.
"""

import math

import torch

from .graph import Node


def _scalar(node):
    """The value of a one-element constant, else None."""
    if node.op == "const" and node.value.numel() == 1 and \
            not node.value.is_complex():
        return float(node.value.reshape(()))
    return None


def _other(node, known):
    a, b = node.args
    return b if a is known else a


def _new(op, args, shape, dtype, anchor, attrs=None, value=None):
    """A node computed right before `anchor`, in its scope."""
    node = Node(op, args, shape, dtype, anchor.scope, anchor.where, attrs,
                value)
    if op != "const":
        anchor.scope.insert_before(anchor, node)
    return node


def transpose_of(x, perm, anchor):
    """`x` with dims permuted (result dim i is x's dim perm[i]), composing
    with a transpose `x` already is."""
    perm = list(perm)
    while x.op == "transpose":
        perm = [x.attrs["perm"][p] for p in perm]
        x = x.args[0]
    if perm == list(range(len(perm))):
        return x
    shape = [x.shape[p] for p in perm]
    return _new("transpose", [x], shape, x.dtype, anchor, {"perm": perm})


def _constant(value, dtype, anchor):
    """A scalar of `dtype` in the IR, its value kept in double precision."""
    return _new("const", [], (), dtype, anchor, value=torch.tensor(
        value, dtype=torch.float64))


# -- repeated kv heads ---------------------------------------------------


def _repeat_kv(g, r3):
    """`x[:, :, :, None, :].expand(b, s, kv, n, d).reshape(b, s, kv*n, d)`
    (Meta's repeat_kv) is repeat_interleave(x, n, dim=2)."""
    if r3.op != "reshape" or r3.args[0].op != "expand":
        return
    e = r3.args[0]
    u = e.args[0]
    if u.op != "reshape":
        return
    x = u.args[0]
    for d in range(len(x.shape)):
        pre, post = list(x.shape[:d]), list(x.shape[d + 1:])
        kv = x.shape[d]
        if list(u.shape) != pre + [kv, 1] + post:
            continue
        n = e.shape[d + 1]
        if list(e.shape) != pre + [kv, n] + post or \
                list(r3.shape) != pre + [kv * n] + post:
            continue
        node = _new("repeat_heads", [x], r3.shape, r3.dtype, r3,
                    {"dim": d, "n": n})
        g.replace_uses(r3, node)
        return


# -- Conv1D ----------------------------------------------------------------


def _conv1d(g, node, users):
    """HF's Conv1D: `addmm(b, x.view(-1, in), W).view(*x.shape[:-1], out)`
    (the addmm already the linear of W's module, its weight transposed) is
    that linear on x itself, so the module is one leaf op."""
    if node.op != "reshape" or not node.args:
        return
    lin = node.args[0]
    if lin.op != "linear" or not lin.attrs.get("weight_transposed") or \
            users.get(lin, []) != [node] or lin.args[0].op != "reshape":
        return
    x = lin.args[0].args[0]
    if tuple(node.shape) != tuple(x.shape[:-1]) + (lin.shape[-1],):
        return
    fused = _new("linear", [x] + lin.args[1:], node.shape, node.dtype, node,
                 dict(lin.attrs))
    g.replace_uses(node, fused)


# -- silu -------------------------------------------------------------------


def _silu(g, node):
    """`x * torch.sigmoid(x)`."""
    if node.op != "mul":
        return
    for a, b in (node.args, reversed(node.args)):
        if b.op == "sigmoid" and b.args and b.args[0] is a and \
                tuple(a.shape) == tuple(node.shape):
            g.replace_uses(node, _new("silu", [a], node.shape, node.dtype,
                                      node))
            return


# -- RMSNorm ----------------------------------------------------------------


def _rms_norm(g, root, users):
    """`x * rsqrt(mean(x^2, -1, keepdim) + eps) * weight` (or `x /
    sqrt(...)`, factors in either order)."""
    if root.op not in ("rsqrt", "sqrt") or not root.args:
        return
    add = root.args[0]
    if add.op != "add":
        return
    eps = None
    for a, b in (add.args, reversed(add.args)):
        if _scalar(b) is not None and a.op == "reduce":
            mean, eps = a, _scalar(b)
    if eps is None or mean.attrs["kind"] != "mean" or \
            not mean.attrs["keepdim"] or \
            mean.attrs["dims"] != [len(mean.shape) - 1]:
        return
    square = mean.args[0]
    if square.op != "mul" or square.args[0] is not square.args[1]:
        return
    x = square.args[0]
    normed = None
    for u in users.get(root, []):
        if root.op == "rsqrt" and u.op == "mul" and x in u.args:
            normed = u
        elif root.op == "sqrt" and u.op == "div" and \
                u.args == [x, root]:
            normed = u
    if normed is None:
        return
    # A bfloat16/float16 RMSNorm computed in float32: x.float() ...
    # .type_as(x) before the weight; tp's rms_norm on x0's dtype.
    x0 = x
    if _is_cast(x) and x.dtype == torch.float32 and \
            x.args[0].dtype != torch.float32:
        x0 = x.args[0]
        casts = [u for u in users.get(normed, [])
                 if _is_cast(u) and u.args[0] is normed and
                 u.dtype == x0.dtype]
        if not casts:
            return
        normed = casts[0]
    for u in users.get(normed, []):
        if u.op != "mul" or normed not in u.args:
            continue
        w = _other(u, normed)
        if w.op == "param" and tuple(w.shape) == (x.shape[-1],) and \
                tuple(u.shape) == tuple(x.shape) and w.dtype == x0.dtype \
                and u.dtype == x0.dtype:
            name = w.attrs["name"]
            fqn = name.rsplit(".", 1)[0] if "." in name else name
            node = _new("rms_norm", [x0, w], x0.shape, x0.dtype, u,
                        {"fqn": fqn, "eps": eps})
            g.replace_uses(u, node)
            return


def _is_cast(node):
    """A change of dtype (model.cast)."""
    return node.op == "cast" and bool(node.args)


# -- rotary -------------------------------------------------------------------


def _rotary_theta(table, head_dim):
    """The theta of a table `[s, d/2]` of `exp(i p theta^(-2k/d))`, or None
    when the table is not one."""
    s, half = table.shape
    theta = 10000.0
    if s >= 2 and half >= 2:
        angle = float(torch.angle(table[1, 1]))
        if not 0 < angle < 1:
            return None
        theta = angle ** (-head_dim / 2)
        theta = float(f"{theta:.6g}")
    freqs = theta ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) /
                      head_dim)
    angles = torch.outer(torch.arange(s, dtype=torch.float64), freqs)
    expected = torch.polar(torch.ones_like(angles), angles)
    if (table.to(torch.complex128) - expected).abs().max() > 1e-3:
        return None
    return theta


def _rotary(g, flat):
    """`view_as_real(view_as_complex(x.reshape(..., d/2, 2)) * freqs_cis)
    .flatten(3)`: Meta's apply_rotary_emb, on `[b, s, h, d]` (or on
    `[b, h, s, d]`, transposed around the model op)."""
    if flat.op != "reshape" or flat.args[0].op != "torch.view_as_real":
        return
    prod = flat.args[0].args[0]
    if prod.op != "mul":
        return
    z = table = None
    for a, b in (prod.args, reversed(prod.args)):
        if a.op == "torch.view_as_complex" and b.op == "const":
            z, table = a, b
    if z is None:
        return
    pairs = z.args[0]
    if pairs.op != "reshape":
        return
    x = pairs.args[0]
    if len(x.shape) != 4 or tuple(flat.shape) != tuple(x.shape) or \
            x.shape[3] % 2 or \
            tuple(pairs.shape) != tuple(x.shape[:3]) + (x.shape[3] // 2, 2):
        return
    cshape = list(z.shape)
    value = table.value
    if value.dim() > 4:
        return
    value = value.reshape([1] * (4 - value.dim()) + list(value.shape))
    varying = [d for d in range(3) if value.shape[d] > 1]
    seq_dim = varying[0] if varying else 1
    if len(varying) > 1 or seq_dim == 0:
        flat.fail("the rotary table varies along a dim other than the "
                  "positions and the pairs")
    try:
        value = value.expand(cshape)
    except RuntimeError:
        return
    index = [0, 0, 0, slice(None)]
    index[seq_dim] = slice(None)
    rows = value[tuple(index)]
    theta = _rotary_theta(rows, x.shape[3])
    if theta is None:
        flat.fail("complex multiplication that is not Meta's rotary "
                  "embedding (interleaved pairs rotated by position * "
                  "theta^(-2i/head_dim), positions from 0)")
    src = x if seq_dim == 1 else transpose_of(x, [0, 2, 1, 3], flat)
    rot = _new("rotary", [src], src.shape, x.dtype, flat, {"theta": theta})
    if seq_dim == 2:
        rot = transpose_of(rot, [0, 2, 1, 3], flat)
    g.replace_uses(flat, rot)


# -- attention ----------------------------------------------------------------


def _causal(mask_value, scores_shape, additive, fill):
    """Whether a constant mask, broadcast to the scores, masks exactly the
    future positions (additive: 0 / very negative; boolean: True above the
    diagonal, filled with a very negative value)."""
    s, t = scores_shape[-2:]
    if s != t:
        return False
    try:
        m = mask_value.expand(scores_shape)
    except RuntimeError:
        return False
    future = torch.triu(torch.ones(s, t, dtype=torch.bool), 1).expand(
        scores_shape)
    if additive:
        m = m.to(torch.float64)
        return bool((m[~future] == 0).all()) and bool((m[future] <= -1e4)
                                                      .all())
    return m.dtype == torch.bool and bool(torch.equal(m, future)) and \
        fill is not None and fill <= -1e4


def _reaches_scores(node, depth=8):
    """Whether `node` is attention scores `q @ k^T`, maybe scaled or
    masked (to tell the scores of a masked sum from its mask)."""
    while depth > 0:
        depth -= 1
        if node.op == "matmul" and len(node.shape) == 4:
            return True
        if node.op == "mul" and any(_scalar(a) is not None
                                    for a in node.args):
            node = next(a for a in node.args if _scalar(a) is None)
        elif node.op == "torch.masked_fill":
            node = node.args[0]
        elif node.op == "add":
            return any(_reaches_scores(a, depth) for a in node.args)
        else:
            return False
    return False


def _attention(g, out):
    """`softmax(q @ k^T * scale [+ causal mask]) @ v` over `[b, h, s, d]`,
    with k and v optionally repeated per query group."""
    if out.op != "matmul" or len(out.shape) != 4:
        return
    probs, v = out.args
    while probs.op == "dropout":
        if probs.attrs["p"] > 0:
            probs.fail("dropout on attention probabilities (p > 0) has no "
                       "counterpart in tp's model.attention; use p=0")
        probs = probs.args[0]
    if probs.op != "softmax" or probs.attrs["dim"] != 3:
        return
    scores = probs.args[0]
    scale, causal = 1.0, False
    while True:
        if scores.op == "mul":
            c = [_scalar(a) for a in scores.args]
            if c[1] is not None or c[0] is not None:
                k = 1 if c[1] is not None else 0
                scale *= c[k]
                scores = scores.args[1 - k]
                continue
        # A constant mask: zeros add nothing (baddbmm's zero input), a
        # causal one is model.attention's; any other (a sliding window)
        # leaves the ops as written.
        if scores.op == "add" and any(a.op == "const" for a in scores.args):
            mask = next(a for a in scores.args if a.op == "const")
            if not bool((mask.value == 0).all()):
                if not _causal(mask.value, scores.shape, True, None):
                    return
                causal = True
            scores = _other(scores, mask)
            continue
        if scores.op == "torch.masked_fill" and scores.args[1].op == "const":
            if not _causal(scores.args[1].value, scores.shape, False,
                           scores.attrs["value"]):
                return
            causal = True
            scores = scores.args[0]
            continue
        if (scores.op == "torch.masked_fill" and
                _reaches_scores(scores.args[0])) or \
                (scores.op == "add" and
                 sum(map(_reaches_scores, scores.args)) == 1):
            # A mask computed from an input (BERT's additive padding mask,
            # a boolean masked_fill): no fusion, the ops as written
            # (repeated kv heads as an expand).
            return
        break
    if scores.op != "matmul":
        return
    q, kt = scores.args
    for side in range(2):
        node = (q, kt)[side]
        if node.op == "mul":
            c = [_scalar(a) for a in node.args]
            if c[0] is not None or c[1] is not None:
                k = 1 if c[1] is not None else 0
                scale *= c[k]
                if side == 0:
                    q = node.args[1 - k]
                else:
                    kt = node.args[1 - k]
    if len(q.shape) != 4 or len(kt.shape) != 4 or len(v.shape) != 4:
        return
    q4 = transpose_of(q, [0, 2, 1, 3], out)
    k4 = transpose_of(kt, [0, 3, 1, 2], out)
    v4 = transpose_of(v, [0, 2, 1, 3], out)
    k4, nk = _unrepeat(k4, out)
    v4, nv = _unrepeat(v4, out)
    heads, kv = q4.shape[2], k4.shape[2]
    if nk != nv or k4.shape != v4.shape or heads % kv or \
            q4.shape[3] != k4.shape[3] or q4.shape[:2] != k4.shape[:2]:
        return
    head_dim = q4.shape[3]
    factor = scale * math.sqrt(head_dim)
    if abs(factor - 1) > 1e-6:
        # model.attention scales by 1/sqrt(head_dim); fold the rest into q.
        q4 = _new("mul", [q4, _constant(factor, q4.dtype, out)], q4.shape,
                  q4.dtype, out)
    att = _new("attention", [q4, k4, v4], q4.shape, q4.dtype, out,
               {"causal": causal})
    g.replace_uses(out, transpose_of(att, [0, 2, 1, 3], out))


def _unrepeat(x, anchor):
    """(x without its repeat of the heads (dim 2), the repeat count)."""
    if x.op == "repeat_heads" and x.attrs["dim"] == 2:
        return x.args[0], x.attrs["n"]
    if x.op == "transpose" and x.args[0].op == "repeat_heads":
        rep, perm = x.args[0], x.attrs["perm"]
        if perm.index(rep.attrs["dim"]) == 2:
            return transpose_of(rep.args[0], perm, anchor), rep.attrs["n"]
    return x, 1


# -- clean-up -----------------------------------------------------------------


def _simplify(g):
    """Composes transposes and reshapes; drops the identities."""
    for node in list(g.root.walk_nodes()):
        if node.op == "transpose" and node.args[0].op == "transpose":
            inner = node.args[0]
            node.attrs["perm"] = [inner.attrs["perm"][p]
                                  for p in node.attrs["perm"]]
            node.args = [inner.args[0]]
            if node.attrs["perm"] == list(range(len(node.shape))):
                g.replace_uses(node, node.args[0])
        elif node.op == "reshape":
            while node.args[0].op == "reshape":
                node.args = [node.args[0].args[0]]
            if tuple(node.args[0].shape) == tuple(node.shape):
                g.replace_uses(node, node.args[0])


def _unfuse_repeats(g):
    """Repeated kv heads no attention took (a padding mask keeps the
    attention unfused) as what repeat_interleave is: a size-1 dim after
    the heads, expanded, merged back."""
    for node in list(g.root.walk_nodes()):
        if node.op != "repeat_heads":
            continue
        x, d, n = node.args[0], node.attrs["dim"], node.attrs["n"]
        pre, kv, post = list(x.shape[:d]), x.shape[d], list(x.shape[d + 1:])
        u = _new("reshape", [x], pre + [kv, 1] + post, x.dtype, node)
        e = _new("expand", [u], pre + [kv, n] + post, x.dtype, node)
        g.replace_uses(node, _new("reshape", [e], node.shape, x.dtype, node))


# Element-wise ops: batch-wise when every tensor operand is merged alike.
_ELEMENTWISE = ("add", "sub", "mul", "div", "neg", "exp", "log", "tanh",
                "sigmoid", "sqrt", "rsqrt", "erf", "reciprocal", "abs",
                "relu", "gelu", "silu", "pow")


def _merges(node):
    """(a, b) when reshape `node` merges its operand's two leading dims
    [a, b, ...] into its first [a * b, ...] (the other dims as they may
    be: row-major order keeps (i, j) at i * b + j), else None."""
    if node.op != "reshape" or not node.shape:
        return None
    x = node.args[0]
    if len(x.shape) < 2 or x.shape[0] < 2 or x.shape[1] < 2 or \
            node.shape[0] != x.shape[0] * x.shape[1]:
        return None
    return x.shape[0], x.shape[1]


def _splits(node, ab):
    """Whether reshape `node` splits its operand's first dim into `ab`."""
    if node.op != "reshape" or len(node.shape) < 2:
        return False
    x = node.args[0]
    return bool(x.shape) and x.shape[0] == ab[0] * ab[1] and \
        tuple(node.shape[:2]) == tuple(ab)


def _batchwise(node, ab):
    """Whether `node` treats dim 0 of its operands as a batch dim of
    extent a * b."""
    rank = len(node.shape)
    if not rank or node.shape[0] != ab[0] * ab[1]:
        return False
    if node.op == "transpose":
        return node.attrs["perm"][0] == 0
    if node.op == "matmul":
        return rank >= 3 and all(len(a.shape) == rank and
                                 a.shape[0] == node.shape[0]
                                 for a in node.args)
    if node.op == "softmax":
        return node.attrs["dim"] % rank != 0
    if node.op in _ELEMENTWISE:
        # An operand of fewer dims broadcasts from the back: dim 0 is not
        # its; one of as many dims is merged alike, or a constant of 1 there.
        return all(len(a.shape) < rank or a.shape[0] == node.shape[0] or
                   (a.op == "const" and a.shape[0] == 1) for a in node.args)
    return False


def _unmerge_batches(g):
    """A reshape merging two leading dims [a, b] into one (GPT-NeoX's and
    Bloom's `query.view(batch * heads, s, d)` before a `baddbmm`), read by
    batch-wise ops only (batched matmuls, transposes that keep dim 0,
    element-wise ops with constants such as Bloom's ALiBi bias, softmax)
    whose results are split back into [a, b]: those ops run on the
    unmerged dims instead. The values are the same; a shard of `b` (the
    heads under a Colwise projection) then passes through them where the
    merged dim, whose chunks are no shard of it, would be gathered."""
    outputs = set(g.outputs)
    order = {n: i for i, n in enumerate(g.root.walk_nodes())}
    done = set()
    for start in list(order):
        ab = _merges(start)
        if ab is None or start in done:
            continue
        users = g.users()
        merges, region, splits = {start}, set(), set()
        work, ok = [start], True
        while work and ok:
            n = work.pop()
            if n in outputs:
                ok = False
                break
            for u in users.get(n, []):
                if u in region or u in splits:
                    continue
                if _splits(u, ab):
                    splits.add(u)
                    continue
                if not _batchwise(u, ab):
                    ok = False
                    break
                # Its other merged operands join (their users are checked).
                for a in u.args:
                    if a not in merges and _merges(a) == ab:
                        merges.add(a)
                        work.append(a)
                region.add(u)
                work.append(u)
        done |= merges
        # Every operand of a region op must be a merge, a region op, a
        # constant, or of fewer dims (broadcast from the back).
        if not ok or not splits or any(
                a not in merges and a not in region and a.op != "const" and
                len(a.shape) >= len(u.shape)
                for u in region for a in u.args):
            continue

        def unmerged(a, u):
            if a in merges:
                x = a.args[0]
                shape = tuple(ab) + tuple(a.shape[1:])
                return x if tuple(x.shape) == shape else \
                    _new("reshape", [x], shape, x.dtype, u)
            if a.op == "const" and len(a.shape) == len(u.shape):
                lead = tuple(ab) if a.shape[0] != 1 else (1, 1)
                shape = lead + tuple(a.shape[1:])
                return _new("const", [], shape, a.dtype, u,
                            value=a.value.reshape(shape))
            return a
        for u in sorted(region, key=order.get):
            u.args = [unmerged(a, u) for a in u.args]
            u.shape = tuple(ab) + tuple(u.shape[1:])
            if u.op == "transpose":
                u.attrs["perm"] = [0, 1] + [p + 1 for p in u.attrs["perm"][1:]]
            elif u.op == "softmax":
                u.attrs["dim"] = u.attrs["dim"] % (len(u.shape) - 1) + 1
        # A split to the region's own shape is the region op; another
        # (its other dims reshaped) stays a reshape, of the unmerged value.
        for split in splits:
            src = split.args[0]
            if src in merges:
                src = unmerged(src, split)
                split.args = [src]
            if tuple(src.shape) == tuple(split.shape):
                g.replace_uses(split, src)


def _masked_fill(g):
    """A masked_fill no pattern took is where(mask, fill, x)."""
    for node in list(g.root.walk_nodes()):
        if node.op != "torch.masked_fill" or node.args[1].dtype != torch.bool:
            continue
        x, mask = node.args
        fill = _constant(node.attrs["value"], x.dtype, node)
        g.replace_uses(node, _new("where", [mask, fill, x], node.shape,
                                  node.dtype, node))


def rewrite(g):
    """Applies every pattern, in program order, then cleans up."""
    for node in list(g.root.walk_nodes()):
        _repeat_kv(g, node)
        _silu(g, node)
    users = g.users()
    for node in list(g.root.walk_nodes()):
        _rms_norm(g, node, users)
        _conv1d(g, node, users)
    for node in list(g.root.walk_nodes()):
        _rotary(g, node)
    _unmerge_batches(g)
    _simplify(g)
    for node in list(g.root.walk_nodes()):
        _attention(g, node)
    _simplify(g)
    _masked_fill(g)
    _unfuse_repeats(g)
