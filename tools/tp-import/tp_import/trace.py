"""Runs the module's forward on the example inputs and records what it does.

Tracing runs the real forward on real tensors, so ordinary Python works:
shapes read with `b, s, d = x.shape` are plain ints, loops and branches run
as they do for the example (shapes become static, control flow specialized
to it). Two hooks record the program:

- `nn.Module.__call__` is wrapped: the layers tp has as leaf modules
  (Linear, Embedding, LayerNorm, Dropout) become one node carrying their
  FQN, activation modules become their functional op, and user modules
  open a Scope (a `model.module` region in the IR);
- a TorchFunctionMode sees every torch function and Tensor method called
  on a traced tensor (an input, a parameter, or a value computed from
  them) and records a node. Calls on constants only (masks, position
  tables, buffers) are not recorded: their results are constants whose
  values later patterns can inspect. A function without a handler here
  is recorded as the ATen ops it runs (aten.py).

A value that depends on an input or a parameter is never a constant. On
torch 1.13 an index of one element (`t[0]`, `t[None]`, `t[mask]`) does not
reach the mode, so `Tensor.__getitem__` is wrapped to route it there too;
and as a net for any other path past the recorder, a tensor that is not
recorded but shares memory with a traced one (a view made where the mode
did not see it) is refused where it is read. In-place ops keep the
recorded program right: the written tensor gets the new value, its other
views are stale (reading one is an error), a constant written in place is
read again at its next use, and writes into parameters are refused.
"""

import inspect
import math
import os
import sys

import torch
import torch.nn as nn
from torch.overrides import (TorchFunctionMode, _get_current_function_mode,
                             _pop_mode_temporarily)

from . import selection
from .errors import UserError
from .graph import Graph, Node, Scope

_TORCH_DIR = os.path.dirname(torch.__file__)
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
# Python's own modules (threading, contextlib, functools): not the user's.
_STDLIB_DIR = os.path.dirname(os.path.abspath(os.__file__)) + os.sep

# Results that read a traced tensor's values into Python: the trace could
# only follow the example's values.
_DATA_DEPENDENT = {"item", "tolist", "__bool__", "__int__", "__float__",
                   "__index__", "numpy", "__array__", "__complex__"}
# Writes into a traced tensor that the recorded program could not follow.
_WRITES = {"__setitem__", "index_put_", "copy_", "fill_", "zero_",
           "scatter_", "index_fill_", "index_copy_", "set_"}
# In-place dunders (`x += y`); other in-place ops end in `_`.
_INPLACE_DUNDERS = {"__iadd__", "__isub__", "__imul__", "__itruediv__",
                    "__ifloordiv__", "__imod__", "__ipow__", "__imatmul__",
                    "__iand__", "__ior__", "__ixor__", "__ilshift__",
                    "__irshift__"}
# Names ending in `_` that change no values.
_NOT_WRITES = {"requires_grad_", "share_memory_", "retain_grad"}

_ACTIVATIONS = {nn.ReLU: "relu", nn.SiLU: "silu", nn.GELU: "gelu",
                nn.Tanh: "tanh", nn.Sigmoid: "sigmoid"}
_CONTAINERS = (nn.Sequential,)
# Calls without a handler that are not recorded at the ATen level: forms a
# pattern reads (Meta's rotary embedding), and dropout in training mode
# (its mask would be frozen).
_NO_ATEN = {"view_as_complex", "view_as_real", "dropout", "dropout_",
            "alpha_dropout", "feature_alpha_dropout", "dropout1d",
            "dropout2d", "dropout3d", "rrelu"}
_LEAF_LAYERS = (nn.Linear, nn.Embedding, nn.LayerNorm, nn.Dropout)


def _user_location():
    """`file.py:line` of the innermost frame of user code (outside torch,
    tp-import and Python's own modules), or '' when tp-import itself made
    the call."""
    entry = os.path.realpath(sys.argv[0]) if sys.argv else ""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_TORCH_DIR) and \
                not path.startswith(_OWN_DIR) and \
                not path.startswith(_STDLIB_DIR) and \
                os.path.realpath(path) != entry:
            return f"{os.path.basename(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


def _at():
    """' at file.py:line' for messages, or ''."""
    where = _user_location()
    return f" at {where}" if where else ""


def _decomposed_norm(module):
    """A LayerNorm that tp's fused layer_norm (one normalized dim, a weight
    and a bias) does not cover: it runs its forward, whose F.layer_norm
    becomes the arithmetic (_layer_norm_ops) inside the module's scope."""
    return isinstance(module, nn.LayerNorm) and _stock_forward(module) and (
        len(module.normalized_shape) != 1 or not module.elementwise_affine)


def _stock_forward(module):
    """Whether a leaf layer (or a subclass) runs PyTorch's own forward; a
    subclass with its own forward is traced as a user module."""
    for base in _LEAF_LAYERS:
        if isinstance(module, base):
            return type(module).forward is base.forward
    return False


def _tensors_in(obj):
    """The tensors in nested tuples, lists and dicts."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _tensors_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors_in(o)


def _storage(t):
    """The address of a tensor's storage (0 for none: meta, empty), with
    the mode out of the way."""
    if _get_current_function_mode() is not None:
        with _pop_mode_temporarily():
            return _storage(t)
    try:
        return t.storage().data_ptr()
    except Exception:
        return 0


def _mutated(name, args, kwargs):
    """The tensor a call writes into in place, or None."""
    out = kwargs.get("out")
    if isinstance(out, torch.Tensor):
        return out
    first = args[0] if args else None
    if not isinstance(first, torch.Tensor):
        return None
    if kwargs.get("inplace") is True or name in _INPLACE_DUNDERS or \
            (name.endswith("_") and not name.startswith("__") and
             name not in _NOT_WRITES):
        return first
    return None


def _index_text(index):
    """`[0, :, None]` for messages."""
    items = index if isinstance(index, tuple) else (index,)
    parts = []
    for i in items:
        if isinstance(i, slice):
            text = ("" if i.start is None else str(i.start)) + ":" + \
                ("" if i.stop is None else str(i.stop))
            if i.step is not None:
                text += f":{i.step}"
            parts.append(text)
        elif i is Ellipsis:
            parts.append("...")
        elif isinstance(i, torch.Tensor):
            parts.append(f"<{str(i.dtype).replace('torch.', '')} tensor "
                         f"{list(i.shape)}>")
        else:
            parts.append(repr(i))
    return "[" + ", ".join(parts) + "]"


def _call(func, name, args, kwargs):
    """Runs a torch function for the user's code; what it raises (shapes
    that do not fit, ...) is the user's error, at the user's line."""
    try:
        return func(*args, **kwargs)
    except Exception as e:
        raise UserError(f"'{name}' raised {type(e).__name__}: {e}{_at()}")


def _norm_dim(dim, rank):
    return dim + rank if dim < 0 else dim


class _Args:
    """Positional-or-keyword access to a call's arguments."""

    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs

    def get(self, i, name, default=None):
        if i < len(self.args):
            return self.args[i]
        return self.kwargs.get(name, default)


