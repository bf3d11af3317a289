"""A GPT-2 in the style of transformers' models/gpt2/modeling_gpt2.py.

Plain PyTorch, written for tp-import as an end-to-end target. Constructs it
exercises: `Conv1D` (weight [in, out], `torch.addmm(bias, x.view(-1, in),
weight).view(...)`), the fused `c_attn` whose output is
`.split(split_size, dim=2)`, heads by `view` + `permute`, a causal mask read
from the bool buffer `bias` (tril, [1, 1, n_pos, n_pos]) and applied with
`torch.where` and `torch.finfo(dtype).min`, `gelu_new` (tanh form) written
out, pre-LN residual blocks, learned positions from `torch.arange`, and the
shifted cross-entropy loss of `GPT2LMHeadModel`.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GPT2Config:
    def __init__(self, vocab_size=50257, n_positions=1024, n_embd=768,
                 n_layer=12, n_head=12, n_inner=None, layer_norm_epsilon=1e-5,
                 resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1,
                 initializer_range=0.02):
        self.vocab_size = vocab_size
        self.n_positions = n_positions
        self.n_embd = n_embd
        self.n_layer = n_layer
        self.n_head = n_head
        self.n_inner = n_inner
        self.layer_norm_epsilon = layer_norm_epsilon
        self.resid_pdrop = resid_pdrop
        self.embd_pdrop = embd_pdrop
        self.attn_pdrop = attn_pdrop
        self.initializer_range = initializer_range


class Conv1D(nn.Module):
    """A linear layer with its weight stored transposed ([nx, nf])."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def gelu_new(x):
    """GELU, tanh approximation (transformers' NewGELUActivation)."""
    return 0.5 * x * (1.0 + torch.tanh(
        math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        max_positions = config.n_positions
        self.register_buffer(
            "bias",
            torch.tril(torch.ones((max_positions, max_positions),
                                  dtype=torch.bool))
            .view(1, 1, max_positions, max_positions),
            persistent=False)
        self.embed_dim = config.n_embd
        self.num_heads = config.n_head
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = nn.Dropout(config.attn_pdrop)
        self.resid_dropout = nn.Dropout(config.resid_pdrop)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)

    def _merge_heads(self, tensor):
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        new_shape = tensor.size()[:-2] + (self.num_heads * self.head_dim,)
        return tensor.view(new_shape)

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full(
            [], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length:key_length,
                                :key_length]
        mask_value = torch.full([], torch.finfo(attn_weights.dtype).min,
                                dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights, mask_value)
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)
        return torch.matmul(attn_weights, value)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(
            self.split_size, dim=2)
        query = self._split_heads(query)
        key = self._split_heads(key)
        value = self._split_heads(value)
        attn_output = self._merge_heads(self._attn(query, key, value))
        attn_output = self.c_proj(attn_output)
        return self.resid_dropout(attn_output)


class GPT2MLP(nn.Module):
    def __init__(self, intermediate_size, config):
        super().__init__()
        self.c_fc = Conv1D(intermediate_size, config.n_embd)
        self.c_proj = Conv1D(config.n_embd, intermediate_size)
        self.dropout = nn.Dropout(config.resid_pdrop)

    def forward(self, hidden_states):
        hidden_states = gelu_new(self.c_fc(hidden_states))
        return self.dropout(self.c_proj(hidden_states))


class GPT2Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        inner_dim = config.n_inner or 4 * config.n_embd
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.mlp = GPT2MLP(inner_dim, config)

    def forward(self, hidden_states):
        residual = hidden_states
        attn_output = self.attn(self.ln_1(hidden_states))
        hidden_states = attn_output + residual
        residual = hidden_states
        feed_forward_hidden_states = self.mlp(self.ln_2(hidden_states))
        return residual + feed_forward_hidden_states


class GPT2PreTrainedModel(nn.Module):
    def _init_weights(self, module):
        std = self.config.initializer_range
        if isinstance(module, (nn.Linear, Conv1D)):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=std)
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def post_init(self):
        self.apply(self._init_weights)
        # GPT-2's scaled init of the residual projections.
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                p.data.normal_(mean=0.0, std=self.config.initializer_range /
                               math.sqrt(2 * self.config.n_layer))


class GPT2Model(GPT2PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_dim = config.n_embd
        self.wte = nn.Embedding(config.vocab_size, self.embed_dim)
        self.wpe = nn.Embedding(config.n_positions, self.embed_dim)
        self.drop = nn.Dropout(config.embd_pdrop)
        self.h = nn.ModuleList(GPT2Block(config)
                               for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(self.embed_dim,
                                 eps=config.layer_norm_epsilon)
        self.post_init()

    def forward(self, input_ids):
        input_shape = input_ids.size()
        input_ids = input_ids.view(-1, input_shape[-1])
        position_ids = torch.arange(0, input_shape[-1], dtype=torch.long,
                                    device=input_ids.device).unsqueeze(0)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids)
        hidden_states = self.drop(hidden_states)
        for block in self.h:
            hidden_states = block(hidden_states)
        hidden_states = self.ln_f(hidden_states)
        return hidden_states.view(input_shape + (hidden_states.size(-1),))


class GPT2LMHeadModel(GPT2PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = GPT2Model(config)
        # Untied for simplicity: HF ties lm_head.weight to transformer.wte;
        # here lm_head has its own weight (no bias, as in HF).
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size,
                                 bias=False)
        self._init_weights(self.lm_head)

    def forward(self, input_ids, labels=None):
        hidden_states = self.transformer(input_ids)
        lm_logits = self.lm_head(hidden_states)
        if labels is None:
            return lm_logits
        shift_logits = lm_logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)),
                               shift_labels.view(-1))
        return loss, lm_logits


def tiny_config():
    return GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=2,
                      n_head=4, resid_pdrop=0.0, embd_pdrop=0.0,
                      attn_pdrop=0.0)


def make(labels=False):
    """The tiny LM head model and its example inputs (batch 2, seq 8); with
    `labels` forward also gets the ids as labels and returns (loss,
    logits)."""
    torch.manual_seed(0)
    model = GPT2LMHeadModel(tiny_config())
    with torch.no_grad():  # non-trivial LayerNorms and biases
        for name, p in model.named_parameters():
            if "ln_" in name or name.endswith("bias"):
                p.add_(0.1 * torch.randn_like(p))
    ids = torch.randint(0, 64, (2, 8))
    return model, dict(input_ids=ids, **({"labels": ids} if labels else {}))


def make_train():
    """With labels: forward returns (loss, logits)."""
    return make(labels=True)
