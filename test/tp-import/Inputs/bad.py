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
        return torch.tanh(self.fc(x))


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x)


def tanh():
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