class Tracer(TorchFunctionMode):
    """Records the forward of `root` (see the module docstring)."""

    def __init__(self, root):
        super().__init__()
        self.root = root
        self.module_names = {id(m): name for name, m in root.named_modules()}
        self.param_names = {id(p): name for name, p in root.named_parameters()}
        self.values = {}  # id(tensor) -> (tensor, Node)
        # Storage address -> what holds it, for the storages of inputs,
        # parameters and traced values (kept alive by `values`).
        self.traced_storage = {}
        self.param_storage = {}  # storage address -> parameter FQN
        for name, p in root.named_parameters():
            ptr = _storage(p)
            if ptr:
                self.param_storage.setdefault(ptr, name)
                self.traced_storage.setdefault(ptr, f"parameter '{name}'")
        # id(tensor) -> (tensor, message): traced views whose memory an
        # in-place op changed after they were recorded.
        self.stale = {}
        self.suppress = 0
        self.graph = Graph(Scope("", type(root).__name__, root, None))
        self.scopes = [self.graph.root]

    # -- values -----------------------------------------------------------

    @staticmethod
    def at():
        """' at file.py:line' of the user's call, for messages, or ''."""
        return _at()

    @staticmethod
    def location():
        """'file.py:line' of the user's call, or ''."""
        return _user_location()

    def _register(self, tensor, node):
        ptr = _storage(tensor)
        self.values[id(tensor)] = (tensor, node, ptr)
        self.stale.pop(id(tensor), None)
        if node.op != "const" and ptr:
            self.traced_storage.setdefault(ptr, "a traced value")
        return node

    def _check_read(self, t, reader, verb="reads"):
        """Refuses reading a tensor whose value the recorded program does
        not have: a stale view, or an alias of traced memory made past the
        recorder. `reader` is what reads it (`'mul'`)."""
        entry = self.stale.get(id(t))
        if entry is not None and entry[0] is t:
            raise UserError(f"{reader}{_at()} {verb} a tensor that "
                            f"{entry[1]}; tp-import records functional code "
                            f"only (write it out of place)")
        if self._lookup(t) is not None or id(t) in self.param_names:
            return
        ptr = _storage(t)
        held = self.traced_storage.get(ptr) if ptr else None
        if held is not None:
            raise UserError(
                f"{reader}{_at()} {verb} a tensor that shares memory with "
                f"{held} but was made where tp-import could not record it "
                f"(its value would become a constant)")

    def _wrote(self, t, name, recorded):
        """After `name` wrote into `t` in place: other recorded tensors on
        its memory are stale, constants on it are read again at their next
        use. `t`'s own entry stays when the call is `recorded` (its node,
        taken before the call, is an operand; the result replaces it)."""
        ptr = _storage(t)
        where = _user_location()
        for key, (other, node, other_ptr) in list(self.values.items()):
            if other is t and (recorded or node.op != "const"):
                continue
            if other is not t and (not ptr or other_ptr != ptr):
                continue
            if node.op == "const":
                del self.values[key]
            else:
                del self.values[key]
                self.stale[key] = (
                    other, f"'{name}' changed in place through a view or "
                    f"alias" + (f" at {where}" if where else ""))

    def _lookup(self, t):
        entry = self.values.get(id(t))
        if entry is not None and entry[0] is t:
            return entry[1]
        return None

    def is_traced(self, t):
        node = self._lookup(t)
        if node is not None:
            return node.op != "const"
        return id(t) in self.param_names

    def node_of(self, t):
        """The node of a tensor: traced value, parameter or constant."""
        node = self._lookup(t)
        if node is not None:
            return node
        if id(t) in self.param_names:
            name = self.param_names[id(t)]
            node = Node("param", [], t.shape, t.dtype, None, "",
                        attrs={"name": name})
            return self._register(t, node)
        self._check_read(t, "a constant")
        if isinstance(t, nn.Parameter):
            raise UserError(
                f"forward reads a parameter of shape {list(t.shape)} that is "
                f"not one of the model's{_at()} (created outside __init__?); "
                f"it would have no FQN and its value would become a constant")
        node = Node("const", [], t.shape, t.dtype, self.scopes[-1],
                    _user_location(), value=t.detach().clone())
        return self._register(t, node)

    def scalar(self, value, like):
        """A Python number as a rank-0 constant of `like`'s dtype."""
        dtype = like.dtype if like.dtype.is_floating_point else torch.float32
        # The value in double precision: an eps keeps its decimal value.
        return Node("const", [], (), dtype, self.scopes[-1], _user_location(),
                    value=torch.tensor(value, dtype=torch.float64))

    def operand(self, v, like):
        if isinstance(v, torch.Tensor):
            return self.node_of(v)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return self.scalar(v, like)
        return None

    def make(self, op, args, result, attrs=None):
        return self.make_shaped(op, args, result.shape, result.dtype, attrs)

    def make_shaped(self, op, args, shape, dtype, attrs=None):
        """A node of `shape` and `dtype` that no tensor of the run has (a
        step of an indexing that becomes several ops)."""
        node = Node(op, args, shape, dtype, self.scopes[-1],
                    _user_location(), attrs)
        self.scopes[-1].add(node)
        return node

    # -- inputs and the call ------------------------------------------------

    def run(self, inputs, as_kwargs):
        """Runs the root on `inputs` ([(name, tensor)]); returns the Graph."""
        for name, t in inputs:
            node = Node("input", [], t.shape, t.dtype, None, "",
                        attrs={"name": name})
            self._register(t, node)
            self.graph.inputs.append((name, node))
            ptr = _storage(t)
            if ptr:
                self.traced_storage.setdefault(ptr, f"input '{name}'")
        tensors = [t for _, t in inputs]
        original_call = nn.Module.__call__
        original_getitem = torch.Tensor.__getitem__
        tracer = self

        def call(module, *args, **kwargs):
            return tracer._call_module(original_call, module, args, kwargs)

        def getitem(t, index):
            # torch 1.13 does not give the mode an index of one element
            # (t[0], t[None], t[mask]); give it every index, as the C++
            # dispatcher would (the mode popped while it runs).
            if _get_current_function_mode() is not tracer:
                return original_getitem(t, index)
            with _pop_mode_temporarily():
                return tracer.__torch_function__(
                    original_getitem, (type(t),), (t, index), {})

        nn.Module.__call__ = call
        torch.Tensor.__getitem__ = getitem
        try:
            with torch.no_grad(), self:
                if as_kwargs:
                    out = self.root(**dict(inputs))
                else:
                    out = self.root(*tensors)
        finally:
            nn.Module.__call__ = original_call
            torch.Tensor.__getitem__ = original_getitem
        self._set_outputs(out)
        return self.graph

    def _set_outputs(self, out):
        if isinstance(out, dict):
            out = list(out.values())
        elif isinstance(out, torch.Tensor):
            out = [out]
        elif not isinstance(out, (tuple, list)):
            raise UserError(
                f"the module's forward returned {type(out).__name__}; "
                f"tp-import needs a tensor, or a tuple, list or dict of "
                f"tensors")
        for i, t in enumerate(out):
            if not isinstance(t, torch.Tensor):
                raise UserError(
                    f"output {i} of the module's forward is "
                    f"{type(t).__name__}, not a tensor")
            self._check_read(t, f"output {i} of the module's forward", "is")
            node = self._lookup(t)
            if node is None and id(t) in self.param_names:
                node = self.node_of(t)
            if node is None or node.op == "const":
                raise UserError(
                    f"output {i} of the module's forward does not depend on "
                    f"its inputs or parameters (a constant)")
            if selection.involves(node):
                raise UserError(
                    f"output {i} of the module's forward has as many rows as "
                    f"a torch.where(mask) selected: its size depends on the "
                    f"data (add the rows back with index_add_)")
            self.graph.outputs.append(node)

    # -- modules --------------------------------------------------------------

    def _call_module(self, original_call, module, args, kwargs):
        if self.suppress:
            return original_call(module, *args, **kwargs)
        fqn = self.module_names.get(id(module))
        cls = type(module)
        if cls in _ACTIVATIONS or isinstance(module, (nn.Identity,
                                                      nn.Softmax)):
            # Functional ops without an FQN: record what the call does.
            return original_call(module, *args, **kwargs)
        if fqn is None and not any(True for _ in module.parameters()) and \
                not any(True for _ in module.buffers()):
            # A module made in forward without state (Hugging Face's
            # `loss_fct = CrossEntropyLoss()`): the functions it calls.
            return original_call(module, *args, **kwargs)
        if fqn is None:
            raise UserError(
                f"forward calls a {cls.__name__} that is not a submodule of "
                f"the model (created outside __init__?)"
                f"{_at()}; its parameters would have no FQN")
        if isinstance(module, _LEAF_LAYERS) and _stock_forward(module) and \
                not _decomposed_norm(module):
            return self._leaf(original_call, module, fqn, args, kwargs)
        if (cls.__module__.startswith("torch.nn")
                and not isinstance(module, _CONTAINERS) and fqn != ""
                and not _decomposed_norm(module)):
            raise UserError(
                f"unsupported layer torch.nn.{cls.__name__} at module "
                f"'{fqn}'{_at()}; tp-import supports "
                f"Linear, Embedding, LayerNorm, Dropout, ReLU, GELU, SiLU, "
                f"Tanh, Sigmoid, Softmax, Identity, Sequential and user "
                f"modules built from them")
        if fqn == "":
            return original_call(module, *args, **kwargs)
        call_args = {}
        try:
            bound = inspect.signature(module.forward).bind(*args, **kwargs)
            for pname, value in bound.arguments.items():
                if isinstance(value, torch.Tensor) and self.is_traced(value):
                    call_args.setdefault(self.node_of(value), pname)
        except (TypeError, ValueError):
            pass
        scope = Scope(fqn, cls.__name__, module, self.scopes[-1], call_args)
        self.scopes[-1].add(scope)
        self.scopes.append(scope)
        try:
            return original_call(module, *args, **kwargs)
        finally:
            self.scopes.pop()

    def _leaf(self, original_call, module, fqn, args, kwargs):
        self.suppress += 1
        try:
            out = original_call(module, *args, **kwargs)
        finally:
            self.suppress -= 1
        ins = list(args) + list(kwargs.values())
        if len(ins) != 1 or not isinstance(ins[0], torch.Tensor):
            raise UserError(
                f"{type(module).__name__} '{fqn}' takes one tensor "
                f"(called{_at()})")
        x = ins[0]
        self._check_read(x, f"{type(module).__name__} '{fqn}'")
        if self._lookup(x) is not None and selection.involves(self._lookup(x)):
            return self._leaf_rows(module, fqn, x, out)
        if isinstance(module, nn.Dropout):
            if not self.is_traced(x):
                return out
            node = self.make("dropout", [self.node_of(x)], out,
                             {"fqn": fqn, "p": float(module.p)})
        elif isinstance(module, nn.Linear):
            operands = [self.node_of(x), self.node_of(module.weight)]
            if module.bias is not None:
                operands.append(self.node_of(module.bias))
            node = self.make("linear", operands, out, {"fqn": fqn})
        elif isinstance(module, nn.Embedding):
            if module.max_norm is not None:
                raise UserError(f"Embedding '{fqn}' has max_norm, which "
                                f"tp's model.embedding does not support")
            node = self.make("embedding",
                             [self.node_of(x), self.node_of(module.weight)],
                             out, {"fqn": fqn})
        else:  # LayerNorm of one dim with affine (_decomposed_norm: others)
            node = self.make("layer_norm",
                             [self.node_of(x), self.node_of(module.weight),
                              self.node_of(module.bias)],
                             out, {"fqn": fqn, "eps": float(module.eps)})
        self._register(out, node)
        return out

    def _leaf_rows(self, module, fqn, x, out):
        """A row-wise leaf layer on rows a torch.where(mask) selected."""
        kind = f"{type(module).__name__} '{fqn}'"
        n = self.node_of(x)
        if selection.coordinate(n) is not None or \
                isinstance(module, nn.Embedding):
            sel = (selection.coordinate(n) or selection.selected(n))[0]
            raise UserError(
                f"{kind}{_at()} reads {sel.describe()}: tp-import follows "
                f"such rows through Linear, LayerNorm and Dropout only")
        if isinstance(module, nn.Linear):
            operands = [n, self.node_of(module.weight)]
            if module.bias is not None:
                operands.append(self.node_of(module.bias))
            sel, p, shape = selection.leaf_rows(self, kind, x,
                                                module.out_features)
            node = self.make_shaped("linear", operands, shape, out.dtype,
                                    {"fqn": fqn})
        elif isinstance(module, nn.LayerNorm):
            if len(module.normalized_shape) != 1 or \
                    not module.elementwise_affine:
                return self._leaf_rows_refused(kind, n)
            sel, p, shape = selection.leaf_rows(self, kind, x,
                                                module.normalized_shape[0])
            node = self.make_shaped(
                "layer_norm", [n, self.node_of(module.weight),
                               self.node_of(module.bias)],
                shape, out.dtype, {"fqn": fqn, "eps": float(module.eps)})
        else:  # Dropout: eval mode
            sel, p = selection.selected(n)
            node = self.make_shaped("dropout", [n], n.shape, out.dtype,
                                    {"fqn": fqn, "p": float(module.p)})
        node.attrs["rows_of"], node.attrs["rows_at"] = sel, p
        self._register(out, node)
        return out

    def _leaf_rows_refused(self, kind, n):
        sel = selection.selected(n)[0]
        raise UserError(f"{kind}{_at()} reads {sel.describe()}; tp-import "
                        f"follows them through a LayerNorm of the last dim "
                        f"with weight and bias only")

    # -- functions ---------------------------------------------------------

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        if name == "__get__":  # a property: `.data`, `.T`, ...
            name = getattr(getattr(func, "__self__", None), "__name__", name)
        if self.suppress:
            return _call(func, name, args, kwargs)
        tensors = list(_tensors_in((args, kwargs)))
        for t in tensors:
            self._check_read(t, f"'{name}'")
        traced = [t for t in tensors if self.is_traced(t)]
        if traced and name in _WRITES:
            raise UserError(
                f"'{name}' writes into a traced tensor{_at()}; "
                f"tp-import records functional code only")
        mutated = _mutated(name, args, kwargs)
        if mutated is not None:
            param = self.param_storage.get(_storage(mutated))
            if param is not None:
                raise UserError(
                    f"'{name}' writes into parameter '{param}'{_at()}; "
                    f"tp-import records functional code only")
        if mutated is not None and traced:
            # The operands as they are before the call writes into one (a
            # constant's value is read when its node is made).
            for t in tensors:
                self.node_of(t)
        result = _call(func, name, args, kwargs)
        if mutated is not None:
            self._wrote(mutated, name, bool(traced))
        if not traced:
            return result  # computed from constants: a constant
        if name in ("shape", "size", "__len__", "numel") and args:
            n = self._lookup(args[0])
            if n is not None and selection.involves(n):
                selection.size_read(self, name, n, args[0])
        if name in _DATA_DEPENDENT:
            raise UserError(
                f"'{name}' reads the values of a traced tensor{_at()}: code "
                f"that depends on the data cannot become a static program")
        if isinstance(result, torch.Tensor):
            node = self._record(name, func, _Args(args, kwargs), result)
            self._register(result, node)
        elif isinstance(result, (tuple, list)) and any(
                isinstance(r, torch.Tensor) for r in result):
            handler = _MULTI_HANDLERS.get(name)
            a = _Args(args, kwargs)
            x = a.get(0, "input")
            self._refuse_rows(name, _tensors_in((args, kwargs)))
            nodes = handler(self, name, a, x, result) \
                if handler is not None and isinstance(x, torch.Tensor) and \
                all(isinstance(r, torch.Tensor) for r in result) else None
            message = None
            if nodes is None:
                nodes, message = self._aten(name, func, a)
            if nodes is not None:
                for r, node in zip(result, nodes):
                    if isinstance(r, torch.Tensor) and node is not None:
                        self._register(r, node)
                return result
            operands = [self.node_of(t) for t in _tensors_in((args, kwargs))]
            for r in result:
                if isinstance(r, torch.Tensor):
                    node = self.make("torch." + name, operands, r,
                                     {"torch_name": name})
                    if message:
                        node.attrs["message"] = message
                    self._register(r, node)
        return result

    def _aten(self, name, func, a):
        """The nodes of `func`'s results recorded at the ATen level
        (aten.py) and None, or None and why that failed (None when the call
        must not run again: in place, random, or a form a pattern reads)."""
        if name in _NO_ATEN or _mutated(name, a.args, a.kwargs) is not None:
            return None, None
        from . import aten
        try:
            return aten.record(self, name, func, a.args, a.kwargs), None
        except aten.NoRule as e:
            return None, (f"unsupported function (it runs ATen op {e}, "
                          f"which tp-import has no rule for)")

    def _refuse_rows(self, name, tensors):
        """Refuses a call the selection rules do not read whose operands
        include rows (or coordinates) of a torch.where(mask)."""
        for t in tensors:
            n = self._lookup(t)
            if n is not None and selection.involves(n):
                sel = (selection.coordinate(n) or selection.selected(n))[0]
                selection.refuse(self, name, sel)

    def _raw(self, name, a, result):
        """A call kept as `torch.<name>` for the patterns to look at."""
        self._refuse_rows(name, _tensors_in((a.args, a.kwargs)))
        operands = [self.node_of(t) for t in _tensors_in((a.args, a.kwargs))]
        return self.make("torch." + name, operands, result,
                         {"torch_name": name})

    def _record(self, name, func, a, result):
        x = a.get(0, "input")
        if not isinstance(x, torch.Tensor):
            x = next(_tensors_in((a.args, a.kwargs)))
        if any(self._lookup(t) is not None and
               selection.involves(self._lookup(t))
               for t in _tensors_in((a.args, a.kwargs))):
            return _rows(self, name, a, x, result)
        handler = _HANDLERS.get(name)
        if handler is not None:
            node = handler(self, name, a, x, result)
            if node is not None:
                return node
        nodes, message = self._aten(name, func, a)
        if nodes is not None and len(nodes) == 1 and nodes[0] is not None:
            return nodes[0]
        node = self._raw(name, a, result)
        if message:
            node.attrs.setdefault("message", message)
        return node


