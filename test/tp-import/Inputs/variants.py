# Smaller modules covering the functions and the variants of the hand-written
# patterns tp-import maps (see docs/embedding.md, "From PyTorch"), each checked
# against its own PyTorch forward.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoIO(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 4)

    def forward(self, x, y):
        h = self.a(x) - y
        return self.b(h), h.mean(-1)


def two_io():
    torch.manual_seed(0)
    return TwoIO(), (torch.randn(3, 8), torch.randn(3, 8))


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(32, 16)
        self.ln = nn.LayerNorm(16)

    def forward(self, ids):
        h = self.ln(self.emb(ids))
        return F.linear(h, self.emb.weight)


def tied():
    torch.manual_seed(0)
    return Tied(), {"ids": torch.randint(0, 32, (2, 5))}


def seq():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.SiLU(), nn.Linear(16, 8)), \
        torch.randn(2, 8)


class Attn2(nn.Module):
    """q * scale before the matmul, a tril mask built in forward and
    masked_fill(mask == 0), repeat_interleave on [b, h, s, d]; no mask
    without `causal`."""
    def __init__(self, causal=True):
        super().__init__()
        self.causal = causal
        self.qkv_q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 8)
        self.v = nn.Linear(16, 8)
        self.o = nn.Linear(16, 16)
        self.drop = nn.Dropout(0.0)

    def forward(self, x):
        b, s, d = x.shape
        q = self.qkv_q(x).reshape(b, s, 4, 4).permute(0, 2, 1, 3)
        k = self.k(x).reshape(b, s, 2, 4).permute(0, 2, 1, 3)
        v = self.v(x).reshape(b, s, 2, 4).permute(0, 2, 1, 3)
        k = torch.repeat_interleave(k, 2, dim=1)
        v = torch.repeat_interleave(v, 2, dim=1)
        q = q * (1.0 / math.sqrt(4))
        att = torch.matmul(q, k.transpose(-1, -2))
        if self.causal:
            mask = torch.tril(torch.ones(s, s))
            att = att.masked_fill(mask == 0, float("-inf"))
        att = self.drop(torch.softmax(att, dim=-1))
        y = (att @ v).permute(0, 2, 1, 3).reshape(b, s, d)
        return self.o(y)


def attn2():
    torch.manual_seed(0)
    return Attn2(), torch.randn(2, 6, 16)


def attn_full():
    torch.manual_seed(0)
    return Attn2(causal=False), torch.randn(2, 6, 16)


class ScaledAttn(nn.Module):
    """Scale other than 1/sqrt(d): folded into q."""
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)

    def forward(self, x):
        b, s, d = x.shape
        q = self.q(x).view(b, s, 2, 4).transpose(1, 2)
        att = F.softmax(q @ q.transpose(2, 3) * 0.1, dim=-1)
        return (att @ q).transpose(1, 2).reshape(b, s, d)


def scaled():
    torch.manual_seed(0)
    return ScaledAttn(), torch.randn(1, 5, 8)


class RotBHSD(nn.Module):
    """Rotary applied after the transpose (on [b, h, s, d])."""
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        freqs = 1.0 / (10000.0 ** (torch.arange(0, 8, 2).float() / 8))
        ang = torch.outer(torch.arange(12).float(), freqs)
        self.register_buffer("fc", torch.polar(torch.ones_like(ang), ang))

    def forward(self, x):
        b, s, d = x.shape
        q = self.q(x).view(b, s, 2, 8).transpose(1, 2)
        qc = torch.view_as_complex(q.reshape(b, 2, s, 4, 2))
        out = torch.view_as_real(qc * self.fc[:s].view(1, 1, s, 4)).flatten(3)
        return out.transpose(1, 2).reshape(b, s, d)


def rot_bhsd():
    torch.manual_seed(0)
    return RotBHSD(), torch.randn(2, 6, 16)


