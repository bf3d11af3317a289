"""The ATen level: a torch function tp-import has no rule for is recorded
as the ATen ops it runs.

The tracer (trace.py) records torch functions and Tensor methods, the level
model code is written at. A function it has no handler for is not refused
there: it runs again under a TorchDispatchMode, which sees the ATen ops the
function reaches after PyTorch's composite functions have expanded
(`einsum` arrives as permutes, reshapes and a bmm; `F.normalize` as a
norm and a division). Each ATen op on a traced tensor is recorded:

- by a rule of its own (the table below, most sharing the torch-level
  handlers: `aten.mul.Tensor` takes the arguments `torch.mul` does);
- else by PyTorch's own decomposition of it (torch._decomp, the table
  make_fx uses), which runs in the mode again, so `F.mish`, `F.softplus`,
  `F.gelu(approximate='tanh')`, `F.hardswish`, `F.elu`, `F.glu` or
  `F.group_norm` become tp's elementwise ops and reductions;
- else the function stays unsupported, and the error (only if the value is
  used) names the function, the ATen op, the module FQN and the user's line.

The nodes keep the scope and the user's line of the function's call, so
plans and messages see them where the user wrote them. The tensors made
inside from no traced tensor (zeros, arange, a scalar) are constants as
anywhere else; a random one (bernoulli, rand) is refused, never frozen.
"""

import torch
from torch._decomp import decomposition_table
from torch.utils._python_dispatch import TorchDispatchMode

from . import trace as T
from .errors import UserError


class NoRule(Exception):
    """An ATen op on a traced tensor that nothing here records."""


class _Recorder(TorchDispatchMode):
    def __init__(self, tr):
        super().__init__()
        self.tr = tr

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tr = self.tr
        name = _op_name(func)
        if torch.Tag.nondeterministic_seeded in getattr(func, "tags", ()):
            raise NoRule(f"{name} (random values)")
        tensors = list(T._tensors_in((args, kwargs)))
        if not any(tr.is_traced(t) for t in tensors):
            return func(*args, **kwargs)  # a constant
        if func._schema.is_mutable or "out" in kwargs:
            raise NoRule(f"{name} (writes in place)")
        handler = _RULES.get(name.split(".")[0] + "." +
                             func.overloadpacket.__name__)
        if handler is not None:
            result = func(*args, **kwargs)
            x = next((t for t in tensors), None)
            nodes = handler(tr, T._Args(args, kwargs), x, result)
            if nodes is not None:
                results = result if isinstance(result, (tuple, list)) \
                    else [result]
                nodes = nodes if isinstance(nodes, (tuple, list)) \
                    else [nodes]
                for r, node in zip(results, nodes):
                    if isinstance(r, torch.Tensor) and node is not None:
                        tr._register(r, node)
                return result
        decomposition = decomposition_table.get(func)
        if decomposition is not None:
            with self:
                return decomposition(*args, **kwargs)
        raise NoRule(name)


def _op_name(func):
    """`aten.cumsum.default` of an OpOverload."""
    return str(func)


def record(tr, name, func, args, kwargs):
    """Runs torch function `func` again under the ATen recorder; returns
    the nodes of its tensor results in order (None for a non-tensor), or
    raises NoRule naming the first ATen op nothing records."""
    with _Recorder(tr):
        try:
            result = func(*args, **kwargs)
        except (NoRule, UserError):
            raise
        except Exception as e:  # a rule's own check failed: the user's code
            raise UserError(f"'{name}' raised {type(e).__name__}: "
                            f"{e}{T._at()}")
    results = result if isinstance(result, (tuple, list)) else [result]
    nodes = []
    for r in results:
        if not isinstance(r, torch.Tensor):
            nodes.append(None)
            continue
        node = tr._lookup(r)
        if node is None:
            raise NoRule(f"a result '{name}' made past the dispatcher")
        nodes.append(node)
    return nodes


# -- rules: each returns the node(s) of the op's result(s), or None --------


