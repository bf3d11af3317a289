"""A block written with torch functions tp-import has no rule of its own
for, each recorded as the ATen ops it runs (tp_import/aten.py): the
activations PyTorch decomposes (mish, softplus, tanh GELU, elu, hardswish,
leaky_relu, logsigmoid, selu, softsign, glu), addcmul and lerp, einsum,
cumsum, var_mean, F.normalize, torch.norm, F.group_norm, F.pad, flip,
roll, max/min of a whole tensor, amin, argmax, a matrix times a vector,
sign, cosh, log2, exp2 and, in training, F.mse_loss and
F.smooth_l1_loss."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 16)
        self.out = nn.Linear(16, 8)

    def forward(self, x):
        h = self.fc(x)                                       # [2, 3, 16]
        a = F.mish(h) + F.softplus(h) - F.gelu(h, approximate="tanh")
        a = a + F.elu(h) * F.hardswish(h) + F.leaky_relu(h, 0.1)
        a = a + F.logsigmoid(h) + F.selu(h) + F.softsign(h)
        a = torch.addcmul(a, h, torch.sigmoid(h), value=0.5)
        a = torch.lerp(a, h, 0.25)
        return self.out(a)                                   # [2, 3, 8]


class Block(nn.Module):
    def __init__(self, train=False):
        super().__init__()
        self.train_loss = train
        self.mixer = Mixer()
        self.gate = nn.Linear(8, 32)
        self.scale = nn.Parameter(torch.randn(8))

    def forward(self, x):                                    # [2, 3, 8]
        y = self.mixer(x)
        g = F.glu(self.gate(x))                              # [2, 3, 16]
        scores = torch.einsum("bsd,btd->bst", y, x)          # [2, 3, 3]
        c = torch.cumsum(scores, -1)
        shifted = F.pad(c, (1, 0))[..., :-1]
        v, m = torch.var_mean(y, dim=-1, keepdim=True)
        n = F.normalize(y, dim=-1) * self.scale
        gn = F.group_norm(y.transpose(1, 2), 2).transpose(1, 2)
        z = n + gn + v + m + torch.norm(y, dim=-1, keepdim=True) + \
            shifted @ x + g.sum(-1, keepdim=True)
        # flip (a gather at reversed positions), roll (narrow + cat), max
        # and min of the whole tensor, amin, argmax, a matrix times a vector.
        top = torch.gather(y, -1, y.argmax(-1, keepdim=True))
        z = z + torch.roll(y.flip(-1), 1, -1) + torch.max(y) - y.min() + \
            torch.amin(y, -1, keepdim=True) + top + (y @ self.scale)[..., None]
        # Elementwise functions PyTorch decomposes to prims tp has rules for.
        z = z + 0.1 * (torch.sign(y) * torch.cosh(y * 0.5) +
                       torch.log2(y.abs() + 1.0) + torch.exp2(y * 0.5))
        if self.train_loss:
            return (z * z).mean() + F.mse_loss(z, x) + \
                F.smooth_l1_loss(z, x, beta=0.5) + \
                F.smooth_l1_loss(y, x, reduction="sum", beta=0.0)
        return z


def make():
    torch.manual_seed(0)
    return Block(), (torch.randn(2, 3, 8),)


def make_train():
    torch.manual_seed(0)
    return Block(train=True), {"x": torch.randn(2, 3, 8)}


class Cumprod(nn.Module):
    """torch.cumprod: ATen's cumprod has no rule in tp (nor a
    decomposition)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.cumprod(self.fc(x), -1)


def cumprod():
    return Cumprod(), (torch.randn(2, 8),)


class DeadCumprod(nn.Module):
    """An unsupported function whose value is never used is no error."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        torch.cumprod(h, -1)
        return h


def dead_cumprod():
    return DeadCumprod(), (torch.randn(2, 8),)


class Overflow(nn.Module):
    """Activations whose decompositions exponentiate every element, on
    values far past exp's range: the branch a where drops must stay finite,
    or its gradient is 0 * inf = NaN where PyTorch's is finite."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x) * 100.0
        acts = (F.softplus(y) * F.softplus(-y, beta=2.0, threshold=10.0) +
                F.elu(y) * F.elu(-y) + F.selu(y) + F.celu(-y, 2.0) +
                F.mish(y) +
                # cosh is finite up to 89.4 where exp overflows at 88.7.
                torch.cosh(y.clamp(-1.0, 1.0) * 89.0) * 1e-38)
        return (acts * 1e-3).mean()


def overflow_train():
    torch.manual_seed(0)
    return Overflow(), {"x": torch.randn(4, 8)}
