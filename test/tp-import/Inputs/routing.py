# Token routing as mixture-of-experts code writes it (top-k, one-hot masks,
# torch.where / nonzero coordinates, rows read at them and index_add_ back),
# in forms other than Inputs/hf/mixtral.py's, and the routing code tp-import
# refuses, each with the reason and the user's line.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Switch(nn.Module):
    """Top-1 routing (Switch Transformer): one-hot of the choice, the tokens
    of each expert by nonzero(as_tuple=True), scaled by the router's
    probability; a LayerNorm on the selected rows."""

    def __init__(self, dim=16, experts=4, skip_empty=False):
        super().__init__()
        self.router = nn.Linear(dim, experts, bias=False)
        self.norm = nn.LayerNorm(dim)
        self.experts = nn.ModuleList(Expert(dim, 24) for _ in range(experts))
        self.skip_empty = skip_empty

    def forward(self, x):
        b, s, d = x.shape
        flat = x.reshape(-1, d)
        probs = self.router(flat).softmax(dim=-1)
        weight, choice = probs.topk(1, dim=-1)
        mask = F.one_hot(choice.squeeze(-1), num_classes=len(self.experts))
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            (tokens,) = mask[:, e].nonzero(as_tuple=True)
            if self.skip_empty and tokens.shape[0] == 0:
                continue  # HF's Mixtral did this before v4.39
            rows = self.norm(flat[tokens])
            out.index_add_(0, tokens, expert(rows) * weight[tokens])
        return out.view(b, s, d)


def switch():
    torch.manual_seed(0)
    return Switch(), {"x": torch.randn(2, 6, 16)}


def switch_skip():
    """Every expert gets tokens in this example: the skip is never taken."""
    torch.manual_seed(0)
    return Switch(skip_empty=True), {"x": torch.randn(2, 6, 16)}


def switch_skip_empty():
    """Expert 3 gets no token: the trace would drop it."""
    torch.manual_seed(0)
    model = Switch(skip_empty=True)
    with torch.no_grad():
        model.router.weight[3].fill_(-10.0)
    return model, {"x": torch.randn(2, 6, 16).abs()}


class Smallest(nn.Module):
    """topk(largest=False) and torch.gather with its indices."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        scores = self.proj(x)
        _, idx = torch.topk(scores, 3, dim=1, largest=False)
        return torch.gather(x, 1, idx) * 2.0


def smallest():
    torch.manual_seed(0)
    return Smallest(), {"x": torch.randn(5, 8)}


class SumRows(nn.Module):
    """Reduces over the selected rows: their number is the data's."""

    def __init__(self):
        super().__init__()
        self.router = nn.Linear(8, 2)

    def forward(self, x):
        choice = self.router(x).topk(1, dim=-1).indices.squeeze(-1)
        (rows,) = torch.where(F.one_hot(choice, num_classes=2)[:, 0])
        return x[rows].sum(0)


def sum_rows():
    torch.manual_seed(0)
    return SumRows(), {"x": torch.randn(6, 8)}


class ReturnRows(SumRows):
    def forward(self, x):
        choice = self.router(x).topk(1, dim=-1).indices.squeeze(-1)
        (rows,) = torch.where(F.one_hot(choice, num_classes=2)[:, 0])
        return x[rows]


def return_rows():
    torch.manual_seed(0)
    return ReturnRows(), {"x": torch.randn(6, 8)}


class NotAMask(SumRows):
    """torch.where on scores: not a 0/1 mask tp-import can see."""

    def forward(self, x):
        (rows,) = torch.where(self.router(x)[:, 0])
        out = torch.zeros_like(x)
        return out.index_add(0, rows, x[rows])


def not_a_mask():
    torch.manual_seed(0)
    return NotAMask(), {"x": torch.randn(6, 8)}


class NoClasses(SumRows):
    def forward(self, x):
        choice = self.router(x).topk(1, dim=-1).indices.squeeze(-1)
        return F.one_hot(choice) * 1.0


def no_classes():
    torch.manual_seed(0)
    return NoClasses(), {"x": torch.randn(6, 8)}
