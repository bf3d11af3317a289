# Values that escape the recorder on torch 1.13 (an index of one element
# does not reach TorchFunctionMode, Python numbers read from tensors,
# in-place ops on views): each is recorded or refused, never baked in as a
# constant of the example's values. Each recorded factory `f` has an
# `f_other` with other weights and inputs of the same shapes, so a value
# baked in from `f`'s example would differ.
import math

import torch
import torch.nn as nn


def _seeded(cls, shape, seed, **kw):
    torch.manual_seed(seed)
    module = cls(**kw)
    return module, (torch.randn(*shape),)


def _pair(name, cls, shape, **kw):
    """Defines factories `name` (seed 0) and `name_other` (seed 1)."""
    globals()[name] = lambda: _seeded(cls, shape, 0, **kw)
    globals()[name + "_other"] = lambda: _seeded(cls, shape, 1, **kw)


# -- recorded --------------------------------------------------------------


class LayerScale(nn.Module):
    """A residual scaled by a one-element parameter: gamma[0] is the
    parameter, reshaped to a scalar."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.gamma = nn.Parameter(torch.rand(1) + 0.25)

    def forward(self, x):
        return x + self.gamma[0] * self.fc(x)


_pair("layer_scale", LayerScale, (2, 8))


class NewAxes(nn.Module):
    """t[None], t[..., None], t[0] and t[-1] on a dim of size 1, t[0:1]
    and t[:8] covering their dim: reshapes, or the value itself."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.bias = nn.Parameter(torch.randn(8))
        self.scale = nn.Parameter(torch.randn(1, 8))

    def forward(self, x):  # x: [1, 4, 8]
        y = self.fc(x)[0] + self.bias[None]  # [4, 8]
        y = y * self.scale[-1]
        y = y[:, :8] * self.scale[0:1]
        return y[None][..., None]  # [1, 4, 8, 1]


_pair("new_axes", NewAxes, (1, 4, 8))


class DataAndT(nn.Module):
    """`.data` is the value itself, `.T` and `.mT` transposes."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 8))

    def forward(self, x):
        return (x @ self.w.data.T) @ self.w.mT


_pair("data_t", DataAndT, (2, 8))


class ConstWritten(nn.Module):
    """A constant written in place after a use is read again at its next
    use."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        m = torch.zeros(8)
        y = self.fc(x) + m
        m.add_(1.5)
        return y * m


_pair("const_written", ConstWritten, (2, 8))


class ConstAccumulates(nn.Module):
    """A constant written in place with a traced value becomes traced; the
    value it had before is the op's operand."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        acc = torch.full((2, 8), 0.25)
        acc.add_(self.fc(x))
        acc.mul_(x)
        return acc


_pair("const_accumulates", ConstAccumulates, (2, 8))


class InPlace(nn.Module):
    """In-place ops on a value with no other views are their out-of-place
    forms."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        y += x
        y.mul_(2.0)
        return y


_pair("in_place", InPlace, (2, 8))


# -- refused ---------------------------------------------------------------


class Wrapped(nn.Module):
    """Runs `fn(self, x)` as the forward (one class for the refused cases
    below)."""

    def __init__(self, fn, vector=False):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.gamma = nn.Parameter(torch.rand(4 if vector else 1) + 0.25)
        self.register_buffer("mask", torch.tensor([True, False]))
        self.register_buffer("rows", torch.tensor([1, 0]))
        self.fn = fn

    def forward(self, x):
        return self.fn(self, x)


def _refused(name, fn, vector=False, shape=(2, 8)):
    globals()[name] = lambda: (Wrapped(fn, vector), (torch.randn(*shape),))


def _indexed(name, fn, vector=False, shape=(2, 8)):
    """Recorded: factories `name` and `name_other` as _pair's."""
    def make(seed):
        torch.manual_seed(seed)
        return Wrapped(fn, vector), (torch.randn(*shape),)
    globals()[name] = lambda: make(0)
    globals()[name + "_other"] = lambda: make(1)


# Basic indexing that cuts: slices of the traced value, never constants.
_indexed("select", lambda m, x: x * m.fc(x)[0][0])
_indexed("select_param", lambda m, x: x * m.gamma[1], vector=True)
_indexed("select_last", lambda m, x: m.fc(x)[-1])
_indexed("slice", lambda m, x: m.fc(x)[0:1])
_indexed("slice_cols", lambda m, x: m.fc(x)[:, 2:6])
_indexed("step", lambda m, x: m.fc(x)[::2])
_indexed("mixed", lambda m, x: m.fc(x)[1, 1:7:3, None])
# Advanced indexing (tensors, lists, bools): refused.
_refused("bool_mask", lambda m, x: m.fc(x)[m.mask])
_refused("int_tensor", lambda m, x: m.fc(x)[m.rows])
_refused("int_list", lambda m, x: m.fc(x)[[1, 0]])


def gather_buffer():
    """A constant indexed by an input."""
    return (Wrapped(lambda m, ids: m.rows.float()[ids] * 2.0),
            (torch.tensor([1, 0, 1]),))


# Python numbers from tensors.
_refused("item", lambda m, x: x * m.gamma[0].item())
_refused("to_float", lambda m, x: x * float(m.gamma[0]))
_refused("to_float_param", lambda m, x: x * float(m.gamma))
_refused("to_int", lambda m, x: x * int(m.gamma[0] * 4))
_refused("math_sqrt", lambda m, x: x * math.sqrt(m.gamma[0]))
_refused("tolist", lambda m, x: x * m.gamma.tolist()[0])
_refused("numpy", lambda m, x: x * m.gamma.detach().numpy()[0])
# In-place ops on views: the other views of the memory change too.
_refused("inplace_row", lambda m, x: _row_doubled(m.fc(x)))
_refused("inplace_view", lambda m, x: _view_bumped(m.fc(x)))
_refused("inplace_data", lambda m, x: _data_bumped(m.fc(x)))
_refused("inplace_param", lambda m, x: m.fc(x) * m.gamma.data.mul_(2))
_refused("inplace_weight", lambda m, x: m.fc(x) + m.fc.weight.add_(1)[0])
# A view made past the recorder (the C++ method itself).
_refused("past_recorder",
         lambda m, x: x * torch._C._TensorBase.__getitem__(m.gamma, 0))


def _row_doubled(y):
    y[0].mul_(2)
    return y


def _view_bumped(y):
    v = y.view(-1)
    v.add_(1)
    return y


def _data_bumped(y):
    y.data.add_(1)
    return y


_OUTSIDE = nn.Parameter(torch.full((8,), 0.5))
# A parameter that is not the model's.
_refused("outside_param", lambda m, x: x * _OUTSIDE)
