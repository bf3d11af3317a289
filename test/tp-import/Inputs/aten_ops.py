"""More of the ATen vocabulary, as transformer code writes it, each recorded
as tp's ops: F.layer_norm over two dims and without an affine, LayerNorm
without elementwise_affine, layer_norm with a computed weight (all three
decomposed: tp's fused layer_norm takes one dim, a weight and a bias),
torch.baddbmm with beta and alpha, torch.triu / tril of computed scores,
index_select with a constant index, torch.maximum / minimum (ties split
the gradient, as PyTorch), max / min over a dim with their positions,
torch.stack and square."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AtenOps(nn.Module):
    def __init__(self, train=False):
        super().__init__()
        self.train_loss = train
        self.fc = nn.Linear(8, 8)
        self.out = nn.Linear(8, 8)
        self.plain = nn.LayerNorm(8, elementwise_affine=False)
        self.wide = nn.LayerNorm((3, 8))
        self.scale = nn.Parameter(torch.randn(8))
        # Equal at the start: maximum(p, q) ties everywhere, and each gets
        # half of the gradient.
        self.p = nn.Parameter(torch.randn(8))
        self.q = nn.Parameter(self.p.detach().clone())
        self.register_buffer("pick", torch.tensor([0, 2, 2, 5, 7]))

    def forward(self, x):
        h = self.fc(x)                                    # [2, 3, 8]
        n1 = F.layer_norm(h, (3, 8), eps=1e-6)
        n2 = self.plain(h)
        n3 = F.layer_norm(h, (8,), weight=self.scale * 2.0, bias=None)
        n4 = self.wide(h)
        scores = h @ h.transpose(1, 2)                     # [2, 3, 3]
        s = torch.baddbmm(torch.triu(scores, 1), h, h.transpose(1, 2),
                          beta=0.5, alpha=0.25) + torch.tril(scores)
        picked = torch.index_select(h, 2, self.pick)      # [2, 3, 5]
        m = torch.maximum(n1, n2) + torch.minimum(n3, n4) + \
            torch.max(self.p, self.q)
        mx, pos = h.max(dim=-1, keepdim=True)
        mn, _ = torch.min(h, 1)
        st = torch.stack([n1, n3], dim=1).sum(1)          # [2, 3, 8]
        y = self.out(m + st + mx + mn.unsqueeze(1)) + s.sum(-1, keepdim=True)
        z = picked.square().sum(-1, keepdim=True)
        if self.train_loss:
            return (y * y).mean() + z.mean()
        return y + z, pos


def make():
    torch.manual_seed(0)
    return AtenOps(), (torch.randn(2, 3, 8),)


def make_train():
    torch.manual_seed(0)
    return AtenOps(train=True), {"x": torch.randn(2, 3, 8)}


class Scatter(nn.Module):
    """scatter_add and index_add (with alpha), out of place and in place on
    a computed tensor, with indices that repeat and skip positions."""

    def __init__(self, train=False):
        super().__init__()
        self.train_loss = train
        self.fc = nn.Linear(8, 8)
        self.out = nn.Linear(8, 8)
        self.register_buffer("rows", torch.tensor([2, 0, 2, 1, 0, 2]))
        self.register_buffer("cols", torch.tensor(
            [[0, 1, 1, 7, 3, 3, 5, 0]] * 6))

    def forward(self, x):                          # x [6, 8]
        h = torch.tanh(self.fc(x))
        base = torch.zeros(4, 8)
        per_row = base.index_add(0, self.rows, h, alpha=0.5)   # [4, 8]
        acc = self.out(per_row)
        acc.index_add_(0, self.rows[:3], h[:3])
        spread = h.scatter_add(1, self.cols, h * 2.0)          # [6, 8]
        y = acc.sum(0) + spread.sum(0)
        if self.train_loss:
            return (y * y).mean()
        return y


def scatter():
    torch.manual_seed(0)
    return Scatter(), (torch.randn(6, 8),)


def scatter_train():
    torch.manual_seed(0)
    return Scatter(train=True), {"x": torch.randn(6, 8)}