def _torch(handler_name):
    """The torch-level handler of the function whose arguments the ATen
    op takes in the same places."""
    def rule(tr, a, x, result):
        return T._HANDLERS[handler_name](tr, handler_name, a, x, result)
    return rule


def _torch_multi(handler_name):
    """The same for an op of several results; an overload of one result
    (max of two tensors) takes the single-result handler if there is one."""
    def rule(tr, a, x, results):
        if not isinstance(results, (tuple, list)):
            single = T._HANDLERS.get(handler_name)
            return single(tr, handler_name, a, x, results) if single else None
        return T._MULTI_HANDLERS[handler_name](tr, handler_name, a, x,
                                               list(results))
    return rule


def _identity(tr, a, x, result):
    if result.dtype != x.dtype or tuple(result.shape) != tuple(x.shape):
        return None
    return tr.node_of(x)


def _cast(tr, a, x, result):
    return T._identity_or_cast(tr, "to", a, x, result)


def _dims(dim, rank):
    """An ATen dim list ([] or None: every dim) as sorted dims."""
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return list(range(rank))
    return T._reduce_dims(dim, rank)


def _reduce(kind):
    def rule(tr, a, x, result):
        if result.dtype != x.dtype or not x.dtype.is_floating_point:
            return None
        dims = _dims(a.get(1, "dim"), x.dim())
        keepdim = bool(a.get(2, "keepdim", False))
        return tr.make("reduce", [tr.node_of(x)], result,
                       {"kind": kind, "dims": dims, "keepdim": keepdim})
    return rule


def _softmax(tr, a, x, result):
    return T._softmax(tr, "softmax", T._Args((x, a.get(1, "dim")), {}), x,
                      result)


def _log_softmax(tr, a, x, result):
    return T._log_softmax(tr, "log_softmax",
                          T._Args((x, a.get(1, "dim")), {}), x, result)


def _correction(a):
    """(correction, keepdim) of var/std/var_mean: the `.dim` overloads take
    `unbiased` and `keepdim` positionally, `.correction` as keywords."""
    unbiased = a.get(2, "unbiased")
    if isinstance(unbiased, bool):
        return (1 if unbiased else 0), bool(a.get(3, "keepdim", False))
    correction = a.kwargs.get("correction")
    return (1 if correction is None else correction,
            bool(a.kwargs.get("keepdim", False)))


def _variance(std):
    def rule(tr, a, x, result):
        correction, keepdim = _correction(a)
        dim = a.get(1, "dim")
        return T._variance(tr, "std" if std else "var",
                           T._Args((x, None if dim == [] else dim),
                                   {"correction": correction,
                                    "keepdim": keepdim}),
                           x, result)
    return rule


def _var_mean(tr, a, x, results):
    var, mean = results
    if not x.dtype.is_floating_point or var.dtype != x.dtype:
        return None
    dims = _dims(a.get(1, "dim"), x.dim())
    correction, keepdim = _correction(a)
    count = 1
    for d in dims:
        count *= x.shape[d]
    if count - correction <= 0:
        return None
    m, _, squares = T._centered(tr, x, dims)
    total = tr.make("reduce", [squares], var,
                    {"kind": "sum", "dims": dims, "keepdim": keepdim})
    v = tr.make("mul", [total, tr.scalar(1.0 / (count - correction), x)],
                var)
    if not keepdim:
        m = tr.make("reshape", [m], mean)
    return [v, m]


def _layer_norm(tr, a, x, results):
    """aten.native_layer_norm: the output as F.layer_norm's arithmetic; the
    mean and 1/std it also returns (for its own backward) as their ops."""
    out, mean, rstd = results
    shape, w, b, eps = a.get(1, "normalized_shape"), a.get(2, "weight"), \
        a.get(3, "bias"), a.get(4, "eps")
    node = T._layer_norm_ops(tr, x, len(shape), w, b, eps, out)
    if node is None:
        return None
    dims = list(range(x.dim() - len(shape), x.dim()))
    m, _, squares = T._centered(tr, x, dims)
    var = tr.make("reduce", [squares], rstd,
                  {"kind": "mean", "dims": dims, "keepdim": True})
    shifted = tr.make("add", [var, tr.scalar(eps, x)], rstd)
    return [node, m, tr.make("rsqrt", [shifted], rstd)]


