"""Rows picked by `torch.where(mask)`: data-dependent sizes, made static.

Mixture-of-experts code (Hugging Face's Mixtral, Qwen-MoE, ...) routes
tokens with `idx, top_x = torch.where(expert_mask[e])`: the coordinates of
the mask's nonzero entries, as many as the data selects. It then reads
rows at those coordinates (`hidden[top_x]`, `weights[top_x, idx, None]`),
runs them through the expert and adds them back with
`out.index_add_(0, top_x, rows)`. A static program cannot have a size the
data decides, but it can compute the same sum over every entry of the
mask, weighted by the mask:

    out[t] += sum over the mask's entries s with coordinate t: mask[s] * f(rows[s])

So a selection over a mask of shape S stands for all of S: a tensor
indexed by the coordinates has, where PyTorch has the one dim of selected
rows, the dims of S (size 1 where it does not vary along that coordinate:
`hidden[top_x]` is `hidden` itself, not a copy per slot), and
`index_add_` multiplies by the mask and sums over the other coordinates.
Element-wise ops, row-wise modules (Linear, LayerNorm) and reshapes that
keep the selected dim apply to the stand-in as they are. Anything else
(reading the count, sorting, reducing over the selected dim) is refused
with the line that did it. The mask must be known to be 0/1 (a one-hot,
or a view of one): the weights are then exactly PyTorch's, and rows not
selected add exactly zero.

The cost is the dense form's: each expert runs on every token. Exact,
and sharded as any other op; not yet the sparse dispatch's speed.
"""

import math

import torch

from .errors import UserError
from .graph import Node


class Selection:
    """The entries of one traced `torch.where(mask)`."""

    def __init__(self, mask, where):
        self.mask = mask  # the mask's Node
        self.shape = tuple(mask.shape)  # S
        self.where = where  # "file.py:12" of the torch.where

    def describe(self):
        at = f" at {self.where}" if self.where else ""
        return f"the rows torch.where(mask){at} selected"


def coordinate(node):
    """(selection, coordinate) of a node made by torch.where(mask), or
    None."""
    sel = node.attrs.get("coordinate_of")
    return (sel, node.attrs["coordinate"]) if sel is not None else None


def selected(node):
    """(selection, p) of a stand-in for selected rows (the selection's dims
    start at dim p of `node.shape`), or None."""
    sel = node.attrs.get("rows_of")
    return (sel, node.attrs["rows_at"]) if sel is not None else None


def involves(node):
    return coordinate(node) is not None or selected(node) is not None


def refuse(tr, name, sel, why=""):
    raise UserError(
        f"'{name}'{tr.at()} reads {sel.describe()}, whose number the data "
        f"decides{why}; tp-import follows such rows through indexing by "
        f"the coordinates, element-wise ops, row-wise modules (Linear, "
        f"LayerNorm), reshapes that keep the selected dim and index_add_ "
        f"back into a tensor of fixed size")


def _same_selection(tr, name, sel, other):
    """Refuses mixing the selections of two torch.where calls."""
    if sel is not None and other is not sel:
        raise UserError(f"'{name}'{tr.at()} combines the rows of two "
                        f"torch.where calls; tp-import reads one selection "
                        f"at a time")


def _mark(node, sel, p):
    node.attrs["rows_of"] = sel
    node.attrs["rows_at"] = p
    return node


def _zero_one(node):
    """Whether every element of `node` is 0 or 1 by construction."""
    while node.op in ("transpose", "reshape", "slice", "cast"):
        node = node.args[0]
    if node.op == "one_hot":
        return True
    if node.op == "const" and node.value is not None:
        v = node.value
        return bool(((v == 0) | (v == 1)).all())
    return False


