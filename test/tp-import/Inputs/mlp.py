# An MLP as PyTorch users write it: a Sequential inside a module, a residual.
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, dim=16, hidden=32):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(),
                                nn.Linear(hidden, dim), nn.Dropout(0.0))
        self.head = nn.Linear(dim, 8)

    def forward(self, x):
        h = x + self.ff(self.norm(x))
        return self.head(torch.relu(h) * 0.5)


def make():
    torch.manual_seed(0)
    return MLP(), (torch.randn(4, 16),)


def make_other():
    """The same MLP with other initial parameters (another seed)."""
    torch.manual_seed(1)
    return MLP(), (torch.randn(4, 16),)
