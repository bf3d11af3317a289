"""The traced program: nodes in program order, grouped by module scope.

A Node is one value: a function input, a parameter, a constant the trace
computed without touching inputs or parameters, or an op. Ops either map
onto a `model` op directly (their `op` is the model op's name) or are kept
as `torch.<name>` until a pattern (rewrite.py) replaces them; whatever is
still a `torch.` node when the IR is written is an error naming it.

A Scope is one call of a composite nn.Module; its `items` interleave the
nodes it computed directly and the scopes of the modules it called, in the
order they ran.
"""

from .errors import UserError

# The model ops that are leaf modules: they carry an FQN.
LEAF_OPS = ("linear", "embedding", "layer_norm", "rms_norm", "dropout")


class Node:
    """One value of the traced program."""

    def __init__(self, op, args, shape, dtype, scope, where, attrs=None,
                 value=None):
        self.op = op  # "input", "param", "const", a model op, or "torch.X"
        self.args = list(args)  # operand Nodes
        self.shape = tuple(shape)
        self.dtype = dtype
        self.scope = scope
        self.where = where  # "file.py:12" of the user code that made it
        self.attrs = dict(attrs or {})
        self.value = value  # the tensor, for constants

    def describe(self):
        """`'torch.masked_fill' in module 'layers.0.attention' (Attention)
        at model.py:31`, for error messages."""
        what = self.attrs.get("torch_name", self.op)
        text = f"'{what}'"
        if self.scope is not None and self.scope.fqn:
            text += f" in module '{self.scope.fqn}' ({self.scope.kind})"
        else:
            text += " in the root module's forward"
        if self.where:
            text += f" at {self.where}"
        return text

    def fail(self, message):
        raise UserError(f"{message}: {self.describe()}")

    def __repr__(self):
        return f"Node({self.op}, {list(self.shape)})"


class Scope:
    """One call of a composite module (the root module's scope has fqn '')."""

    def __init__(self, fqn, kind, module, parent, call_args=None):
        self.fqn = fqn
        self.kind = kind
        self.module = module
        self.parent = parent
        self.items = []  # Nodes and Scopes in program order
        # Node -> forward() parameter name, for the tensors passed in.
        self.call_args = call_args or {}

    def add(self, item):
        self.items.append(item)

    def insert_before(self, anchor, node):
        """Puts `node` right before `anchor` (one of this scope's nodes)."""
        for i, item in enumerate(self.items):
            if item is anchor:
                self.items.insert(i, node)
                return
        raise AssertionError("anchor node is not in its scope")

    def walk_scopes(self):
        yield self
        for item in self.items:
            if isinstance(item, Scope):
                yield from item.walk_scopes()

    def walk_nodes(self):
        for item in self.items:
            if isinstance(item, Scope):
                yield from item.walk_nodes()
            else:
                yield item


class Graph:
    """The traced forward: inputs, the root scope and the outputs."""

    def __init__(self, root):
        self.root = root
        self.inputs = []  # (name, Node)
        self.outputs = []  # Nodes

    def nodes(self):
        for _, node in self.inputs:
            yield node
        yield from self.root.walk_nodes()

    def replace_uses(self, old, new):
        """Points every use of `old` (operands and outputs) at `new`."""
        for node in self.root.walk_nodes():
            node.args = [new if a is old else a for a in node.args]
        for scope in self.root.walk_scopes():
            if old in scope.call_args and new not in scope.call_args:
                scope.call_args[new] = scope.call_args.pop(old)
        self.outputs = [new if o is old else o for o in self.outputs]

    def users(self):
        """Node -> the nodes using it (each once), for pattern matching."""
        result = {}
        for node in self.root.walk_nodes():
            for a in node.args:
                lst = result.setdefault(a, [])
                if node not in lst:
                    lst.append(node)
        return result