def where_coordinates(tr, name, a, x, results):
    """torch.where(mask) / mask.nonzero(as_tuple=True): one coordinate node
    per dim of the mask, none of them in the program."""
    if name == "where" and (a.get(1, "input") is not None or
                            a.get(2, "other") is not None):
        return None
    if name == "nonzero" and not a.kwargs.get("as_tuple", False):
        return None
    mask = tr.node_of(x)  # the tracer refused a mask that is itself rows
    if not _zero_one(mask):
        raise UserError(
            f"torch.{name}(mask){tr.at()} on a mask tp-import cannot show to "
            f"be 0/1 (it follows one-hot masks, F.one_hot and views of "
            f"them): the rows it selects would have no static form")
    sel = Selection(mask, tr.location())
    nodes = []
    for d, r in enumerate(results):
        nodes.append(Node("selection_coordinate", [], r.shape, r.dtype, None,
                          sel.where, {"coordinate_of": sel, "coordinate": d}))
    return nodes


def size_read(tr, name, node, t):
    """Reading the size of selected rows (or of a coordinate) follows this
    example: code that skips an empty selection (`if top_x.shape[0] == 0:
    continue`) is kept only when the example selects rows, and then the
    masked form computes what it would (zeros where nothing is selected).
    An empty selection in the example is refused: the skipped code would be
    missing for inputs that select rows."""
    c = coordinate(node)
    sel = c[0] if c is not None else selected(node)[0]
    count = t.shape[0] if c is not None else t.shape[selected(node)[1]]
    if count == 0:
        raise UserError(
            f"'{name}'{tr.at()} reads the size of {sel.describe()}, which "
            f"is 0 for this example: code skipped for an empty selection "
            f"would be missing for inputs that select rows (trace with "
            f"inputs that select rows everywhere)")


def _items(index, rank):
    """The index as per-item entries with `...` expanded, or None for an
    index this module does not read (ints, partial slices, bools)."""
    items = list(index) if isinstance(index, tuple) else [index]
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    out = []
    for i in items:
        if i is Ellipsis:
            out.extend([slice(None)] * (rank - used))
        else:
            out.append(i)
    out.extend([slice(None)] * (rank - sum(1 for i in out if i is not None)))
    return out


def index_rows(tr, name, x, index, result):
    """`x[..., coords, ...]` for a plain `x`: the rows of x at the
    selection's coordinates, as a transpose and a reshape of x (each
    coordinate reads one dim of x; the selection's other dims are 1)."""
    rank = x.dim()
    items = _items(index, rank)
    sel, used = None, {}
    for i in items:
        if isinstance(i, torch.Tensor):
            n = tr._lookup(i)
            c = coordinate(n) if n is not None else None
            if c is None:
                return None
            _same_selection(tr, name, sel, c[0])
            sel = c[0]
            if c[1] in used:
                refuse(tr, name, sel, " (a coordinate used twice)")
            used[c[1]] = i
        elif i is not None and i != slice(None):
            if sel is None:
                sel = next(coordinate(tr._lookup(t))[0] for t in items
                           if isinstance(t, torch.Tensor) and
                           tr._lookup(t) is not None and
                           coordinate(tr._lookup(t)) is not None)
            refuse(tr, name, sel, " (an index mixing coordinates with ints "
                    "or partial slices)")
    if sel is None:
        return None
    positions = [k for k, i in enumerate(items) if isinstance(i, torch.Tensor)]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    # x's dim per item (None adds a dim).
    xdim, dims_of = 0, []
    for i in items:
        dims_of.append(None if i is None else xdim)
        if i is not None:
            xdim += 1
    node = tr.node_of(x)
    coord_of_dim = {dims_of[k]: coordinate(tr.node_of(items[k]))[1]
                    for k in positions}
    # Each coordinate's values lie in [0, S[d]): a longer dim of x is cut.
    shape = list(x.shape)
    for j, d in coord_of_dim.items():
        if shape[j] < sel.shape[d]:
            refuse(tr, name, sel, f" (dim {j} of size {shape[j]} is "
                    f"shorter than the mask's dim {d} of {sel.shape[d]})")
        if shape[j] > sel.shape[d]:
            shape[j] = sel.shape[d]
            node = tr.make_shaped("slice", [node], shape, x.dtype,
                                  {"dim": j, "start": 0, "step": 1})
    block = sorted(coord_of_dim, key=lambda j: coord_of_dim[j])
    basic = [(k, i) for k, i in enumerate(items)
             if not isinstance(i, torch.Tensor)]
    # Output items in order: the block where the coordinates stood
    # (adjacent) or first (PyTorch's rule for separated advanced indices).
    out = []
    if adjacent:
        for k, i in basic:
            if k > positions[0] and "block" not in out:
                out.append("block")
            out.append(k)
        if "block" not in out:
            out.append("block")
    else:
        out = ["block"] + [k for k, _ in basic]
    perm = []
    for o in out:
        if o == "block":
            perm.extend(block)
        elif items[o] is not None:
            perm.append(dims_of[o])
    if perm != list(range(rank)):
        node = tr.make_shaped("transpose", [node], [shape[p] for p in perm],
                              x.dtype, {"perm": perm})
    repr_shape, p = [], 0
    for o in out:
        if o == "block":
            p = len(repr_shape)
            repr_shape.extend(sel.shape[d] if d in coord_of_dim.values()
                              else 1 for d in range(len(sel.shape)))
        elif items[o] is None:
            repr_shape.append(1)
        else:
            repr_shape.append(shape[dims_of[o]])
    if tuple(repr_shape) != tuple(node.shape):
        node = tr.make_shaped("reshape", [node], repr_shape, x.dtype)
    elif node is tr.node_of(x):
        # A new node: the stand-in is marked, x is not.
        node = tr.make_shaped("reshape", [node], repr_shape, x.dtype)
    return _mark(node, sel, p)