class SigmoidSilu(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        return h * torch.sigmoid(h) / 2 + 1


def sigsilu():
    torch.manual_seed(0)
    return SigmoidSilu(), torch.randn(2, 8)


class Misc(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.sm = nn.Softmax(dim=-1)

    def forward(self, x):
        h = self.fc(x)
        h += x
        h = h.relu_()
        a = self.sm(h)[:, None]          # [b, 1, 8]
        m = h.amax(-1, keepdim=True)     # [b, 1]
        s = torch.exp(-h).sum(-1)        # [b]
        l = torch.log(1 - a.squeeze(1) * 0.5)
        return l + m - s[:, None] / 4 + h.mean()


def misc():
    torch.manual_seed(0)
    return Misc(), torch.randn(3, 8)


class MathOps(nn.Module):
    """The pointwise math functions and division by a tensor, as written
    in model code: gelu_new's tanh form, a hand-written sigmoid gate,
    x ** 3, rsqrt of a variance, 1 / x and a broadcast quotient."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.scale = nn.Parameter(torch.rand(8) + 0.5)

    def forward(self, x):
        h = self.fc(x)
        g = 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 *
                                                          torch.pow(h, 3.0))))
        s = torch.sigmoid(h) * torch.erf(h)
        v = h.pow(2).mean(-1, keepdim=True)
        n = h * torch.rsqrt(v + 1e-5) / torch.sqrt(v + 1.0)
        q = g / self.scale + s.reciprocal() * 0.01 + 1 / (2 + h * h)
        return q + n + h.sigmoid() ** 0.5


def math_ops():
    torch.manual_seed(0)
    return MathOps(), torch.randn(3, 8)


def rotate_half(x):
    """HF's rotate_half: the halves of the last dim swapped, the second
    negated."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Pieces(nn.Module):
    """Slicing and joining as model code writes it: a fused projection
    split into three (GPT-2's c_attn), rotate_half, chunk, narrow, unbind,
    a strided slice and lists of evenly increasing indices."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):
        q, k, v = self.qkv(x).split(8, dim=-1)
        a, b = torch.chunk(q, 2, dim=-1)
        r = rotate_half(k) * torch.cat([b, a], -1)
        n = v.narrow(-1, 2, 4).sum(-1, keepdim=True)
        rows = sum(r.unbind(0))
        picked = x[:, [1, 4, 7]].sum(-1, keepdim=True) + x[..., [-1]]
        return r + n + rows + x[:, ::3].mean() + picked


def pieces():
    torch.manual_seed(0)
    return Pieces(), torch.randn(3, 8)


class ScaledLinear(nn.Linear):
    """A Linear with its own forward: traced as a user module."""

    def forward(self, x):
        return F.linear(x, self.weight, self.bias) * 2


class PlainLinear(nn.Linear):
    """A Linear subclass with PyTorch's forward: the leaf op."""


class Subclasses(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = ScaledLinear(8, 8)
        self.b = PlainLinear(8, 4)

    def forward(self, x):
        return self.b(self.a(x))


def subclasses():
    torch.manual_seed(0)
    return Subclasses(), torch.randn(2, 8)


class UpcastRMSNorm(nn.Module):
    """A bfloat16 RMSNorm computed in float32, as Meta's (`.float()` ...
    `.type_as(x)`) or HF's (`.to(torch.float32)` ... `.to(dtype)`)."""

    def __init__(self, hf):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(16))
        self.eps = 1e-6
        self.hf = hf

    def forward(self, x):
        if self.hf:
            h = x.to(torch.float32)
            h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
            return self.weight * h.to(x.dtype)
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return h.type_as(x) * self.weight


class UpcastNorms(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.meta_norm = UpcastRMSNorm(False)
        self.hf_norm = UpcastRMSNorm(True)

    def forward(self, x):
        return self.hf_norm(self.fc(self.meta_norm(x)))


def rms_bf16():
    torch.manual_seed(0)
    return UpcastNorms().to(torch.bfloat16), \
        (torch.randn(4, 16).to(torch.bfloat16),)


class Statistics(nn.Module):
    """var / std (unbiased and not, keepdim), log_softmax (with a dtype)
    and logsumexp, decomposed into the element-wise and reduction ops."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        v = h.var(-1, keepdim=True) + h.std(dim=(0, 1), unbiased=False)
        n = (h - h.mean(-1, keepdim=True)) / torch.sqrt(
            h.var(-1, unbiased=False, keepdim=True) + 1e-5)
        lp = F.log_softmax(n * v, dim=-1, dtype=torch.float32)
        return lp + torch.logsumexp(h, dim=1, keepdim=True), \
            torch.logsumexp(h, -1)


def statistics():
    torch.manual_seed(0)
    return Statistics(), (torch.randn(2, 3, 8),)