def _slice(tr, a, x, result):
    """aten.slice.Tensor(x, dim, start, end, step): model.slice."""
    dim, step = a.get(1, "dim", 0), a.get(4, "step", 1)
    if not isinstance(dim, int) or not isinstance(step, int) or step <= 0:
        return None
    dim = T._norm_dim(dim, x.dim())
    start, stop = a.get(2, "start"), a.get(3, "end")
    start, stop, step = slice(start, stop, step).indices(x.shape[dim])
    count = len(range(start, stop, step))
    if (start, step, count) == (0, 1, x.shape[dim]):
        return tr.node_of(x)
    return tr.make("slice", [tr.node_of(x)], result,
                   {"dim": dim, "start": start if count else 0,
                    "step": step})


def _select(tr, a, x, result):
    """aten.select.int(x, dim, index): a slice of one, the dim dropped."""
    dim, index = a.get(1, "dim"), a.get(2, "index")
    if not isinstance(dim, int) or not isinstance(index, int):
        return None
    dim = T._norm_dim(dim, x.dim())
    shape = list(x.shape)
    shape[dim] = 1
    node = tr.make_shaped("slice", [tr.node_of(x)], shape, x.dtype,
                          {"dim": dim, "start": T._norm_dim(index,
                                                            x.shape[dim]),
                           "step": 1})
    return tr.make("reshape", [node], result)


def _shifted(op, unary):
    """log1p(x) = log(x + 1), expm1(x) = exp(x) - 1 (tp has no fused
    forms; the gradients are the same)."""
    def rule(tr, a, x, result):
        if not x.dtype.is_floating_point or result.dtype != x.dtype:
            return None
        one = tr.scalar(1.0, x)
        if unary == "log":
            inner = tr.make_shaped("add", [tr.node_of(x), one], x.shape,
                                   x.dtype)
            return tr.make("log", [inner], result)
        inner = tr.make_shaped("exp", [tr.node_of(x)], x.shape, x.dtype)
        return tr.make(op, [inner, one], result)
    return rule


def _broadcast_in_dim(tr, a, x, result):
    """prims.broadcast_in_dim(x, shape, dims): x's dims placed at `dims` of
    `shape` (a reshape adding the others as 1), then expanded."""
    shape, dims = a.get(1, "shape"), a.get(2, "broadcast_dimensions")
    kept = [1] * len(shape)
    for i, d in enumerate(dims):
        kept[d] = x.shape[i]
    node = tr.node_of(x)
    if tuple(kept) != tuple(x.shape):
        node = tr.make_shaped("reshape", [node], kept, x.dtype)
    if tuple(kept) != tuple(result.shape):
        node = tr.make("expand", [node], result)
    return node


def _prims_sum(tr, a, x, result):
    dims = a.get(1, "dims")
    if not x.dtype.is_floating_point or dims is None:
        return None
    return tr.make("reduce", [tr.node_of(x)], result,
                   {"kind": "sum", "dims": sorted(dims), "keepdim": False})


def _prims_var(tr, a, x, result):
    """prims.var(x, dims, correction): the centered squares summed over
    `dims` (dropped), over n - correction."""
    dims, correction = a.get(1, "dims"), a.get(2, "correction")
    if not x.dtype.is_floating_point or dims is None or \
            not isinstance(correction, (int, float)):
        return None
    dims = sorted(T._norm_dim(d, x.dim()) for d in dims)
    count = 1
    for d in dims:
        count *= x.shape[d]
    if count - correction <= 0:
        return None
    _, squares = T._centered_squares(tr, x, dims)
    total = tr.make("reduce", [squares], result,
                    {"kind": "sum", "dims": dims, "keepdim": False})
    return tr.make("mul", [total, tr.scalar(1.0 / (count - correction), x)],
                   result)


