"""A Mixtral in the style of transformers' models/mixtral/modeling_mixtral.py.

Plain PyTorch, standalone, written for tp-import as an end-to-end target
(eager attention, no KV cache, no sliding window, no router aux loss or
jitter). The point is `MixtralSparseMoeBlock`: a router `gate` (Linear, no
bias), softmax in float32, `torch.topk` (top 2 of 4 experts in the tiny
config), renormalized weights (`routing_weights /= sum`, in place as in HF),
and HF's data-dependent dispatch: `F.one_hot(selected_experts).permute(2, 1,
0)`, per expert `torch.where(expert_mask[e])` for (slot, token) indices,
`hidden_states[None, top_x]` gathers, and `index_add_` into a zero buffer.
The experts are `MixtralBlockSparseTop2MLP` (`w2(silu(w1 x) * w3 x)`). The
attention around it is Llama's (float32 RMSNorm, half-split rotary through
`rotate_half`, grouped-query `repeat_kv`, additive `torch.triu` mask).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MixtralConfig:
    def __init__(self, vocab_size=32000, hidden_size=4096,
                 intermediate_size=14336, num_hidden_layers=32,
                 num_attention_heads=32, num_key_value_heads=8,
                 num_local_experts=8, num_experts_per_tok=2,
                 max_position_embeddings=32768, rms_norm_eps=1e-5,
                 rope_theta=1e6, initializer_range=0.02):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.num_local_experts = num_local_experts
        self.num_experts_per_tok = num_experts_per_tok
        self.max_position_embeddings = max_position_embeddings
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta
        self.initializer_range = initializer_range


class MixtralRMSNorm(nn.Module):
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


class MixtralRotaryEmbedding(nn.Module):
    def __init__(self, config):
        super().__init__()
        dim = config.hidden_size // config.num_attention_heads
        inv_freq = 1.0 / (config.rope_theta ** (
            torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq = self.inv_freq[None, :, None].float().expand(
            position_ids.shape[0], -1, 1)
        freqs = (inv_freq @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), \
        (k * cos) + (rotate_half(k) * sin)


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(
        batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen,
                                 head_dim)


class MixtralAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        hidden, heads = config.hidden_size, config.num_attention_heads
        kv_heads = config.num_key_value_heads
        self.head_dim = hidden // heads
        self.num_key_value_groups = heads // kv_heads
        self.scaling = self.head_dim ** -0.5
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)

    def forward(self, hidden_states, position_embeddings, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        q = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        k = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        v = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        cos, sin = position_embeddings
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        k = repeat_kv(k, self.num_key_value_groups)
        v = repeat_kv(v, self.num_key_value_groups)
        attn_weights = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights + attention_mask[:, :, :, : k.shape[-2]]
        attn_weights = F.softmax(attn_weights, dim=-1,
                                 dtype=torch.float32).to(q.dtype)
        attn_output = torch.matmul(attn_weights, v).transpose(1, 2)
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


class MixtralBlockSparseTop2MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        ffn_dim, hidden_dim = config.intermediate_size, config.hidden_size
        self.w1 = nn.Linear(hidden_dim, ffn_dim, bias=False)
        self.w2 = nn.Linear(ffn_dim, hidden_dim, bias=False)
        self.w3 = nn.Linear(hidden_dim, ffn_dim, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states):
        current_hidden_states = self.act_fn(self.w1(hidden_states)) * \
            self.w3(hidden_states)
        return self.w2(current_hidden_states)


class MixtralSparseMoeBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.hidden_dim = config.hidden_size
        self.num_experts = config.num_local_experts
        self.top_k = config.num_experts_per_tok
        self.gate = nn.Linear(self.hidden_dim, self.num_experts, bias=False)
        self.experts = nn.ModuleList(MixtralBlockSparseTop2MLP(config)
                                     for _ in range(self.num_experts))

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)  # (tokens, n_experts)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(
            routing_weights, self.top_k, dim=-1)
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final_hidden_states = torch.zeros(
            (batch_size * sequence_length, hidden_dim),
            dtype=hidden_states.dtype, device=hidden_states.device)
        # (n_experts, top_k, tokens): which (slot, token) picked each expert.
        expert_mask = F.one_hot(selected_experts,
                                num_classes=self.num_experts).permute(2, 1, 0)
        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = expert_layer(current_state) * \
                routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(
                0, top_x, current_hidden_states.to(hidden_states.dtype))
        final_hidden_states = final_hidden_states.reshape(
            batch_size, sequence_length, hidden_dim)
        return final_hidden_states, router_logits


class MixtralDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = MixtralAttention(config)
        self.block_sparse_moe = MixtralSparseMoeBlock(config)
        self.input_layernorm = MixtralRMSNorm(config.hidden_size,
                                              eps=config.rms_norm_eps)
        self.post_attention_layernorm = MixtralRMSNorm(
            config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states, position_embeddings, attention_mask):
        residual = hidden_states
        hidden_states = self.self_attn(self.input_layernorm(hidden_states),
                                       position_embeddings, attention_mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states, _router_logits = self.block_sparse_moe(
            self.post_attention_layernorm(hidden_states))
        return residual + hidden_states


class MixtralModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size,
                                         config.hidden_size)
        self.layers = nn.ModuleList(MixtralDecoderLayer(config)
                                    for _ in range(config.num_hidden_layers))
        self.norm = MixtralRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.rotary_emb = MixtralRotaryEmbedding(config)

    def forward(self, input_ids):
        hidden_states = self.embed_tokens(input_ids)
        seq_len = hidden_states.shape[1]
        position_ids = torch.arange(seq_len).unsqueeze(0)
        mask = torch.full((seq_len, seq_len),
                          torch.finfo(hidden_states.dtype).min,
                          dtype=hidden_states.dtype)
        causal_mask = torch.triu(mask, diagonal=1)[None, None, :, :]
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        for decoder_layer in self.layers:
            hidden_states = decoder_layer(hidden_states, position_embeddings,
                                          causal_mask)
        return self.norm(hidden_states)


class MixtralForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = MixtralModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size,
                                 bias=False)
        for module in self.modules():  # HF's _init_weights
            if isinstance(module, (nn.Linear, nn.Embedding)):
                module.weight.data.normal_(std=config.initializer_range)

    def forward(self, input_ids, labels=None):
        logits = self.lm_head(self.model(input_ids))
        if labels is None:
            return logits
        shift_logits = logits[..., :-1, :].float().contiguous()
        shift_labels = labels[..., 1:].contiguous()
        loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)),
                               shift_labels.view(-1))
        return loss, logits


def tiny_config():
    return MixtralConfig(vocab_size=64, hidden_size=32, intermediate_size=48,
                         num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, num_local_experts=4,
                         num_experts_per_tok=2, max_position_embeddings=16)


def make(heads=4, kv_heads=2, labels=False):
    """The tiny causal LM and its example inputs (batch 2, seq 8); with
    `labels` forward also gets the ids as labels and returns (loss,
    logits)."""
    torch.manual_seed(0)
    config = tiny_config()
    config.num_attention_heads = heads
    config.num_key_value_heads = kv_heads
    model = MixtralForCausalLM(config)
    with torch.no_grad():  # non-trivial RMSNorm weights
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


def make_moe():
    """The sparse MoE block alone on hidden states (2, 8, 32)."""
    torch.manual_seed(0)
    block = MixtralSparseMoeBlock(tiny_config())
    return block, {"hidden_states": torch.randn(2, 8, 32)}
