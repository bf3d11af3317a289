# A GPT block as written in nanoGPT-style code: LayerNorm, causal
# self-attention by hand (q @ k^T * scale, a causal mask buffer, softmax,
# @ v), a GELU MLP and residuals, with shapes read from the input.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, n_heads, max_seq):
        super().__init__()
        self.n_heads = n_heads
        self.wq = nn.Linear(dim, dim)
        self.wk = nn.Linear(dim, dim)
        self.wv = nn.Linear(dim, dim)
        self.wo = nn.Linear(dim, dim)
        self.register_buffer(
            "bias", torch.tril(torch.ones(max_seq, max_seq))
            .view(1, 1, max_seq, max_seq))

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.n_heads
        q = self.wq(x).view(b, s, self.n_heads, hd).transpose(1, 2)
        k = self.wk(x).view(b, s, self.n_heads, hd).transpose(1, 2)
        v = self.wv(x).view(b, s, self.n_heads, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(self.bias[:, :, :s, :s] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(b, s, d)
        return self.wo(y)


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 4 * dim)
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self, dim, n_heads, max_seq):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, n_heads, max_seq)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, vocab=64, dim=32, n_heads=4, n_layers=2, max_seq=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(max_seq, dim)
        self.h = nn.ModuleList(Block(dim, n_heads, max_seq)
                               for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        # Weight tying, as nanoGPT does it.
        self.wte.weight = self.lm_head.weight

    def forward(self, tokens):
        b, s = tokens.shape
        pos = torch.arange(0, s, dtype=torch.long)
        x = self.wte(tokens) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def make():
    torch.manual_seed(0)
    model = GPT()
    # Non-trivial norm parameters, so a wrong mapping shows in the numbers.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln" in name:
                p.add_(0.1 * torch.randn_like(p))
    return model, {"tokens": torch.randint(0, 64, (2, 8))}


def make_bf16():
    """The same GPT in bfloat16 (parameters, activations)."""
    model, inputs = make()
    return model.to(torch.bfloat16), inputs