# -- handlers: each returns the node for a call, or None to keep it raw -----


def _binary(op, swap=False):
    def handle(tr, name, a, x, result):
        if a.kwargs.get("alpha", 1) != 1 or len(a.args) > 2:
            return None
        lhs, rhs = a.get(0, "input"), a.get(1, "other")
        if swap:
            lhs, rhs = rhs, lhs
        like = x
        lhs, rhs = tr.operand(lhs, like), tr.operand(rhs, like)
        if lhs is None or rhs is None:
            return None
        return tr.make(op, [lhs, rhs], result)
    return handle


def _matmul(swap=False):
    """`@` / torch.matmul / mm / bmm: a 1-D operand is a matrix of one row
    (lhs) or column (rhs) whose dim the result drops, as torch.matmul."""
    def handle(tr, name, a, x, result):
        lhs, rhs = a.get(0, "input"), a.get(1, "other")
        if swap:
            lhs, rhs = rhs, lhs
        if not isinstance(lhs, torch.Tensor) or \
                not isinstance(rhs, torch.Tensor) or \
                lhs.dim() == 0 or rhs.dim() == 0:
            return None
        ln, rn = tr.node_of(lhs), tr.node_of(rhs)
        if lhs.dim() >= 2 and rhs.dim() >= 2:
            return tr.make("matmul", [ln, rn], result)
        lshape = tuple(lhs.shape) if lhs.dim() >= 2 else (1, lhs.shape[0])
        rshape = tuple(rhs.shape) if rhs.dim() >= 2 else (rhs.shape[0], 1)
        if lhs.dim() == 1:
            ln = tr.make_shaped("reshape", [ln], lshape, lhs.dtype)
        if rhs.dim() == 1:
            rn = tr.make_shaped("reshape", [rn], rshape, rhs.dtype)
        batch = list(torch.broadcast_shapes(lshape[:-2], rshape[:-2]))
        prod = tr.make_shaped("matmul", [ln, rn],
                              tuple(batch + [lshape[-2], rshape[-1]]),
                              result.dtype)
        return tr.make("reshape", [prod], result)
    return handle