def _real_rank(node):
    sel, p = selected(node)
    return len(node.shape) - len(sel.shape) + 1


def view_rows(tr, name, x, result):
    """A reshape of selected rows that keeps the selected dim whole: the
    dims before it and after it may regroup among themselves."""
    node = tr.node_of(x)
    sel, p = selected(node)
    k = len(sel.shape)
    pre, post = node.shape[:p], node.shape[p + k:]
    count = x.shape[p]  # the example's number of selected rows
    r = list(result.shape)
    for q in range(len(r)):
        if r[q] == count and math.prod(r[:q]) == math.prod(pre) and \
                math.prod(r[q + 1:]) == math.prod(post):
            shape = r[:q] + list(node.shape[p:p + k]) + r[q + 1:]
            if tuple(shape) == tuple(node.shape):
                return node
            return _mark(tr.make_shaped("reshape", [node], shape,
                                        result.dtype), sel, q)
    refuse(tr, name, sel, " (a reshape that would mix the selected dim "
            "with others)")


def _broadcast(shapes):
    rank = max(len(s) for s in shapes)
    out = [1] * rank
    for s in shapes:
        for i, d in enumerate(s):
            j = rank - len(s) + i
            if d != 1:
                out[j] = d
    return out


def elementwise_rows(tr, name, op, operands, result):
    """An element-wise op (`op`, a model op) on selected rows and plain
    tensors or numbers: the selected dims of each stand-in line up (the
    same distance from the end); a plain tensor that reaches the selected
    dim has size 1 there and gets the selection's dims as 1s."""
    sel, tail = None, None
    for v in operands:
        if isinstance(v, torch.Tensor):
            n = tr.node_of(v)
            if coordinate(n) is not None:
                refuse(tr, name, coordinate(n)[0], " (computing with the "
                        "coordinates themselves)")
            s = selected(n)
            if s is not None:
                _same_selection(tr, name, sel, s[0])
                sel = s[0]
                t = len(n.shape) - s[1] - len(sel.shape)
                if tail is not None and t != tail:
                    refuse(tr, name, sel, " (the selected dims of the "
                            "operands do not line up)")
                tail = t
    k = len(sel.shape)
    like = next(v for v in operands if isinstance(v, torch.Tensor))
    nodes = []
    for v in operands:
        if isinstance(v, torch.Tensor):
            n = tr.node_of(v)
            if selected(n) is None and v.dim() > tail:
                # Reaches the selected dim: size 1 there, the selection's
                # dims as 1s.
                at = v.dim() - tail - 1
                if v.shape[at] != 1:
                    refuse(tr, name, sel, " (a tensor of fixed size along "
                            "the selected dim)")
                shape = list(v.shape[:at]) + [1] * k + list(v.shape[at + 1:])
                n = tr.make_shaped("reshape", [n], shape, v.dtype)
            nodes.append(n)
        else:
            n = tr.operand(v, like)
            if n is None:
                return None
            nodes.append(n)
    shape = _broadcast([n.shape for n in nodes])
    node = tr.make_shaped(op, nodes, shape, result.dtype)
    return _mark(node, sel, len(shape) - tail - k)