def _lerp(tr, a, x, result):
    """aten.lerp.Scalar(start, end, weight): start + weight * (end -
    start)."""
    end, weight = a.get(1, "end"), a.get(2, "weight")
    if not isinstance(end, torch.Tensor) or result.dtype != x.dtype or \
            not isinstance(weight, (int, float)) or isinstance(weight, bool):
        return None
    start = tr.node_of(x)
    shape = tuple(result.shape)
    diff = tr.make_shaped("sub", [tr.node_of(end), start], shape, x.dtype)
    step = tr.make_shaped("mul", [diff, tr.scalar(weight, x)], shape, x.dtype)
    return tr.make("add", [start, step], result)


def _pad(tr, a, x, result):
    """aten.constant_pad_nd(x, pad, value) with pads >= 0: per padded dim,
    x between two constant blocks (model.concat; its gradient slices the
    middle out)."""
    pad, value = list(a.get(1, "pad")), a.get(2, "value", 0)
    if len(pad) % 2 or len(pad) // 2 > x.dim() or any(p < 0 for p in pad) \
            or not isinstance(value, (int, float)) or \
            result.dtype != x.dtype:
        return None
    node, shape = tr.node_of(x), list(x.shape)
    for i in range(len(pad) // 2):
        dim = x.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if not before and not after:
            continue
        parts = []
        for count in (before, None, after):
            if count is None:
                parts.append(node)
            elif count:
                block = list(shape)
                block[dim] = count
                parts.append(T.Node("const", [], block, x.dtype, tr.scopes[-1],
                                    T._user_location(),
                                    value=torch.full(block, value,
                                                     dtype=x.dtype)))
        shape[dim] += before + after
        node = tr.make_shaped("concat", parts, shape, x.dtype, {"dim": dim})
    return node


def _guarded_exp(tr, x, scale, keep, threshold):
    """exp(scale * x) where `keep` does not hold of scale * x against
    `threshold`, and exp(0) where it does: the branch a where then drops
    stays finite, so its gradient is 0 rather than 0 * inf = NaN (the
    decompositions exponentiate every element, and overflow where the
    other branch is taken)."""
    shape = tuple(x.shape)
    xn = tr.node_of(x)
    if scale != 1:
        xn = tr.make_shaped("mul", [xn, tr.scalar(scale, x)], shape, x.dtype)
    taken = tr.make_shaped("compare", [xn, tr.scalar(threshold, x)], shape,
                           torch.bool, {"predicate": keep})
    safe = tr.make_shaped("where", [taken, tr.scalar(0.0, x), xn], shape,
                          x.dtype)
    return xn, taken, tr.make_shaped("exp", [safe], shape, x.dtype)


def _softplus(tr, a, x, result):
    """aten.softplus(x, beta, threshold): x where beta * x > threshold,
    else log(1 + exp(beta * x)) / beta, the exp guarded."""
    beta, threshold = a.get(1, "beta", 1), a.get(2, "threshold", 20)
    if not x.dtype.is_floating_point or result.dtype != x.dtype or \
            not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    for v in (beta, threshold)) or beta == 0:
        return None
    shape = tuple(x.shape)
    _, taken, e = _guarded_exp(tr, x, beta, "gt", threshold)
    one = tr.make_shaped("add", [e, tr.scalar(1.0, x)], shape, x.dtype)
    soft = tr.make_shaped("log", [one], shape, x.dtype)
    if beta != 1:
        soft = tr.make_shaped("mul", [soft, tr.scalar(1.0 / beta, x)], shape,
                              x.dtype)
    return tr.make("where", [taken, tr.node_of(x), soft], result)