def _div(tr, name, a, x, result):
    if a.kwargs.get("rounding_mode") is not None:
        return None
    lhs, rhs = a.get(0, "input"), a.get(1, "other")
    if isinstance(rhs, (int, float)) and not isinstance(rhs, bool) and rhs:
        return tr.make("mul", [tr.node_of(lhs), tr.scalar(1.0 / rhs, lhs)],
                       result)
    if isinstance(rhs, torch.Tensor) and not tr.is_traced(rhs) and \
            rhs.numel() == 1 and float(rhs) != 0:
        return tr.make("mul", [tr.node_of(lhs),
                               tr.scalar(1.0 / float(rhs), lhs)], result)
    return _binary("div")(tr, name, a, x, result)


def _unary(op):
    def handle(tr, name, a, x, result):
        if name == "gelu" and a.get(1, "approximate", "none") != "none":
            return None  # the tanh form: not tp's gelu
        if name in ("relu", "relu_") and len(a.args) > 1:
            return None
        return tr.make(op, [tr.node_of(x)], result)
    return handle


_CAST_TYPES = (torch.float32, torch.bfloat16, torch.float16)
_INT_TYPES = (torch.int64, torch.int32)


def _identity_or_cast(tr, name, a, x, result):
    """A call that keeps the value (`contiguous`, `.to(same dtype)`) is it;
    one that changes the dtype to a float type is model.cast (from a float
    or an int64/int32 tensor)."""
    if tuple(result.shape) != tuple(x.shape):
        return None
    if result.dtype == x.dtype:
        return tr.node_of(x)
    if result.dtype in _CAST_TYPES and (x.dtype in _CAST_TYPES or
                                        x.dtype in _INT_TYPES or
                                        x.dtype == torch.bool):
        return tr.make("cast", [tr.node_of(x)], result)
    if result.dtype == torch.bool and (x.dtype in _CAST_TYPES or
                                       x.dtype in _INT_TYPES):
        return tr.make("cast", [tr.node_of(x)], result)  # nonzero
    return None


def _dropout(tr, name, a, x, result):
    if a.get(2, "training", True) and a.get(1, "p", 0.5) > 0:
        return None  # a training-mode functional dropout: raw, an error
    return tr.node_of(x)


def _view(tr, name, a, x, result):
    if result.numel() != x.numel() or result.dtype != x.dtype:
        return None
    if tuple(result.shape) == tuple(x.shape):
        return tr.node_of(x)
    return tr.make("reshape", [tr.node_of(x)], result)


def _expand(tr, name, a, x, result):
    """expand / expand_as / broadcast_to: model.expand (a copy along the
    stretched dims; repeat_kv's is folded into the attention when one
    reads it)."""
    if result.dtype != x.dtype:
        return None
    if tuple(result.shape) == tuple(x.shape):
        return tr.node_of(x)
    return tr.make("expand", [tr.node_of(x)], result)


def _getitem(tr, name, a, x, result):
    """Basic indexing (ints, slices with a positive step, None, `...`) is
    a model.slice per dim it cuts and a reshape for the dims ints drop and
    None adds; an index that keeps every element is the reshape alone.
    Tensor, list and bool indices (advanced indexing) are refused, never
    read as a constant."""
    index = a.get(1, "idx")
    if x is not a.get(0, "input"):
        return None
    index = _list_as_slice(index, x.shape)
    if _keeps_all(index, x.shape):
        return _view(tr, name, a, x, result)
    dims = _basic_index(index, x.dim())
    if dims is None:
        node = tr._raw(name, a, result)
        node.attrs["message"] = (
            f"unsupported indexing {_index_text(index)} of a tensor of shape "
            f"{list(x.shape)} (tp-import supports ints, slices with a "
            f"positive step, None, ... and one list of evenly increasing "
            f"ints; not tensors, other lists or bools)")
        return node
    node = tr.node_of(x)
    shape = list(x.shape)
    for d, item in enumerate(dims):
        if isinstance(item, int):
            start, step, count = _norm_dim(item, shape[d]), 1, 1
        else:
            start, stop, step = item.indices(shape[d])
            count = len(range(start, stop, step))
        if (start, step, count) == (0, 1, shape[d]):
            continue
        shape[d] = count
        node = tr.make_shaped("slice", [node], shape, x.dtype,
                              {"dim": d, "start": start if count else 0,
                               "step": step})
    if tuple(shape) != tuple(result.shape):
        node = tr.make("reshape", [node], result)
    return node


def _list_as_slice(index, shape):
    """`index` with a list of evenly increasing ints (Falcon's
    `fused_qkv[:, :, [-2]]`) as the slice that picks the same elements,
    when it is the only advanced index (no int beside it: NumPy's rules
    would then move the indexed dim); any other index as it is."""
    items = index if isinstance(index, tuple) else (index,)
    lists = [i for i, item in enumerate(items) if isinstance(item, list)]
    if len(lists) != 1 or any(type(item) is int for item in items):
        return index
    values = items[lists[0]]
    if not values or any(type(v) is not int for v in values):
        return index
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    dim = 0
    for item in items[:lists[0]]:
        if item is Ellipsis:
            dim += len(shape) - used
        elif item is not None:
            dim += 1
    if dim >= len(shape) or any(not -shape[dim] <= v < shape[dim]
                                for v in values):
        return index
    values = [v % shape[dim] for v in values]
    step = values[1] - values[0] if len(values) > 1 else 1
    if step <= 0 or any(b - a != step for a, b in zip(values, values[1:])):
        return index
    as_slice = slice(values[0], values[-1] + 1, step)
    items = items[:lists[0]] + (as_slice,) + items[lists[0] + 1:]
    return items if isinstance(index, tuple) else items[0]


def _basic_index(index, rank):
    """Per dim of the indexed tensor, its int or slice (None and `...`
    resolved), or None for advanced indexing."""
    items = index if isinstance(index, tuple) else (index,)
    if any(type(i) not in (int, slice, type(None), type(Ellipsis))
           for i in items):
        return None
    if any(isinstance(i, slice) and
           not all(v is None or type(v) is int
                   for v in (i.start, i.stop, i.step)) for i in items):
        return None
    if any(isinstance(i, slice) and i.step is not None and i.step <= 0
           for i in items):
        return None
    used = [i for i in items if i is not None and i is not Ellipsis]
    if len(used) > rank or sum(i is Ellipsis for i in items) > 1:
        return None
    dims = []
    for i in items:
        if i is Ellipsis:
            dims.extend([slice(None)] * (rank - len(used)))
        elif i is not None:
            dims.append(i)
    dims.extend([slice(None)] * (rank - len(dims)))
    return dims


def _keeps_all(index, shape):
    """Whether `t[index]` has every element of `t` in order: an index of
    None, `...`, slices covering their dim and ints on dims of size 1."""
    items = index if isinstance(index, tuple) else (index,)
    if any(type(i) not in (int, slice, type(None), type(Ellipsis))
           for i in items):
        return False  # tensors, lists, bools: advanced indexing
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if used > len(shape) or sum(i is Ellipsis for i in items) > 1:
        return False
    dims = []
    for i in items:
        if i is Ellipsis:
            dims.extend([slice(None)] * (len(shape) - used))
        elif i is not None:
            dims.append(i)
    for i, size in zip(dims, shape):
        if isinstance(i, int):
            if size != 1 or i not in (0, -1):
                return False
        elif i.indices(size) != (0, size, 1) and size > 0:
            return False
    return True


def _property(tr, name, a, x, result):
    """`.data` is the value itself; `.T` and `.mT` are transposes."""
    if name == "data":
        return _identity_or_cast(tr, name, a, x, result)
    rank = x.dim()
    if name == "T":
        perm = list(reversed(range(rank)))
    elif rank >= 2:
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    else:
        return None
    if perm == list(range(rank)):
        return tr.node_of(x)
    return tr.make("transpose", [tr.node_of(x)], result, {"perm": perm})


def _transpose(tr, name, a, x, result):
    rank = x.dim()
    perm = list(range(rank))
    if name == "permute":
        dims = a.args[1:] if len(a.args) > 1 else a.kwargs.get("dims")
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = dims[0]
        perm = [_norm_dim(d, rank) for d in dims]
    elif name in ("t",):
        perm = list(reversed(perm))
    else:
        d0 = _norm_dim(a.get(1, "dim0"), rank)
        d1 = _norm_dim(a.get(2, "dim1"), rank)
        perm[d0], perm[d1] = perm[d1], perm[d0]
    if perm == list(range(rank)):
        return tr.node_of(x)
    return tr.make("transpose", [tr.node_of(x)], result, {"perm": perm})


def _softmax(tr, name, a, x, result):
    dim = a.get(1, "dim")
    if dim is None or result.dtype != x.dtype:
        return None
    return tr.make("softmax", [tr.node_of(x)], result,
                   {"dim": _norm_dim(dim, x.dim())})


def _pow(tr, name, a, x, result):
    exponent = a.get(1, "exponent")
    if isinstance(exponent, (int, float)) and exponent == 2:
        n = tr.node_of(x)
        return tr.make("mul", [n, n], result)
    if isinstance(exponent, (int, float)) and exponent == 1:
        return tr.node_of(x)
    if isinstance(exponent, (int, float)) and not isinstance(exponent, bool) \
            and x is a.get(0, "input") and math.isfinite(exponent):
        return tr.make("pow", [tr.node_of(x)], result,
                       {"exponent": float(exponent)})
    return None