def unary_rows(tr, op, x, result, attrs=None):
    """A unary op (or a cast) on selected rows: the same stand-in shape."""
    n = tr.node_of(x)
    sel, p = selected(n)
    return _mark(tr.make_shaped(op, [n], n.shape, result.dtype, attrs), sel,
                 p)


def leaf_rows(tr, kind, x, out_features):
    """The stand-in shape of a row-wise module's output (`Linear`,
    `LayerNorm`) on selected rows, or a refusal when the rows are its last
    dim."""
    n = tr.node_of(x)
    sel, p = selected(n)
    if p + len(sel.shape) >= len(n.shape):
        refuse(tr, kind, sel, " (as the features of a layer)")
    return sel, p, list(n.shape[:-1]) + [out_features]


def index_add(tr, name, a, result):
    """`out.index_add_(dim, coords, rows[, alpha])`: rows times the mask,
    summed over the selection's other coordinates, added to `out`."""
    target, dim = a.get(0, "input"), a.get(1, "dim")
    index, source = a.get(2, "index"), a.get(3, "source")
    alpha = a.get(4, "alpha", 1)
    if not isinstance(index, torch.Tensor) or \
            not isinstance(source, torch.Tensor) or not isinstance(dim, int):
        return None
    c = coordinate(tr.node_of(index))
    src = tr.node_of(source)
    if c is None:
        s = selected(src)
        if s is not None:
            refuse(tr, name, s[0], " (added at indices that are not its "
                    "coordinates)")
        return None
    sel, d = c
    s = selected(src)
    if s is None:
        refuse(tr, name, sel, " (adding rows that were not read at its "
                "coordinates)")
    _same_selection(tr, name, sel, s[0])
    dim = dim + target.dim() if dim < 0 else dim
    p = s[1]
    k = len(sel.shape)
    if p != dim or target.shape[dim] != sel.shape[d]:
        refuse(tr, name, sel, f" (index_add_ along dim {dim} of a tensor "
                f"of shape {list(target.shape)}: the rows must be added "
                f"along the dim they were selected in, of the mask's size "
                f"{sel.shape[d]})")
    # The mask in the rows' dtype, its dims where the rows' are.
    mask = sel.mask
    if mask.dtype != source.dtype:
        mask = tr.make_shaped("cast", [mask], mask.shape, source.dtype)
    rank = len(src.shape)
    mshape = [1] * p + list(sel.shape) + [1] * (rank - p - k)
    mask = tr.make_shaped("reshape", [mask], mshape, source.dtype)
    shape = _broadcast([src.shape, mshape])
    node = tr.make_shaped("mul", [src, mask], shape, source.dtype)
    dims = [p + e for e in range(k) if e != d]
    if dims:
        shape = [n for i, n in enumerate(shape) if i not in dims]
        node = tr.make_shaped("reduce", [node], shape, source.dtype,
                              {"kind": "sum", "dims": dims,
                               "keepdim": False})
    if tuple(shape) != tuple(target.shape):
        node = tr.make_shaped("reshape", [node], target.shape, source.dtype)
    if alpha != 1:
        node = tr.make_shaped("mul", [node, tr.scalar(alpha, source)],
                              target.shape, source.dtype)
    base = tr.node_of(target)  # the value before the call
    if base.op == "const" and base.value is not None and \
            not bool(base.value.any()):
        return node  # added into zeros
    return tr.make_shaped("add", [base, node], target.shape, source.dtype)
