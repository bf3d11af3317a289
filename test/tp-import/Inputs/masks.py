# Boolean masks computed from inputs and what reads them: comparisons of ids
# and of scores, ~ & |, .bool(), torch.where with a traced condition,
# masked_fill with a traced mask (a BERT-style attention whose padding mask
# is boolean, run unfused), clamp and abs; each checked against its own
# PyTorch forward.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Gates(nn.Module):
    """Masks from ids and from activations, combined and used."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.fc = nn.Linear(8, 8)

    def forward(self, ids, keep):
        h = self.fc(self.emb(ids))                     # [b, s, 8]
        pad = ids != 0                                 # compare with an int
        big = h.abs() > 0.5                            # compare floats
        either = (big | ~keep[..., None]) & pad[..., None]
        h = torch.where(either, h, torch.zeros_like(h))
        h = torch.where(h > 0.2, h.clamp(max=0.6), -h)
        h = h.masked_fill(~pad[..., None], -1.0)
        return h.clamp(-0.8, 0.8) * keep[..., None].float() + \
            pad.float()[..., None] + big.to(torch.float32)


def gates():
    torch.manual_seed(0)
    ids = torch.randint(0, 16, (2, 6))
    ids[0, -2:] = 0
    return Gates(), {"ids": ids, "keep": torch.rand(2, 6) > 0.3}


class BoolPadAttention(nn.Module):
    """Attention with a boolean padding mask through masked_fill, heads
    not repeated: the ops as written."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.k = nn.Linear(16, 16)
        self.v = nn.Linear(16, 16)
        self.o = nn.Linear(16, 16)

    def forward(self, x, attention_mask):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, 4, 4).transpose(1, 2)
        k = self.k(x).view(b, s, 4, 4).transpose(1, 2)
        v = self.v(x).view(b, s, 4, 4).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / 2.0
        masked = attention_mask[:, None, None, :] == 0
        scores = scores.masked_fill(masked, torch.finfo(scores.dtype).min)
        probs = F.softmax(scores, dim=-1)
        out = (probs @ v).transpose(1, 2).reshape(b, s, 16)
        return self.o(out)


def bool_pad_attention():
    torch.manual_seed(0)
    mask = torch.ones(2, 5, dtype=torch.int64)
    mask[1, -2:] = 0
    return BoolPadAttention(), {"x": torch.randn(2, 5, 16),
                                "attention_mask": mask}