def _reduce(kind):
    def handle(tr, name, a, x, result):
        dim = a.get(1, "dim")
        keepdim = bool(a.get(2, "keepdim", False))
        if a.kwargs.get("dtype") is not None and result.dtype != x.dtype:
            return None
        if dim is None:
            if kind == "max":
                return None
            dims = list(range(x.dim()))
        else:
            dims = [dim] if isinstance(dim, int) else list(dim)
        dims = sorted(_norm_dim(d, x.dim()) for d in dims)
        return tr.make("reduce", [tr.node_of(x)], result,
                       {"kind": kind, "dims": dims, "keepdim": keepdim})
    return handle


def _reduce_dims(dim, rank):
    if dim is None:
        return list(range(rank))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted(_norm_dim(d, rank) for d in dims)


def _kept(shape, dims):
    return [1 if i in dims else s for i, s in enumerate(shape)]


def _centered(tr, x, dims):
    """x's mean over `dims` (kept), x minus it, and that squared."""
    xn = tr.node_of(x)
    mean = tr.make_shaped("reduce", [xn], _kept(x.shape, dims), x.dtype,
                          {"kind": "mean", "dims": dims, "keepdim": True})
    centered = tr.make_shaped("sub", [xn, mean], x.shape, x.dtype)
    return mean, centered, tr.make_shaped("mul", [centered, centered],
                                          x.shape, x.dtype)


def _centered_squares(tr, x, dims):
    """x minus its mean over `dims` (kept), and that squared."""
    return _centered(tr, x, dims)[1:]


def _variance(tr, name, a, x, result):
    """var / std over dims as mean, centered squares and their sum over
    `n - correction` (PyTorch's unbiased default: correction 1)."""
    if not x.dtype.is_floating_point or result.dtype != x.dtype:
        return None
    unbiased = a.get(2, "unbiased")
    correction = a.kwargs.get("correction")
    if isinstance(unbiased, bool):
        keepdim = bool(a.get(3, "keepdim", False))
        correction = 1 if unbiased else 0
    else:
        keepdim = bool(a.kwargs.get("keepdim", False))
        correction = 1 if correction is None else correction
    dims = _reduce_dims(a.get(1, "dim"), x.dim())
    count = 1
    for d in dims:
        count *= x.shape[d]
    if not isinstance(correction, (int, float)) or count - correction <= 0:
        return None
    _, squares = _centered_squares(tr, x, dims)
    total = tr.make_shaped("reduce", [squares], result.shape, x.dtype,
                           {"kind": "sum", "dims": dims, "keepdim": keepdim})
    node = tr.make_shaped("mul", [total, tr.scalar(1.0 / (count - correction),
                                                    x)],
                          result.shape, x.dtype)
    if name == "std":
        node = tr.make_shaped("sqrt", [node], result.shape, x.dtype)
    return node


def _log_sum_exp(tr, xn, x, dim):
    """(x - max, log(sum(exp(x - max)))) along `dim`, kept."""
    kept = _kept(x.shape, [dim])
    mx = tr.make_shaped("reduce", [xn], kept, x.dtype,
                        {"kind": "max", "dims": [dim], "keepdim": True})
    shifted = tr.make_shaped("sub", [xn, mx], x.shape, x.dtype)
    e = tr.make_shaped("exp", [shifted], x.shape, x.dtype)
    s = tr.make_shaped("reduce", [e], kept, x.dtype,
                       {"kind": "sum", "dims": [dim], "keepdim": True})
    return mx, shifted, tr.make_shaped("log", [s], kept, x.dtype)


def _log_softmax(tr, name, a, x, result):
    """log_softmax as `(x - max) - log(sum(exp(x - max)))` (the max only
    keeps exp in range; the result does not depend on it)."""
    dim = a.get(1, "dim")
    if not isinstance(dim, int) or not x.dtype.is_floating_point:
        return None
    xn = tr.node_of(x)
    if result.dtype != x.dtype:  # dtype=: the input cast first
        if result.dtype not in _CAST_TYPES:
            return None
        xn = tr.make_shaped("cast", [xn], x.shape, result.dtype)
        x = x.to(result.dtype)
    _, shifted, lse = _log_sum_exp(tr, xn, x, _norm_dim(dim, x.dim()))
    return tr.make("sub", [shifted, lse], result)


def _logsumexp(tr, name, a, x, result):
    dim = a.get(1, "dim")
    keepdim = bool(a.get(2, "keepdim", False))
    dims = _reduce_dims(dim, x.dim())
    if len(dims) != 1 or not x.dtype.is_floating_point:
        return None
    mx, _, lse = _log_sum_exp(tr, tr.node_of(x), x, dims[0])
    node = tr.make_shaped("add", [lse, mx], _kept(x.shape, dims), x.dtype)
    if not keepdim:
        node = tr.make("reshape", [node], result)
    return node


def _repeat_interleave(tr, name, a, x, result):
    repeats, dim = a.get(1, "repeats"), a.get(2, "dim")
    if not isinstance(repeats, int) or dim is None:
        return None
    return tr.make("repeat_heads", [tr.node_of(x)], result,
                   {"dim": _norm_dim(dim, x.dim()), "n": repeats})


def _masked_fill(tr, name, a, x, result):
    mask, value = a.get(1, "mask"), a.get(2, "value")
    if isinstance(value, torch.Tensor):
        if tr.is_traced(value) or value.numel() != 1:
            return None
        value = float(value)
    return tr.make("torch.masked_fill", [tr.node_of(x), tr.node_of(mask)],
                   result, {"torch_name": "masked_fill", "value": value})


def _cat(tr, name, a, x, result):
    """torch.cat / torch.concat of tensors along one dim."""
    tensors, dim = a.get(0, "tensors"), a.get(1, "dim", 0)
    if not isinstance(tensors, (tuple, list)) or not isinstance(dim, int):
        return None
    # torch.cat skips empty 1-D tensors; tp's concat takes equal ranks.
    parts = [t for t in tensors if t.dim() == result.dim()]
    if len(parts) != len(tensors):
        return None
    if len(parts) == 1:
        return tr.node_of(parts[0])
    return tr.make("concat", [tr.node_of(t) for t in parts], result,
                   {"dim": _norm_dim(dim, result.dim())})


def _pieces(tr, name, a, x, results):
    """split / chunk / tensor_split / unbind: the pieces follow one another
    along one dim, so each is a slice (unbind's then drop the dim)."""
    if name == "unbind":
        dim = a.get(1, "dim", 0)
    elif name in ("split", "tensor_split"):
        dim = a.get(2, "dim", 0)
    else:
        dim = a.get(2, "dim", 0)
    if not isinstance(dim, int):
        return None
    dim = _norm_dim(dim, x.dim())
    nodes, start = [], 0
    for r in results:
        count = 1 if name == "unbind" else r.shape[dim]
        shape = list(x.shape)
        shape[dim] = count
        node = tr.make_shaped("slice", [tr.node_of(x)], shape, x.dtype,
                              {"dim": dim, "start": start, "step": 1})
        if name == "unbind":
            node = tr.make("reshape", [node], r)
        nodes.append(node)
        start += count
    return nodes


def _narrow(tr, name, a, x, result):
    dim, start = a.get(1, "dim"), a.get(2, "start")
    if not isinstance(dim, int) or not isinstance(start, int):
        return None
    dim = _norm_dim(dim, x.dim())
    return tr.make("slice", [tr.node_of(x)], result,
                   {"dim": dim, "start": _norm_dim(start, x.shape[dim]),
                    "step": 1})


def _addmm(tr, name, a, x, result):
    """torch.addmm(bias, x, weight): HF's Conv1D, whose weight is [in, out],
    is the linear of its owner module (weight transposed, so that a style
    on the module means the same output and input features as on an
    nn.Linear); any other addmm is a matmul plus the bias."""
    bias, m1, m2 = a.get(0, "input"), a.get(1, "mat1"), a.get(2, "mat2")
    if a.kwargs.get("beta", 1) != 1 or a.kwargs.get("alpha", 1) != 1 or \
            len(a.args) > 3 or not isinstance(m1, torch.Tensor) or \
            not isinstance(m2, torch.Tensor):
        return None
    wname = tr.param_names.get(id(m2))
    bname = tr.param_names.get(id(bias)) if isinstance(bias,
                                                      torch.Tensor) else None
    owner = wname.rsplit(".", 1)[0] if wname and "." in wname else None
    if owner and bname and bname.rsplit(".", 1)[0] == owner and \
            bias.dim() == 1 and bias.shape[0] == m2.shape[1]:
        return tr.make("linear", [tr.node_of(m1), tr.node_of(m2),
                                  tr.node_of(bias)], result,
                       {"fqn": owner, "weight_transposed": True})
    product = tr.make_shaped("matmul", [tr.node_of(m1), tr.node_of(m2)],
                             result.shape, result.dtype)
    other = tr.operand(bias, result)
    if other is None:
        return None
    return tr.make("add", [product, other], result)


