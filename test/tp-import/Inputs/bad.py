# Modules and factories tp-import refuses, each with a clear message.
import torch
import torch.nn as nn
import torch.nn.functional as F


class WithConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.conv = nn.Conv1d(4, 4, 3, padding=1)

    def forward(self, x):
        return self.conv(self.proj(x))


def conv():
    return WithConv(), (torch.randn(2, 4, 8),)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.atan(self.fc(x))


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x)


def atan():
    return Outer(), (torch.randn(2, 8),)


class TanhGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return F.gelu(self.fc(x), approximate="tanh")


def gelu_tanh():
    return TanhGelu(), (torch.randn(2, 8),)


class Windowed(nn.Module):
    """Attention with a sliding-window mask: not causal."""

    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(8, 8)

    def forward(self, x):
        b, s, d = x.shape
        q = self.wq(x).view(b, s, 2, 4).transpose(1, 2)
        mask = torch.full((s, s), float("-inf")).triu(1) + \
            torch.full((s, s), float("-inf")).tril(-2)
        att = F.softmax(q @ q.transpose(-2, -1) * 0.5 + mask, dim=-1)
        return (att @ q).transpose(1, 2).reshape(b, s, d)


def window():
    return Windowed(), (torch.randn(1, 4, 8),)


class DataDependent(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            return y
        return -y


def data_dependent():
    return DataDependent(), (torch.randn(2, 8),)


def raises():
    return nn.Linear(8, 8), (torch.randn(2, 7),)


def not_a_pair():
    return nn.Linear(8, 8)


def not_a_module():
    return 3, (torch.randn(2, 8),)


def not_tensors():
    return nn.Linear(8, 8), 5


def factory_fails():
    return {}["missing"]


not_callable = 42


class Layer(nn.Module):
    def __init__(self, i):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.i = i

    def forward(self, x):
        y = self.fc(x)
        # Layer 0 calls atan; the later layers sin: both unsupported.
        return torch.atan(y) if self.i == 0 else torch.sin(y)


class Layers(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(Layer(i) for i in range(12))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def two_unsupported():
    return Layers(), (torch.randn(2, 8),)


class PaddedAttention(nn.Module):
    """Grouped-query attention (repeat_interleave of k and v), a padding
    mask input, additive or boolean: once refused, now unfused with an
    expand (masks.test runs it; kept here so line numbers stay)."""

    def __init__(self, boolean):
        super().__init__()
        self.wq = nn.Linear(8, 8)
        self.wk = nn.Linear(8, 4)
        self.wv = nn.Linear(8, 4)
        self.boolean = boolean

    def forward(self, x, pad):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, 4, 2).transpose(1, 2)
        k = self.wk(x).view(b, s, 2, 2).transpose(1, 2)
        v = self.wv(x).view(b, s, 2, 2).transpose(1, 2)
        k = torch.repeat_interleave(k, 2, dim=1)
        v = torch.repeat_interleave(v, 2, dim=1)
        att = q @ k.transpose(-2, -1) * 2 ** -0.5
        causal = torch.triu(torch.ones(s, s, dtype=torch.bool), 1)
        att = att.masked_fill(causal, float("-inf"))
        if self.boolean:
            att = att.masked_fill(pad[:, None, None, :] == 0, float("-inf"))
        else:
            att = att + (1.0 - pad[:, None, None, :]) * -1e9
        att = F.softmax(att, dim=-1)
        return (att @ v).transpose(1, 2).reshape(b, s, 8)


def padding_mask():
    return PaddedAttention(False), {"x": torch.randn(2, 4, 8),
                                    "pad": torch.ones(2, 4)}


def padding_mask_bool():
    return PaddedAttention(True), {"x": torch.randn(2, 4, 8),
                                   "pad": torch.ones(2, 4)}


class WrongKeys(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x)


def wrong_keys():
    """The forward call itself raises: no such argument."""
    return WrongKeys(), {"y": torch.randn(2, 8)}


def takes_an_argument(n):
    return nn.Linear(n, n), (torch.randn(2, n),)


def on_meta():
    return nn.Linear(8, 8, device="meta"), (torch.randn(2, 8),)


class Nested(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.inner = Nested(depth - 1) if depth > 1 else nn.Linear(8, 8)

    def forward(self, x):
        return self.inner(x)


def nested():
    """A Linear 200 modules deep (runs in PyTorch)."""
    return Nested(200), (torch.randn(2, 8),)


def raises_not():
    """Imports (for the test of outputs written only on success)."""
    return nn.Linear(8, 8), (torch.randn(2, 8),)
