"""Writes the rewritten graph as `model` dialect IR (text).

Only what the outputs depend on is written. Each user module call with
live nodes becomes a `model.module "<fqn>"` region, isolated from above:
the values it reads from outside are its inputs (block arguments), the
values read after it its results; parameters and constants are
materialized inside the region that uses them. A module whose whole body
is one leaf op of its own FQN (a hand-written RMSNorm recognized as
`model.rms_norm`) is that op, without a region.
"""

import torch

from .errors import UserError
from .graph import LEAF_OPS, Scope

_ELEMENT = {torch.float32: "f32", torch.bfloat16: "bf16",
            torch.float16: "f16", torch.int64: "i64", torch.int32: "i32",
            torch.bool: "i1"}
# What a node's attrs hold for the importer itself, not for its op; every
# other attribute is the op's, written by its Python type (_attribute).
_INTERNAL = ("torch_name", "message", "name", "fqn", "weight_transposed",
             "rows_of", "rows_at", "coordinate", "coordinate_of")
# Attributes the importer names otherwise than the op does.
_RENAMED = {"perm": "permutation"}

# The ops whose operands broadcast: a splat constant there is rank 0.
_BROADCASTING = ("add", "sub", "mul", "div", "where", "compare",
                 "logical_and", "logical_or")

_RAW_HINTS = {
    "torch.masked_fill": "only as the causal mask of an attention",
    "torch.view_as_complex": "only in Meta's rotary embedding",
    "torch.view_as_real": "only in Meta's rotary embedding",
}
# Casts: tp's ops keep their operands' dtype.
for _cast in ("to", "float", "half", "bfloat16", "double", "type",
              "type_as"):
    _RAW_HINTS["torch." + _cast] = (
        "to float32, bfloat16 or float16 from those or from int64/int32 "
        "(model.cast)")


def _fmt_float(v):
    if v in (float("inf"), float("-inf")):
        # MLIR has no inf literal: the f64 bits in hex (masked_fill's -inf).
        return "0x7FF0000000000000" if v > 0 else "0xFFF0000000000000"
    if v != v:
        raise UserError(f"cannot write the non-finite constant {v}")
    # The shortest text that reads back as the same double, with the '.'
    # MLIR's float literals need.
    text = repr(float(v))
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


def _raw_bytes(t):
    """The elements of `t` in row-major order, little-endian."""
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bool:
        # MLIR's i1 hex form packs 8 elements a byte, the first in bit 0.
        bits = t.reshape(-1).to(torch.uint8)
        pad = (-bits.numel()) % 8
        bits = torch.cat([bits, bits.new_zeros(pad)]).reshape(-1, 8)
        weights = torch.tensor([1 << i for i in range(8)], dtype=torch.int32)
        return bytes((bits.to(torch.int32) * weights).sum(1).tolist())
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.view(torch.int16)
    return t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()


def _type(shape, dtype, node=None):
    elt = _ELEMENT.get(dtype)
    if elt is None:
        msg = f"tensors of dtype {dtype} have no model IR type"
        if node is not None:
            node.fail(msg)
        raise UserError(msg)
    return "tensor<" + "".join(f"{d}x" for d in shape) + elt + ">"


def _ttype(node):
    return _type(node.shape, node.dtype, node)