def _where(tr, name, a, x, result):
    """torch.where(mask, x, fill) with a constant boolean mask and a
    one-element constant fill is masked_fill(x, ~mask, fill): the form the
    attention pattern reads (GPT-2's causal mask from its `bias` buffer)."""
    cond, x, fill = a.get(0, "condition"), a.get(1, "input"), \
        a.get(2, "other")
    if not isinstance(cond, torch.Tensor) or cond.dtype != torch.bool or \
            tr.is_traced(cond) or not isinstance(x, torch.Tensor) or \
            not tr.is_traced(x):
        return _select(tr, cond, x, fill, result)
    if isinstance(fill, torch.Tensor):
        if tr.is_traced(fill) or fill.numel() != 1:
            return None
        fill = float(fill)
    if not isinstance(fill, (int, float)) or \
            tuple(result.shape) != tuple(x.shape):
        return _select(tr, cond, x, fill, result)
    mask = tr.node_of(torch.logical_not(cond))
    return tr.make("torch.masked_fill", [tr.node_of(x), mask], result,
                   {"torch_name": "where", "value": float(fill)})


def _number(tr, value, like):
    """A Python number next to tensor `like` as a rank-0 constant: in
    `like`'s integer dtype when both are integers (ids compared with a
    pad id), else as tr.scalar makes it."""
    if isinstance(value, (bool, int)) and (like.dtype in _INT_TYPES or
                                           like.dtype == torch.bool):
        dtype = like.dtype if like.dtype in _INT_TYPES else torch.int64
        return Node("const", [], (), dtype, tr.scopes[-1], _user_location(),
                    value=torch.tensor(int(value), dtype=dtype))
    if isinstance(value, (int, float)):
        return tr.scalar(value, like)
    return None


def _compare(pred):
    """x < y, torch.eq(x, y), ...: a boolean mask (model.compare)."""
    def handle(tr, name, a, x, result):
        lhs, rhs = a.get(0, "input"), a.get(1, "other")
        if result.dtype != torch.bool or len(a.args) > 2:
            return None
        like = lhs if isinstance(lhs, torch.Tensor) else rhs
        nodes = [tr.node_of(v) if isinstance(v, torch.Tensor)
                 else _number(tr, v, like) for v in (lhs, rhs)]
        if None in nodes:
            return None
        return tr.make("compare", nodes, result, {"predicate": pred})
    return handle


def _logical(op):
    """~m, m & n, m | n (and the logical_ functions) on boolean masks."""
    def handle(tr, name, a, x, result):
        operands = [a.get(0, "input")] + ([] if op == "logical_not" else
                                          [a.get(1, "other")])
        if result.dtype != torch.bool or not all(
                isinstance(v, torch.Tensor) and v.dtype == torch.bool
                for v in operands):
            return None
        return tr.make(op, [tr.node_of(v) for v in operands], result)
    return handle


def _select(tr, cond, x, y, result):
    """where(cond, x, y) for a boolean `cond` and float `x`, `y` (tensors
    or numbers)."""
    if not result.dtype.is_floating_point or \
            not isinstance(cond, torch.Tensor) or cond.dtype != torch.bool:
        return None
    nodes = [tr.node_of(cond)]
    for v in (x, y):
        if isinstance(v, torch.Tensor):
            if v.dtype != result.dtype:
                return None
            nodes.append(tr.node_of(v))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            nodes.append(tr.scalar(v, result))
        else:
            return None
    return tr.make("where", nodes, result)


def _clamp(tr, name, a, x, result):
    """clamp / clip / clamp_min / clamp_max with numbers: where(x < min,
    min, x), then where(x > max, max, ...) (a NaN stays NaN; the gradient
    passes where min <= x <= max, as PyTorch's)."""
    if name == "clamp_min":
        lo, hi = a.get(1, "min"), None
    elif name == "clamp_max":
        lo, hi = None, a.get(1, "max")
    else:
        lo, hi = a.get(1, "min"), a.get(2, "max")
    if not x.dtype.is_floating_point or any(
            v is not None and (not isinstance(v, (int, float)) or
                               isinstance(v, bool)) for v in (lo, hi)):
        return None
    node = tr.node_of(x)
    mask_shape = tuple(x.shape)
    for bound, pred in ((lo, "lt"), (hi, "gt")):
        if bound is None:
            continue
        c = tr.scalar(bound, x)
        m = tr.make_shaped("compare", [node, c], mask_shape, torch.bool,
                           {"predicate": pred})
        node = tr.make_shaped("where", [m, tr.scalar(bound, x), node],
                              mask_shape, x.dtype)
    return node


def _cross_entropy(tr, name, a, x, result):
    """F.cross_entropy of logits [N, C] and class ids [N], averaged over
    the rows whose target is not -100 (PyTorch's defaults)."""
    target = a.get(1, "target")
    if x.dim() != 2 or not isinstance(target, torch.Tensor) or \
            target.dim() != 1 or target.dtype not in (torch.int64,
                                                      torch.int32):
        return None
    if a.get(2, "weight") is not None or \
            a.get(3, "size_average") is not None or \
            a.get(4, "ignore_index", -100) != -100 or \
            a.get(5, "reduce") is not None or \
            a.get(6, "reduction", "mean") != "mean" or \
            a.get(7, "label_smoothing", 0.0) != 0.0:
        return None
    return tr.make("cross_entropy", [tr.node_of(x), tr.node_of(target)],
                   result)


def _param_leaf(op):
    """F.linear / F.embedding / F.layer_norm called on parameters: the
    leaf module is the parameters' owner."""
    def handle(tr, name, a, x, result):
        if op == "layer_norm":
            shape = a.get(1, "normalized_shape")
            w, b = a.get(2, "weight"), a.get(3, "bias")
            eps = float(a.get(4, "eps", 1e-5))
            if len(shape) != 1 or w is None or b is None or \
                    tr.param_names.get(id(w)) is None or \
                    tr.param_names.get(id(b)) is None:
                return _layer_norm_ops(tr, x, len(shape), w, b, eps, result)
            operands = [x, w, b]
            attrs = {"eps": eps}
        elif op == "embedding":
            w = a.get(1, "weight")
            if a.get(3, "max_norm") is not None:
                return None
            operands, attrs = [x, w], {}
        else:
            w, b = a.get(1, "weight"), a.get(2, "bias")
            operands = [x, w] + ([b] if b is not None else [])
            attrs = {}
        wname = tr.param_names.get(id(w))
        if wname is None:
            return None
        attrs["fqn"] = wname.rsplit(".", 1)[0] if "." in wname else wname
        return tr.make(op, [tr.node_of(t) for t in operands], result, attrs)
    return handle


def _topk(tr, name, a, x, results):
    """torch.topk: the positions (model.topk, of the negated input for
    largest=False) and the values gathered at them, so that the values'
    gradient reaches the input. sorted=False gets them sorted (a valid
    order of PyTorch's unspecified one)."""
    k, dim = a.get(1, "k"), a.get(2, "dim", -1)
    largest = a.get(3, "largest", True)
    if not isinstance(k, int) or not isinstance(dim, int) or \
            not x.dtype.is_floating_point or len(results) != 2:
        return None
    values, indices = results
    dim = _norm_dim(dim, x.dim())
    src = tr.node_of(x)
    ranked = src if largest else tr.make_shaped("neg", [src], x.shape,
                                                x.dtype)
    idx = tr.make_shaped("topk", [ranked], indices.shape, indices.dtype,
                         {"dim": dim})
    val = tr.make_shaped("gather", [src, idx], values.shape, values.dtype,
                         {"dim": dim})
    return [val, idx]


def _gather(tr, name, a, x, result):
    """torch.gather(x, dim, index) with index shaped like x but along dim."""
    dim, index = a.get(1, "dim"), a.get(2, "index")
    if not isinstance(dim, int) or not isinstance(index, torch.Tensor) or \
            a.get(3, "sparse_grad", False) or x.dim() != index.dim():
        return None
    dim = _norm_dim(dim, x.dim())
    if any(d != dim and x.shape[d] != index.shape[d]
           for d in range(x.dim())):
        return None
    return tr.make("gather", [tr.node_of(x), tr.node_of(index)], result,
                   {"dim": dim})


def _one_hot(tr, name, a, x, result):
    classes = a.get(1, "num_classes", -1)
    if not isinstance(classes, int) or classes < 0:
        raise UserError(
            f"F.one_hot{_at()} without num_classes: the class count would be "
            f"the largest id of the example plus one (pass num_classes)")
    return tr.make("one_hot", [tr.node_of(x)], result)


def _like_constant(tr, name, a, x, result):
    """zeros_like / ones_like / full_like and new_zeros / new_ones /
    new_full: their values depend only on the shape, never on the data, so
    they are constants (an index_add_ into zeros adds nothing)."""
    return Node("const", [], result.shape, result.dtype, tr.scopes[-1],
                _user_location(), value=result.detach().clone())


_ROW_BINARY = {}
for _n in ("add", "__add__", "__radd__", "__iadd__", "add_"):
    _ROW_BINARY[_n] = ("add", False)
for _n in ("sub", "__sub__", "__isub__", "sub_", "subtract"):
    _ROW_BINARY[_n] = ("sub", False)
for _n in ("rsub", "__rsub__"):
    _ROW_BINARY[_n] = ("sub", True)
for _n in ("mul", "__mul__", "__rmul__", "__imul__", "mul_", "multiply"):
    _ROW_BINARY[_n] = ("mul", False)
for _n in ("div", "__truediv__", "__itruediv__", "div_", "true_divide",
           "divide"):
    _ROW_BINARY[_n] = ("div", False)
for _n in ("__rtruediv__", "__rdiv__"):
    _ROW_BINARY[_n] = ("div", True)