def _elu(tr, a, x, result):
    """aten.elu(x, alpha, scale, input_scale): scale * x where x > 0, else
    scale * alpha * (exp(input_scale * x) - 1), the exp guarded (elu, selu
    and celu arrive here)."""
    alpha, scale, input_scale = (a.get(1, "alpha", 1), a.get(2, "scale", 1),
                                 a.get(3, "input_scale", 1))
    if not x.dtype.is_floating_point or result.dtype != x.dtype or \
            not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    for v in (alpha, scale, input_scale)):
        return None
    shape = tuple(x.shape)
    xn = tr.node_of(x)
    positive = tr.make_shaped("compare", [xn, tr.scalar(0.0, x)], shape,
                              torch.bool, {"predicate": "gt"})
    inner = xn
    if input_scale != 1:
        inner = tr.make_shaped("mul", [xn, tr.scalar(input_scale, x)], shape,
                               x.dtype)
    safe = tr.make_shaped("where", [positive, tr.scalar(0.0, x), inner],
                          shape, x.dtype)
    e = tr.make_shaped("exp", [safe], shape, x.dtype)
    neg = tr.make_shaped("sub", [e, tr.scalar(1.0, x)], shape, x.dtype)
    neg = tr.make_shaped("mul", [neg, tr.scalar(alpha * scale, x)], shape,
                         x.dtype)
    pos = xn if scale == 1 else tr.make_shaped(
        "mul", [xn, tr.scalar(scale, x)], shape, x.dtype)
    return tr.make("where", [positive, pos, neg], result)


def _flip(tr, a, x, result):
    """aten.flip(x, dims): per dim, the elements gathered at the reversed
    positions (index_select; its gradient puts each back)."""
    dims = a.get(1, "dims")
    if not x.dtype.is_floating_point or result.dtype != x.dtype:
        return None
    node = tr.node_of(x)
    for d in sorted(T._norm_dim(d, x.dim()) for d in dims):
        n = x.shape[d]
        if n <= 1:
            continue
        column = [1] * x.dim()
        column[d] = n
        index = T.Node("const", [], column, torch.int64, tr.scopes[-1],
                       T._user_location(),
                       value=torch.arange(n - 1, -1, -1).reshape(column))
        index = tr.make_shaped("expand", [index], tuple(x.shape), torch.int64)
        node = tr.make_shaped("gather", [node, index], tuple(x.shape),
                              x.dtype, {"dim": d})
    return node


def _extreme_all(largest):
    """aten.max / min of a whole tensor (one value): amax over every dim,
    of -x for min."""
    def rule(tr, a, x, result):
        if isinstance(result, (tuple, list)):  # max.dim: values, indices
            return T._MULTI_HANDLERS["max" if largest else "min"](
                tr, "max", a, x, list(result))
        if a.get(1, "other") is not None:  # of two tensors
            return T._HANDLERS["maximum" if largest else "minimum"](
                tr, "maximum", a, x, result)
        return _amax_of(tr, x, list(range(x.dim())), False, largest, result)
    return rule


def _amax_of(tr, x, dims, keepdim, largest, result):
    if not x.dtype.is_floating_point or result.dtype != x.dtype:
        return None
    src = tr.node_of(x)
    if not largest:
        src = tr.make_shaped("neg", [src], tuple(x.shape), x.dtype)
    node = tr.make("reduce", [src], result,
                   {"kind": "max", "dims": dims, "keepdim": keepdim})
    return node if largest else tr.make("neg", [node], result)


def _amin(tr, a, x, result):
    return _amax_of(tr, x, _dims(a.get(1, "dim"), x.dim()),
                    bool(a.get(2, "keepdim", False)), False, result)


def _arg_extreme(largest):
    """aten.argmax / argmin(x, dim, keepdim): the position torch.max / min
    over the dim gives (the first of equal values)."""
    def rule(tr, a, x, result):
        dim, keepdim = a.get(1, "dim"), bool(a.get(2, "keepdim", False))
        if dim is None:
            return None
        values, indices = (torch.max if largest else torch.min)(x, dim,
                                                                keepdim)
        nodes = T._MULTI_HANDLERS["max" if largest else "min"](
            tr, "max", T._Args((x, dim, keepdim), {}), x, [values, indices])
        return None if nodes is None else nodes[1]
    return rule