def _broadcast(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    return [max(x, y) if 1 in (x, y) else x for x, y in zip(a, b)]


class _Region:
    """The SSA names visible in one region and the lines written to it."""

    def __init__(self, emitter, env, indent):
        self.em = emitter
        self.env = dict(env)
        self.indent = indent
        self.params = {}
        self.consts = {}

    def line(self, text):
        self.em.lines.append("  " * self.indent + text)

    def fresh(self):
        return self.em.fresh()

    def use(self, node, user):
        """The SSA name of `node` for an operand of `user`."""
        if node in self.env:
            return self.env[node]
        if node.op == "param":
            name = node.attrs["name"]
            if name not in self.params:
                v = self.fresh()
                self.line(f'{v} = model.param "{name}" : {_ttype(node)}')
                self.params[name] = v
            return self.params[name]
        if node.op == "const":
            return self.const(node, user)
        raise AssertionError(f"{node} used before it is defined")

    def const(self, node, user):
        value = node.value
        key = (id(node), id(user))
        if key in self.consts:
            return self.consts[key]
        if value.is_floating_point() and value.numel() >= 1 and \
                bool((value == value.reshape(-1)[0]).all()):
            # A splat (a Python scalar, 1/sqrt(d), a full tensor): rank 0
            # when it broadcasts into the other operand.
            scalar = float(value.reshape(-1)[0])
            others = [a for a in user.args if a is not node]
            shape = () if user.op in _BROADCASTING and others and \
                _broadcast(others[0].shape, value.shape) == \
                list(others[0].shape) else tuple(value.shape)
            v = self.fresh()
            self.em.const_types[v] = _type(shape, node.dtype, user)
            self.line(f"{v} = model.full {_fmt_float(scalar)} : "
                      f"{self.em.const_types[v]}")
        elif not value.is_floating_point() and not value.is_complex() and \
                value.dtype != torch.bool and value.numel() > 0 and \
                sum(d > 1 for d in value.shape) <= 1 and torch.equal(
                    value.reshape(-1), torch.arange(value.numel(),
                                                    dtype=value.dtype)):
            # Positions (torch.arange(s), maybe unsqueezed).
            n = value.numel()
            v = self.fresh()
            line_type = _type((n,), node.dtype, user)
            self.line(f"{v} = model.arange : {line_type}")
            if tuple(value.shape) != (n,):
                r = self.fresh()
                self.line(f"{r} = model.reshape {v} : ({line_type}) -> "
                          f"{_type(value.shape, node.dtype, user)}")
                v = r
            self.em.const_types[v] = _type(value.shape, node.dtype, user)
        elif node.dtype in _ELEMENT and value.numel() > 0:
            # Any other table (rotary cos/sin, a mask, ids): its elements
            # as MLIR's hex form, little-endian in the element type.
            v = self.fresh()
            ctype = _type(value.shape, node.dtype, user)
            self.em.const_types[v] = ctype
            self.line(f'{v} = model.constant dense<"0x'
                      f'{_raw_bytes(value.to(node.dtype)).hex().upper()}"> '
                      f': {ctype}')
        else:
            user.fail(f"a constant tensor of shape {list(value.shape)} and "
                      f"dtype {value.dtype} (made at {node.where or '?'}) "
                      f"has no model IR form; tp-import writes float32, "
                      f"bfloat16, float16, int64 and int32 constants")
        self.consts[key] = v
        return v


class Emitter:
    def __init__(self, g, header):
        self.g = g
        self.header = header
        self.lines = []
        self.const_types = {}  # SSA name of a written constant -> its type
        self.counter = 0
        self.live = self._live()
        self.owner = {}  # live node -> the scopes containing it
        self._scope_nodes = {}
        self._index(g.root, [])

    def fresh(self):
        self.counter += 1
        return f"%{self.counter - 1}"

    # -- analysis ----------------------------------------------------------

    def _live(self):
        live, stack = set(), list(self.g.outputs)
        while stack:
            n = stack.pop()
            if n in live:
                continue
            live.add(n)
            stack.extend(n.args)
        return live

    def _index(self, scope, chain):
        chain = chain + [scope]
        nodes = []
        for item in scope.items:
            if isinstance(item, Scope):
                nodes.extend(self._index(item, chain))
            elif item in self.live:
                self.owner[item] = chain
                nodes.append(item)
        self._scope_nodes[scope] = nodes
        return nodes

    def _inside(self, node, scope):
        return scope in self.owner.get(node, ())

    def _boundary(self, scope):
        """(inputs, outputs) of a scope's region."""
        nodes = self._scope_nodes[scope]
        inputs = []
        for n in nodes:
            for a in n.args:
                if a.op in ("param", "const") or self._inside(a, scope):
                    continue
                if a not in inputs:
                    inputs.append(a)
        outside_users = [n for n in self.live if not self._inside(n, scope)]
        outputs = []
        for n in nodes:
            if n in self.g.outputs or any(n in u.args for u in outside_users):
                outputs.append(n)
        return inputs, outputs

    def _collapsed_leaf(self, scope):
        nodes = self._scope_nodes[scope]
        if len(nodes) == 1 and nodes[0].op in LEAF_OPS and \
                nodes[0].attrs.get("fqn") == scope.fqn:
            return nodes[0]
        return None

    # -- writing -----------------------------------------------------------

    def run(self):
        # The first unsupported node in program order is reported.
        for n in self.g.nodes():
            if n not in self.live:
                continue
            if "message" in n.attrs and n.op not in _RAW_HINTS:
                n.fail(n.attrs["message"])
            if n.op.startswith("torch."):
                hint = _RAW_HINTS.get(n.op)
                n.fail("unsupported function" +
                       (f" (tp-import supports it {hint})" if hint else ""))
            if n.op == "repeat_heads":
                n.fail("repeating heads (repeat_interleave / repeat_kv) is "
                       "supported only on the keys and values of an "
                       "attention")
            if n.dtype.is_complex:
                n.fail("complex tensors are supported only in Meta's rotary "
                       "embedding")
        env = {}
        args = []
        for i, (name, node) in enumerate(self.g.inputs):
            env[node] = f"%arg{i}"
            args.append(f'%arg{i}: {_ttype(node)} {{model.name = "{name}"}}')
        results = [_ttype(n) for n in self.g.outputs]
        result_text = results[0] if len(results) == 1 else \
            "(" + ", ".join(results) + ")"
        self.lines.extend(f"// {h}" for h in self.header)
        self.lines.append("module {")
        self.lines.append(f"  func.func @forward({', '.join(args)}) -> "
                          f"{result_text} {{")
        region = _Region(self, env, 2)
        self._body(self.g.root, region)
        outs = [region.use(n, n) if n.op == "param" else region.env[n]
                for n in self.g.outputs]
        region.line(f"return {', '.join(outs)} : {', '.join(results)}")
        self.lines.append("  }")
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def _body(self, scope, region):
        for item in scope.items:
            if isinstance(item, Scope):
                if not self._scope_nodes[item]:
                    continue
                leaf = self._collapsed_leaf(item)
                if leaf is not None:
                    self._op(leaf, region)
                else:
                    self._module(item, region)
            elif item in self.live:
                self._op(item, region)

    def _module(self, scope, region):
        inputs, outputs = self._boundary(scope)
        in_names = [region.use(a, a) if a.op == "param" else region.env[a]
                    for a in inputs]
        in_types = [_ttype(a) for a in inputs]
        out_types = [_ttype(n) for n in outputs]
        attrs = [f'kind = "{scope.kind}"']
        arg_names = [scope.call_args.get(a) for a in inputs]
        if inputs and all(arg_names) and len(set(arg_names)) == len(inputs):
            attrs.append("arg_names = [" +
                         ", ".join(f'"{n}"' for n in arg_names) + "]")
        children = self._children(scope)
        if children:
            attrs.append("children = [" +
                         ", ".join(f'"{c}"' for c in children) + "]")
        result = self.fresh()
        lhs = result if len(outputs) == 1 else f"{result}:{len(outputs)}"
        out_text = out_types[0] if len(out_types) == 1 else \
            "(" + ", ".join(out_types) + ")"
        region.line(f'{lhs} = model.module "{scope.fqn}"'
                    f'({", ".join(in_names)}) {{{", ".join(attrs)}}} : '
                    f'({", ".join(in_types)}) -> {out_text} {{')
        inner_env = {}
        block_args = []
        for a, t in zip(inputs, in_types):
            name = f"%a{self.counter}"
            self.counter += 1
            inner_env[a] = name
            block_args.append(f"{name}: {t}")
        inner = _Region(self, inner_env, region.indent + 1)
        if block_args:
            region.line(f"^bb0({', '.join(block_args)}):")
        self._body(scope, inner)
        inner.line(f"model.yield {', '.join(inner.env[n] for n in outputs)}"
                   f" : {', '.join(out_types)}")
        region.line("}")
        for i, n in enumerate(outputs):
            region.env[n] = result if len(outputs) == 1 else f"{result}#{i}"

    def _children(self, scope):
        """The module's direct children written as ops of its region, in
        definition order (named_children)."""
        written = set()
        for item in scope.items:
            if isinstance(item, Scope) and self._scope_nodes[item]:
                written.add(item.fqn)
            elif not isinstance(item, Scope) and item in self.live and \
                    item.op in LEAF_OPS:
                written.add(item.attrs["fqn"])
        prefix = scope.fqn + "."
        return [name for name, _ in scope.module.named_children()
                if prefix + name in written]

    @staticmethod
    def _attributes(n):
        """` {dim = 1 : i64, ...}` of node `n`'s op attributes (bool, int
        as i64, float as f64, str, a list of ints as array<i64>), or ''."""
        parts = []
        for key, value in n.attrs.items():
            if key in _INTERNAL:
                continue
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, int):
                text = f"{value} : i64"
            elif isinstance(value, float):
                text = f"{_fmt_float(value)} : f64"
            elif isinstance(value, str):
                text = f'"{value}"'
            elif isinstance(value, (list, tuple)) and all(
                    isinstance(v, int) and not isinstance(v, bool)
                    for v in value):
                text = f"array<i64: {', '.join(str(v) for v in value)}>"
            else:
                n.fail(f"internal: cannot write attribute '{key}' "
                       f"({type(value).__name__}) of model.{n.op}")
            parts.append(f"{_RENAMED.get(key, key)} = {text}")
        return f" {{{', '.join(parts)}}}" if parts else ""

    def _op(self, n, region):
        ops = [region.use(a, n) for a in n.args]
        types = [self.const_types[v] if a.op == "const" else _ttype(a)
                 for a, v in zip(n.args, ops)]
        sig = f"({', '.join(types)}) -> {_ttype(n)}"
        v = self.fresh()
        op = n.op
        if op == "linear" and n.attrs.get("weight_transposed"):
            # HF's Conv1D weight [in, out]: the linear reads its transpose.
            w = n.args[1]
            t = self.fresh()
            ttype = _type((w.shape[1], w.shape[0]), w.dtype, n)
            region.line(f"{t} = model.transpose {ops[1]} {{permutation = "
                        f"array<i64: 1, 0>}} : ({types[1]}) -> {ttype}")
            ops[1], types[1] = t, ttype
            sig = f"({', '.join(types)}) -> {_ttype(n)}"
        if op in LEAF_OPS:
            region.line(f'{v} = model.{op} "{n.attrs["fqn"]}"'
                        f'({", ".join(ops)}){self._attributes(n)} : {sig}')
        elif op == "reduce":
            v = self._reduce(n, ops[0], types[0], region, v)
        else:
            # Any other op: its name, operands and attributes, generically.
            region.line(f"{v} = model.{op} {', '.join(ops)}"
                        f"{self._attributes(n)} : {sig}")
        region.env[n] = v

    def _reduce(self, n, x, xtype, region, v):
        """sum / mean / amax over dims, as reduce_sum / reduce_max (which
        keep the dim) and a multiply by 1/count for the mean."""
        src = n.args[0]
        kind, dims = n.attrs["kind"], n.attrs["dims"]
        if kind == "mean" and dims == list(range(len(src.shape))) and \
                not n.attrs["keepdim"]:
            region.line(f"{v} = model.mean {x} : ({xtype}) -> {_ttype(n)}")
            return v
        shape = list(src.shape)
        cur, cur_type = x, xtype
        count = 1
        for d in dims:
            count *= shape[d]
            shape[d] = 1
            t = _type(shape, n.dtype, n)
            name = self.fresh()
            op = "reduce_max" if kind == "max" else "reduce_sum"
            region.line(f"{name} = model.{op} {cur} {{dim = {d} : i64}} : "
                        f"({cur_type}) -> {t}")
            cur, cur_type = name, t
        if kind == "mean":
            c = self.fresh()
            ctype = _type((), n.dtype, n)
            region.line(f"{c} = model.full {_fmt_float(1.0 / count)} : "
                        f"{ctype}")
            name = self.fresh()
            region.line(f"{name} = model.mul {cur}, {c} : ({cur_type}, "
                        f"{ctype}) -> {cur_type}")
            cur = name
        if tuple(shape) != tuple(n.shape):
            region.line(f"{v} = model.reshape {cur} : ({cur_type}) -> "
                        f"{_ttype(n)}")
            return v
        return cur


def emit(g, header):
    """The module text for graph `g`, `header` lines as comments on top."""
    return Emitter(g, header).run()