_ROW_VIEWS = ("view", "reshape", "flatten", "unflatten", "unsqueeze",
              "squeeze", "view_as", "reshape_as")


def _rows(tr, name, a, x, result):
    """A call that reads rows or coordinates of a torch.where(mask)
    (selection.py): the ops the selection rules read, else a refusal."""
    operands = list(_tensors_in((a.args, a.kwargs)))
    involved = next(tr._lookup(t) for t in operands
                    if tr._lookup(t) is not None and
                    selection.involves(tr._lookup(t)))
    sel = (selection.coordinate(involved) or
           selection.selected(involved))[0]
    if name == "__getitem__" and x is a.get(0, "input"):
        index = a.get(1, "idx")
        if selection.selected(tr.node_of(x)) is not None:
            if _keeps_all(index, x.shape):
                return selection.view_rows(tr, name, x, result)
        else:
            node = selection.index_rows(tr, name, x, index, result)
            if node is not None:
                return node
    elif name in ("index_add_", "index_add"):
        node = selection.index_add(tr, name, a, result)
        if node is not None:
            return node
    elif name in _ROW_BINARY and a.kwargs.get("alpha", 1) == 1 and \
            a.kwargs.get("rounding_mode") is None and len(a.args) == 2:
        op, swap = _ROW_BINARY[name]
        lhs, rhs = a.get(0, "input"), a.get(1, "other")
        if swap:
            lhs, rhs = rhs, lhs
        node = selection.elementwise_rows(tr, name, op, [lhs, rhs], result)
        if node is not None:
            return node
    elif name in ("pow", "__pow__") and a.get(1, "exponent") == 2 and \
            selection.selected(tr.node_of(x)) is not None:
        return selection.elementwise_rows(tr, name, "mul", [x, x], result)
    elif selection.selected(tr.node_of(x)) is not None and \
            tuple(result.shape) == tuple(x.shape):
        if name in _ROW_UNARY and (name != "gelu" or a.get(
                1, "approximate", "none") == "none"):
            return selection.unary_rows(tr, _ROW_UNARY[name], x, result)
        if name in ("contiguous", "clone", "detach", "float", "half",
                    "bfloat16", "to", "type", "type_as", "__pos__"):
            if result.dtype == x.dtype:
                return tr.node_of(x)
            if result.dtype in _CAST_TYPES and x.dtype in _CAST_TYPES:
                return selection.unary_rows(tr, "cast", x, result)
        if name == "dropout" and _dropout(tr, name, a, x, result) is not None:
            return tr.node_of(x)
    if name in _ROW_VIEWS and selection.selected(tr.node_of(x)) is not None:
        return selection.view_rows(tr, name, x, result)
    selection.refuse(tr, name, sel)


def _layer_norm_ops(tr, x, ndims, w, b, eps, result):
    """F.layer_norm over the last `ndims` dims as its arithmetic: (x - mean)
    * rsqrt(mean of squares + eps), times the weight and plus the bias when
    given (tensors of any origin). Differentiating the ops gives PyTorch's
    layer_norm gradient."""
    if not x.dtype.is_floating_point or result.dtype != x.dtype or \
            not 0 < ndims <= x.dim():
        return None
    affine = [v for v in (w, b) if v is not None]
    if any(not isinstance(v, torch.Tensor) or v.dtype != x.dtype
           for v in affine):
        return None
    dims = list(range(x.dim() - ndims, x.dim()))
    kept = _kept(x.shape, dims)
    centered, squares = _centered_squares(tr, x, dims)
    var = tr.make_shaped("reduce", [squares], kept, x.dtype,
                         {"kind": "mean", "dims": dims, "keepdim": True})
    shifted = tr.make_shaped("add", [var, tr.scalar(eps, x)], kept, x.dtype)
    rstd = tr.make_shaped("rsqrt", [shifted], kept, x.dtype)
    node = tr.make_shaped("mul", [centered, rstd], x.shape, x.dtype)
    if w is not None:
        node = tr.make_shaped("mul", [node, tr.node_of(w)], x.shape, x.dtype)
    if b is not None:
        node = tr.make_shaped("add", [node, tr.node_of(b)], x.shape, x.dtype)
    return node


def _baddbmm(tr, name, a, x, result):
    """torch.baddbmm: beta * input + alpha * (batch1 @ batch2) (beta 0
    ignores the input, NaN included, as PyTorch)."""
    b1, b2 = a.get(1, "batch1"), a.get(2, "batch2")
    beta, alpha = a.kwargs.get("beta", 1), a.kwargs.get("alpha", 1)
    if not all(isinstance(t, torch.Tensor) for t in (x, b1, b2)) or \
            not result.dtype.is_floating_point or \
            any(not isinstance(v, (int, float)) or isinstance(v, bool)
                for v in (beta, alpha)):
        return None
    shape = tuple(result.shape)
    prod = tr.make_shaped("matmul", [tr.node_of(b1), tr.node_of(b2)], shape,
                          result.dtype)
    if alpha != 1:
        prod = tr.make_shaped("mul", [prod, tr.scalar(alpha, result)], shape,
                              result.dtype)
    if beta == 0:
        return prod
    inp = tr.node_of(x)
    if beta != 1:
        inp = tr.make_shaped("mul", [inp, tr.scalar(beta, result)],
                             tuple(x.shape), result.dtype)
    return tr.make("add", [inp, prod], result)


def _index_select(tr, name, a, x, result):
    """torch.index_select(x, dim, index) with a 1-D index: torch.gather of
    the index broadcast to the result's shape (its gradient, gather_grad,
    adds rows picked twice)."""
    dim, index = a.get(1, "dim"), a.get(2, "index")
    if not isinstance(dim, int) or not isinstance(index, torch.Tensor) or \
            index.dim() != 1 or index.dtype not in _INT_TYPES or x.dim() == 0:
        return None
    dim = _norm_dim(dim, x.dim())
    column = [1] * x.dim()
    column[dim] = index.shape[0]
    idx = tr.make_shaped("reshape", [tr.node_of(index)], tuple(column),
                         index.dtype)
    if tuple(column) != tuple(result.shape):
        idx = tr.make_shaped("expand", [idx], tuple(result.shape),
                             index.dtype)
    return tr.make("gather", [tr.node_of(x), idx], result, {"dim": dim})


def _triangle(tr, name, a, x, result):
    """torch.triu / tril(x, diagonal) of a computed tensor: where(mask, x,
    0) with the constant mask of the last two dims."""
    diagonal = a.get(1, "diagonal", 0)
    if x.dim() < 2 or not isinstance(diagonal, int) or \
            not result.dtype.is_floating_point:
        return None
    ones = torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool)
    mask = torch.triu(ones, diagonal) if name.startswith("triu") \
        else torch.tril(ones, diagonal)
    return _select(tr, mask, x, 0.0, result)


def _extremum(wins):
    """torch.maximum / minimum (and max / min of two tensors): the winner
    where one wins, the mean of the two where they tie (equal to either; the
    gradient halves between them, as PyTorch's), NaN where either is NaN
    (no comparison holds, and the mean of a NaN is NaN)."""
    loses = {"gt": "lt", "lt": "gt"}[wins]

    def handle(tr, name, a, x, result):
        lhs, rhs = a.get(0, "input"), a.get(1, "other")
        if not isinstance(rhs, torch.Tensor) or len(a.args) > 2 or \
                not result.dtype.is_floating_point or \
                lhs.dtype != result.dtype or rhs.dtype != result.dtype:
            return None
        shape = tuple(result.shape)
        ln, rn = tr.node_of(lhs), tr.node_of(rhs)
        first = tr.make_shaped("compare", [ln, rn], shape, torch.bool,
                               {"predicate": wins})
        second = tr.make_shaped("compare", [ln, rn], shape, torch.bool,
                                {"predicate": loses})
        half = tr.scalar(0.5, result)
        lh = tr.make_shaped("mul", [ln, half], tuple(lhs.shape), lhs.dtype)
        rh = tr.make_shaped("mul", [rn, half], tuple(rhs.shape), rhs.dtype)
        mid = tr.make_shaped("add", [lh, rh], shape, result.dtype)
        tie = tr.make_shaped("where", [second, rn, mid], shape, result.dtype)
        return tr.make("where", [first, ln, tie], result)
    return handle


def _arg_extremum(largest):
    """torch.max / min(x, dim, keepdim): the position (model.topk with k 1,
    of -x for min: the first of equal values) and the value gathered there,
    so that the gradient reaches that position alone, as PyTorch's."""
    def handle(tr, name, a, x, results):
        dim = a.get(1, "dim")
        keepdim = bool(a.get(2, "keepdim", False))
        if not isinstance(dim, int) or len(results) != 2 or \
                not x.dtype.is_floating_point or x.dim() == 0:
            return None
        values, indices = results
        dim = _norm_dim(dim, x.dim())
        kept = tuple(_kept(x.shape, [dim]))
        src = tr.node_of(x)
        ranked = src if largest else tr.make_shaped("neg", [src],
                                                    tuple(x.shape), x.dtype)
        idx = tr.make_shaped("topk", [ranked], kept, indices.dtype,
                             {"dim": dim})
        val = tr.make_shaped("gather", [src, idx], kept, values.dtype,
                             {"dim": dim})
        if keepdim:
            return [val, idx]
        return [tr.make("reshape", [val], values),
                tr.make("reshape", [idx], indices)]
    return handle