def _sign(tr, a, x, result):
    """sign(x): 1 where x > 0, -1 where x < 0, else 0 (also of NaN, as
    torch.sign gives); no gradient reaches x, as in PyTorch."""
    if not x.dtype.is_floating_point or result.dtype != x.dtype:
        return None
    shape, xn = tuple(x.shape), tr.node_of(x)
    below = tr.make_shaped("compare", [xn, tr.scalar(0.0, x)], shape,
                           torch.bool, {"predicate": "lt"})
    above = tr.make_shaped("compare", [xn, tr.scalar(0.0, x)], shape,
                           torch.bool, {"predicate": "gt"})
    rest = tr.make_shaped("where", [below, tr.scalar(-1.0, x),
                                    tr.scalar(0.0, x)], shape, x.dtype)
    return tr.make("where", [above, tr.scalar(1.0, x), rest], result)


def _cosh(tr, a, x, result):
    """cosh(x) = exp(|x| - ln 2) + exp(-|x| - ln 2): the halves taken
    inside the exponentials, so the result is finite wherever cosh is (an
    exp(|x|) / 2 would overflow first)."""
    if not x.dtype.is_floating_point or result.dtype != x.dtype:
        return None
    shape = tuple(x.shape)
    ax = tr.make_shaped("abs", [tr.node_of(x)], shape, x.dtype)
    half = tr.scalar(0.6931471805599453, x)
    up = tr.make_shaped("sub", [ax, half], shape, x.dtype)
    down = tr.make_shaped("neg", [ax], shape, x.dtype)
    down = tr.make_shaped("sub", [down, half], shape, x.dtype)
    return tr.make("add", [tr.make_shaped("exp", [up], shape, x.dtype),
                           tr.make_shaped("exp", [down], shape, x.dtype)],
                   result)


def _base2(log):
    """log2(x) = log(x) / ln 2; exp2(x) = exp(x ln 2)."""
    def rule(tr, a, x, result):
        if not x.dtype.is_floating_point or result.dtype != x.dtype:
            return None
        shape, xn = tuple(x.shape), tr.node_of(x)
        if log:
            ln = tr.make_shaped("log", [xn], shape, x.dtype)
            return tr.make("mul", [ln, tr.scalar(1.4426950408889634, x)],
                           result)
        scaled = tr.make_shaped("mul", [xn, tr.scalar(0.6931471805599453, x)],
                                shape, x.dtype)
        return tr.make("exp", [scaled], result)
    return rule


def _smooth_l1(tr, a, x, result):
    """aten.smooth_l1_loss(x, target, reduction, beta): per element
    0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (|d| when beta is
    0), d = x - target; then none (0), mean (1) or sum (2)."""
    target = a.get(1, "target")
    reduction, beta = a.get(2, "reduction", 1), a.get(3, "beta", 1.0)
    if not isinstance(target, torch.Tensor) or \
            not x.dtype.is_floating_point or result.dtype != x.dtype or \
            target.shape != x.shape or reduction not in (0, 1, 2) or \
            not isinstance(beta, (int, float)) or beta < 0:
        return None
    shape = tuple(x.shape)
    d = tr.make_shaped("sub", [tr.node_of(x), tr.node_of(target)], shape,
                       x.dtype)
    ad = tr.make_shaped("abs", [d], shape, x.dtype)
    loss = ad
    if beta > 0:
        small = tr.make_shaped("compare", [ad, tr.scalar(float(beta), x)],
                               shape, torch.bool, {"predicate": "lt"})
        quad = tr.make_shaped("mul", [d, d], shape, x.dtype)
        quad = tr.make_shaped("mul", [quad, tr.scalar(0.5 / beta, x)], shape,
                              x.dtype)
        lin = tr.make_shaped("sub", [ad, tr.scalar(0.5 * beta, x)], shape,
                             x.dtype)
        loss = tr.make_shaped("where", [small, quad, lin], shape, x.dtype)
    if reduction == 0:
        return loss
    return tr.make("reduce", [loss], result,
                   {"kind": "mean" if reduction == 1 else "sum",
                    "dims": list(range(x.dim())), "keepdim": False})


