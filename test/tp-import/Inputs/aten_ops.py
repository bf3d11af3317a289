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