def _scatter_add(tr, name, a, x, result):
    """x.scatter_add(dim, index, src) (and scatter_add_), x.index_add(dim,
    index, source, alpha=) (and index_add_): `x` plus `model.gather_grad`,
    which adds each source element at the position its index names
    (index_add's 1-D index broadcast over the source first). Out-of-range
    indices are an error when the program runs."""
    dim = a.get(1, "dim")
    if name.startswith("scatter"):
        index, source, alpha = a.get(2, "index"), a.get(3, "src"), 1
    else:
        index, source = a.get(2, "index"), a.get(3, "source")
        alpha = a.get(4, "alpha", 1)
    if not isinstance(dim, int) or not isinstance(index, torch.Tensor) or \
            not isinstance(source, torch.Tensor) or \
            index.dtype not in _INT_TYPES or x.dim() != source.dim() or \
            not result.dtype.is_floating_point or \
            source.dtype != result.dtype or \
            not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
        return None
    dim = _norm_dim(dim, x.dim())
    # gather_grad's operands: the source and an index of its shape, and a
    # result of x's shape: the other dims must agree (torch allows a smaller
    # index or source there; tp does not).
    if any(d != dim and source.shape[d] != x.shape[d]
           for d in range(x.dim())):
        return None
    idx = tr.node_of(index)
    if name.startswith("scatter"):
        if tuple(index.shape) != tuple(source.shape):
            return None
    else:
        if index.dim() != 1 or index.shape[0] != source.shape[dim]:
            return None
        column = [1] * source.dim()
        column[dim] = index.shape[0]
        idx = tr.make_shaped("reshape", [idx], tuple(column), index.dtype)
        if tuple(column) != tuple(source.shape):
            idx = tr.make_shaped("expand", [idx], tuple(source.shape),
                                 index.dtype)
    src = tr.node_of(source)
    if alpha != 1:
        src = tr.make_shaped("mul", [src, tr.scalar(alpha, source)],
                             tuple(source.shape), source.dtype)
    added = tr.make_shaped("gather_grad", [src, idx], tuple(result.shape),
                           result.dtype, {"dim": dim})
    return tr.make("add", [tr.node_of(x), added], result)


def _stack(tr, name, a, x, result):
    """torch.stack: each tensor with a size-1 dim inserted, concatenated."""
    tensors, dim = a.get(0, "tensors"), a.get(1, "dim", 0)
    if not isinstance(tensors, (tuple, list)) or not tensors or \
            not isinstance(dim, int):
        return None
    dim = _norm_dim(dim, result.dim())
    parts = []
    for t in tensors:
        shape = list(t.shape)
        shape.insert(dim, 1)
        parts.append(tr.make_shaped("reshape", [tr.node_of(t)], tuple(shape),
                                    t.dtype))
    if len(parts) == 1:
        return tr.make("reshape", [tr.node_of(tensors[0])], result)
    return tr.make("concat", parts, result, {"dim": dim})


def _square(tr, name, a, x, result):
    n = tr.node_of(x)
    return tr.make("mul", [n, n], result)


_HANDLERS = {}
for _n in ("add", "__add__", "__radd__", "__iadd__", "add_"):
    _HANDLERS[_n] = _binary("add")
for _n in ("sub", "__sub__", "__isub__", "sub_", "subtract"):
    _HANDLERS[_n] = _binary("sub")
for _n in ("rsub", "__rsub__"):
    _HANDLERS[_n] = _binary("sub", swap=True)
for _n in ("mul", "__mul__", "__rmul__", "__imul__", "mul_", "multiply"):
    _HANDLERS[_n] = _binary("mul")
for _n in ("div", "__truediv__", "__itruediv__", "div_", "true_divide",
           "divide"):
    _HANDLERS[_n] = _div
for _n in ("__rtruediv__", "__rdiv__"):
    _HANDLERS[_n] = _binary("div", swap=True)
for _n in ("matmul", "__matmul__", "mm", "bmm"):
    _HANDLERS[_n] = _matmul()
_HANDLERS["__rmatmul__"] = _matmul(swap=True)
_ROW_UNARY = {"abs": "abs", "__abs__": "abs", "relu": "relu", "relu_": "relu",
              "gelu": "gelu",
              "silu": "silu", "exp": "exp", "log": "log", "neg": "neg",
              "__neg__": "neg", "negative": "neg", "tanh": "tanh",
              "sigmoid": "sigmoid", "sqrt": "sqrt", "rsqrt": "rsqrt",
              "erf": "erf", "reciprocal": "reciprocal"}
for _n, _op in _ROW_UNARY.items():
    _HANDLERS[_n] = _unary(_op)
for _n in ("contiguous", "clone", "detach", "float", "half", "bfloat16",
           "double", "to", "type", "type_as", "cpu", "cuda", "__pos__",
           "bool"):
    _HANDLERS[_n] = _identity_or_cast
_HANDLERS["dropout"] = _dropout
for _n in ("view", "reshape", "flatten", "unflatten", "unsqueeze", "squeeze",
           "view_as", "reshape_as"):
    _HANDLERS[_n] = _view
_HANDLERS["__getitem__"] = _getitem
for _n in ("cat", "concat", "concatenate"):
    _HANDLERS[_n] = _cat
_HANDLERS["narrow"] = _narrow
_HANDLERS["cross_entropy"] = _cross_entropy
_HANDLERS["addmm"] = _addmm
_HANDLERS["where"] = _where
# Calls that return several tensors: one node each.
_MULTI_HANDLERS = {_n: _pieces for _n in
                   ("split", "chunk", "tensor_split", "unbind")}
_MULTI_HANDLERS["topk"] = _topk
# torch.where(mask) and nonzero(as_tuple=True): the coordinates of a
# selection (selection.py).
_MULTI_HANDLERS["where"] = selection.where_coordinates
_MULTI_HANDLERS["nonzero"] = selection.where_coordinates
_HANDLERS["gather"] = _gather
for _n, _p in (("eq", "eq"), ("__eq__", "eq"), ("ne", "ne"), ("__ne__", "ne"),
               ("not_equal", "ne"), ("lt", "lt"), ("__lt__", "lt"),
               ("less", "lt"), ("le", "le"), ("__le__", "le"),
               ("less_equal", "le"), ("gt", "gt"), ("__gt__", "gt"),
               ("greater", "gt"), ("ge", "ge"), ("__ge__", "ge"),
               ("greater_equal", "ge")):
    _HANDLERS[_n] = _compare(_p)
for _n in ("logical_not", "bitwise_not", "__invert__"):
    _HANDLERS[_n] = _logical("logical_not")
for _n in ("logical_and", "bitwise_and", "__and__", "__rand__", "__iand__"):
    _HANDLERS[_n] = _logical("logical_and")
for _n in ("logical_or", "bitwise_or", "__or__", "__ror__", "__ior__"):
    _HANDLERS[_n] = _logical("logical_or")
for _n in ("clamp", "clip", "clamp_min", "clamp_max", "clamp_", "clip_"):
    _HANDLERS[_n] = _clamp
for _n in ("zeros_like", "ones_like", "full_like", "new_zeros", "new_ones",
           "new_full"):
    _HANDLERS[_n] = _like_constant
_HANDLERS["one_hot"] = _one_hot
for _n in ("data", "T", "mT"):
    _HANDLERS[_n] = _property
for _n in ("transpose", "swapaxes", "swapdims", "permute", "t"):
    _HANDLERS[_n] = _transpose
_HANDLERS["softmax"] = _softmax
_HANDLERS["pow"] = _HANDLERS["__pow__"] = _pow
_HANDLERS["mean"] = _reduce("mean")
_HANDLERS["sum"] = _reduce("sum")
_HANDLERS["amax"] = _reduce("max")
_HANDLERS["repeat_interleave"] = _repeat_interleave
for _n in ("var", "std"):
    _HANDLERS[_n] = _variance
_HANDLERS["log_softmax"] = _log_softmax
_HANDLERS["logsumexp"] = _logsumexp
for _n in ("expand", "expand_as", "broadcast_to"):
    _HANDLERS[_n] = _expand
_HANDLERS["masked_fill"] = _masked_fill
_HANDLERS["linear"] = _param_leaf("linear")
_HANDLERS["embedding"] = _param_leaf("embedding")
_HANDLERS["layer_norm"] = _param_leaf("layer_norm")
_HANDLERS["baddbmm"] = _baddbmm
_HANDLERS["index_select"] = _index_select
for _n in ("triu", "tril"):
    _HANDLERS[_n] = _triangle
for _n, _w in (("maximum", "gt"), ("max", "gt"), ("minimum", "lt"),
               ("min", "lt")):
    _HANDLERS[_n] = _extremum(_w)
_MULTI_HANDLERS["max"] = _arg_extremum(True)
_MULTI_HANDLERS["min"] = _arg_extremum(False)
_HANDLERS["stack"] = _stack
for _n in ("scatter_add", "scatter_add_", "index_add", "index_add_"):
    _HANDLERS[_n] = _scatter_add
_HANDLERS["square"] = _square


def trace(module, inputs, as_kwargs):
    """Traces `module` (put in eval mode) on `inputs` ([(name, tensor)])."""
    module.eval()
    return Tracer(module).run(inputs, as_kwargs)