_RULES = {}
for _n in ("add", "sub", "mul", "div", "rsub", "mm", "bmm", "matmul",
           "neg", "exp", "log", "tanh", "sigmoid", "sqrt", "rsqrt", "erf",
           "reciprocal", "abs", "relu", "gelu", "silu", "pow", "where",
           "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and",
           "logical_or", "bitwise_not", "bitwise_and", "bitwise_or",
           "maximum", "minimum", "clamp", "clamp_min", "clamp_max",
           "masked_fill", "gather", "index_select", "tril", "triu", "cat",
           "stack", "expand", "permute", "transpose", "t", "view",
           "reshape", "unsqueeze", "squeeze", "baddbmm", "zeros_like",
           "ones_like", "full_like", "new_zeros", "new_ones", "new_full"):
    _RULES["aten." + _n] = _torch(_n)
for _n in ("_unsafe_view", "_reshape_alias"):
    _RULES["aten." + _n] = _torch("view")
_RULES["aten.addmm"] = _torch("baddbmm")  # input + mat1 @ mat2, generic
for _n in ("clone", "alias", "detach", "lift_fresh", "contiguous"):
    _RULES["aten." + _n] = _identity
_RULES["aten._to_copy"] = _cast
_RULES["aten.to"] = _cast
_RULES["aten.lerp"] = _lerp
_RULES["aten.softplus"] = _softplus
_RULES["aten.elu"] = _elu
# selu and celu: elu with PyTorch's constants, and with 1 / alpha inside.
_RULES["aten.selu"] = lambda tr, a, x, result: _elu(
    tr, T._Args((x, 1.6732632423543772, 1.0507009873554805), {}), x, result)
_RULES["aten.celu"] = lambda tr, a, x, result: _elu(
    tr, T._Args((x, a.get(1, "alpha", 1.0), 1, 1.0 / a.get(1, "alpha", 1.0)),
                {}), x, result) if a.get(1, "alpha", 1.0) else None
_RULES["aten.constant_pad_nd"] = _pad
_RULES["prims.var"] = _prims_var
_RULES["prims.convert_element_type"] = _cast
_RULES["aten.sum"] = _reduce("sum")
_RULES["aten.mean"] = _reduce("mean")
_RULES["aten.amax"] = _reduce("max")
_RULES["aten._softmax"] = _softmax
_RULES["aten._log_softmax"] = _log_softmax
_RULES["aten.var"] = _variance(False)
_RULES["aten.std"] = _variance(True)
_RULES["aten.var_mean"] = _var_mean
_RULES["aten.native_layer_norm"] = _layer_norm
_RULES["aten.slice"] = _slice
_RULES["aten.select"] = _select
_RULES["aten.log1p"] = _shifted("add", "log")
_RULES["aten.expm1"] = _shifted("sub", "exp")
for _n in ("split", "split_with_sizes", "unbind", "chunk", "tensor_split"):
    _RULES["aten." + _n] = _torch_multi(
        "split" if _n == "split_with_sizes" else _n)
_RULES["aten.topk"] = _torch_multi("topk")
_RULES["aten.max"] = _extreme_all(True)
_RULES["aten.min"] = _extreme_all(False)
_RULES["aten.amin"] = _amin
_RULES["aten.argmax"] = _arg_extreme(True)
_RULES["aten.argmin"] = _arg_extreme(False)
_RULES["aten.flip"] = _flip
_RULES["aten.narrow"] = _torch("narrow")
_RULES["aten.smooth_l1_loss"] = _smooth_l1
for _p in ("aten", "prims"):
    _RULES[_p + ".sign"] = _sign
    _RULES[_p + ".cosh"] = _cosh
    _RULES[_p + ".log2"] = _base2(True)
    _RULES[_p + ".exp2"] = _base2(False)
_RULES["prims.broadcast_in_dim"] = _broadcast_in_dim
_RULES["prims.sum"] = _prims_sum
for _n in ("add", "sub", "mul", "div", "where", "neg", "exp", "log", "tanh",
           "sqrt", "rsqrt", "erf", "reciprocal", "abs", "eq", "ne", "lt", "le",
           "gt", "ge"):
    _RULES["prims." + _n] = _torch(_n)
