"""A Llama in the style of transformers' models/llama/modeling_llama.py.

Plain PyTorch, written for tp-import as an end-to-end target (eager
attention, no KV cache). Constructs it exercises: `LlamaRMSNorm` upcasting
to float32 (`pow(2).mean(-1, keepdim=True)`, `torch.rsqrt`, `weight *
hidden.to(input_dtype)`), `LlamaRotaryEmbedding` (an `inv_freq` buffer,
cos/sin from `inv_freq @ position_ids`, `torch.cat((freqs, freqs))`), the
half-split `rotate_half` (slicing `x[..., :d//2]`, `x[..., d//2:]` and
`torch.cat((-x2, x1), dim=-1)`), `apply_rotary_pos_emb`, grouped-query
attention through `repeat_kv` (expand + reshape, 4 query heads over 2 kv
heads in the tiny config), an additive causal mask (`torch.triu` of
`torch.full(finfo.min)`), softmax in float32 cast back to the query's
dtype, the SwiGLU `LlamaMLP`, and the shifted cross-entropy loss.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class LlamaConfig:
    def __init__(self, vocab_size=32000, hidden_size=4096,
                 intermediate_size=11008, num_hidden_layers=32,
                 num_attention_heads=32, num_key_value_heads=None,
                 max_position_embeddings=2048, rms_norm_eps=1e-6,
                 rope_theta=10000.0, initializer_range=0.02,
                 attention_bias=False):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads or num_attention_heads
        self.max_position_embeddings = max_position_embeddings
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta
        self.initializer_range = initializer_range
        self.attention_bias = attention_bias


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(
            variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config):
        super().__init__()
        dim = config.hidden_size // config.num_attention_heads
        base = config.rope_theta
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2,
                                                dtype=torch.int64).float()
                                   / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(
            position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded @ position_ids_expanded).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(hidden_states, n_rep):
    """(batch, kv_heads, seq, hd) -> (batch, kv_heads * n_rep, seq, hd)."""
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(
        batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen,
                                 head_dim)


class LlamaAttention(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.num_heads = config.num_attention_heads
        self.num_key_value_heads = config.num_key_value_heads
        self.num_key_value_groups = self.num_heads // self.num_key_value_heads
        self.scaling = self.head_dim ** -0.5
        bias = config.attention_bias
        self.q_proj = nn.Linear(config.hidden_size,
                                self.num_heads * self.head_dim, bias=bias)
        self.k_proj = nn.Linear(config.hidden_size,
                                self.num_key_value_heads * self.head_dim,
                                bias=bias)
        self.v_proj = nn.Linear(config.hidden_size,
                                self.num_key_value_heads * self.head_dim,
                                bias=bias)
        self.o_proj = nn.Linear(self.num_heads * self.head_dim,
                                config.hidden_size, bias=bias)

    def forward(self, hidden_states, position_embeddings, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(
            hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(
            hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(
            hidden_shape).transpose(1, 2)
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(
            query_states, key_states, cos, sin)
        key_states = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        attn_weights = torch.matmul(query_states,
                                    key_states.transpose(2, 3)) * self.scaling
        if attention_mask is not None:
            causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
            attn_weights = attn_weights + causal_mask
        attn_weights = F.softmax(attn_weights, dim=-1,
                                 dtype=torch.float32).to(query_states.dtype)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous()
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


class LlamaMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size,
                                   config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size,
                                 config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size,
                                   config.hidden_size, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.self_attn = LlamaAttention(config, layer_idx)
        self.mlp = LlamaMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size,
                                            eps=config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size,
                                                     eps=config.rms_norm_eps)

    def forward(self, hidden_states, position_embeddings, attention_mask):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states = self.self_attn(hidden_states, position_embeddings,
                                       attention_mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        return residual + hidden_states


class LlamaPreTrainedModel(nn.Module):
    def _init_weights(self, module):
        std = self.config.initializer_range
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=std)


class LlamaModel(LlamaPreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size,
                                         config.hidden_size)
        self.layers = nn.ModuleList(LlamaDecoderLayer(config, i)
                                    for i in range(config.num_hidden_layers))
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.rotary_emb = LlamaRotaryEmbedding(config)
        self.apply(self._init_weights)

    @staticmethod
    def _causal_mask(seq_len, dtype, device):
        mask = torch.full((seq_len, seq_len), torch.finfo(dtype).min,
                          dtype=dtype, device=device)
        return torch.triu(mask, diagonal=1)[None, None, :, :]

    def forward(self, input_ids):
        inputs_embeds = self.embed_tokens(input_ids)
        seq_len = inputs_embeds.shape[1]
        position_ids = torch.arange(seq_len,
                                    device=inputs_embeds.device).unsqueeze(0)
        causal_mask = self._causal_mask(seq_len, inputs_embeds.dtype,
                                        inputs_embeds.device)
        hidden_states = inputs_embeds
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        for decoder_layer in self.layers:
            hidden_states = decoder_layer(hidden_states, position_embeddings,
                                          causal_mask)
        return self.norm(hidden_states)


class LlamaForCausalLM(LlamaPreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config)
        self.vocab_size = config.vocab_size
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size,
                                 bias=False)
        self._init_weights(self.lm_head)

    def forward(self, input_ids, labels=None):
        hidden_states = self.model(input_ids)
        logits = self.lm_head(hidden_states)
        if labels is None:
            return logits
        shift_logits = logits[..., :-1, :].float().contiguous()
        shift_labels = labels[..., 1:].contiguous()
        loss = F.cross_entropy(shift_logits.view(-1, self.vocab_size),
                               shift_labels.view(-1))
        return loss, logits


def tiny_config():
    return LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48,
                       num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, max_position_embeddings=16,
                       rms_norm_eps=1e-5)


def make(heads=4, kv_heads=2, labels=False):
    """The tiny causal LM and its example inputs (batch 2, seq 8); with
    `labels` forward also gets the ids as labels and returns (loss,
    logits)."""
    torch.manual_seed(0)
    config = tiny_config()
    config.num_attention_heads = heads
    config.num_key_value_heads = kv_heads
    model = LlamaForCausalLM(config)
    with torch.no_grad():  # non-trivial norm weights
        for name, p in model.named_parameters():
            if "norm" in name:
                p.add_(0.1 * torch.randn_like(p))
    ids = torch.randint(0, 64, (2, 8))
    return model, dict(input_ids=ids, **({"labels": ids} if labels else {}))


def make_4kv():
    """8 query and 4 kv heads: both divide over 4 ranks."""
    return make(heads=8, kv_heads=4)


def make_train():
    """With labels: forward returns (loss, logits)."""
    return make(labels=True)


def make_train_4kv():
    return make(heads=8, kv_heads=4, labels=True)
