#!/usr/bin/python3
"""Tensor-parallel plans for the Hugging Face-style models in this folder.

Each plan is the JSON tp reads (docs/guide.md, "Plans"): a 1-D mesh named
`tp` and FQN patterns (one fnmatch per dot-separated token) mapped to
styles. Keys are relative to the module each model file's `make()` returns
(`GPT2LMHeadModel`, `LlamaForCausalLM`, `Qwen2ForCausalLM`, `BertModel`,
`MixtralForCausalLM`, `GPTNeoXForCausalLM`, `GemmaForCausalLM`,
`PhiForCausalLM`, `BloomForCausalLM`, `FalconForCausalLM`,
`T5ForConditionalGeneration`; `mixtral-moe` is for `mixtral.make_moe`'s block).

    plans.py NAME [--tp N]     prints the plan as JSON
    plans.py --list            prints the names

Plans:
- gpt2: Megatron's split; c_attn and mlp.c_fc Colwise, attn.c_proj and
  mlp.c_proj Rowwise. GPT-2's Conv1D stores its weight [in, out], so
  Colwise shards the weight's dim 1 (the output features).
- gpt2-pieces: the same with tp's "shard_pieces" on c_attn, so that each
  rank holds its heads of q, k and v (no gather at the split).
- llama, qwen2: HF's base_model_tp_plan (q/k/v/gate/up Colwise, o/down
  Rowwise), embed_tokens Rowwise from replicated ids, lm_head Colwise with
  replicated logits (HF's "colwise_rep").
- llama-sp, qwen2-sp: torchtitan's, with sequence parallel norms: the
  residual stream is Shard(1) between blocks, each attention/MLP gathers
  it (PrepareModuleInput) and its Rowwise output reduce-scatters back.
  The cos/sin and the mask are constants, not module inputs, so each
  PrepareModuleInput names one input.
- bert: query/key/value and intermediate.dense Colwise,
  attention.output.dense and output.dense Rowwise (embeddings, LayerNorms
  and pooler replicated); bert-mlm: the same under `bert.` (BertForMaskedLM,
  its head replicated).
- mixtral: Llama's attention plan plus each expert's w1/w3 Colwise and w2
  Rowwise; the router gate stays replicated so every rank routes alike.
- neox: the fused query_key_value and dense_h_to_4h Colwise, dense and
  dense_4h_to_h Rowwise (NeoX's [heads, 3 * head_dim] layout keeps each
  head's q, k and v in one chunk).
- gemma: HF's base_model_tp_plan for the layers (q/k/v/gate/up Colwise,
  o/down Rowwise).
- phi: q/k/v and fc1 Colwise, dense and fc2 Rowwise.
- bloom, falcon: the fused query_key_value and dense_h_to_4h Colwise,
  dense and dense_4h_to_h Rowwise (Falcon's multi-query [q heads, k, v]
  rows do not chunk per head: its k and v are gathered, with a warning).
- t5: the q/k/v of self- and cross-attention and wi Colwise, o and wo
  Rowwise, in encoder and decoder.
"""

import argparse
import json
import sys

COLWISE = {"style": "ColwiseParallel"}
ROWWISE = {"style": "RowwiseParallel"}


def _decoder(prefix, mlp):
    """Colwise/Rowwise entries of a Llama-like decoder's layers."""
    layers = prefix + "layers.*."
    entries = {
        prefix + "embed_tokens": {"style": "RowwiseParallel",
                                  "input_layouts": "Replicate()"},
        layers + "self_attn.[qkv]_proj": COLWISE,
        layers + "self_attn.o_proj": ROWWISE,
    }
    entries.update({layers + key: style for key, style in mlp.items()})
    entries["lm_head"] = {"style": "ColwiseParallel",
                          "output_layouts": "Replicate()"}
    return entries


_LLAMA_MLP = {"mlp.gate_proj": COLWISE, "mlp.up_proj": COLWISE,
              "mlp.down_proj": ROWWISE}


def _decoder_sp(prefix):
    """torchtitan's plan, with HF's names."""
    layers = prefix + "layers.*."
    gather = {"style": "PrepareModuleInput", "input_layouts": ["Shard(1)"],
              "desired_input_layouts": ["Replicate()"]}
    to_seq = {"style": "RowwiseParallel", "output_layouts": "Shard(1)"}
    seq = {"style": "SequenceParallel"}
    return {
        prefix + "embed_tokens": {"style": "RowwiseParallel",
                                  "input_layouts": "Replicate()",
                                  "output_layouts": "Shard(1)"},
        layers + "input_layernorm": seq,
        layers + "self_attn": gather,
        layers + "self_attn.[qkv]_proj": COLWISE,
        layers + "self_attn.o_proj": to_seq,
        layers + "post_attention_layernorm": seq,
        layers + "mlp": gather,
        layers + "mlp.gate_proj": COLWISE,
        layers + "mlp.up_proj": COLWISE,
        layers + "mlp.down_proj": to_seq,
        prefix + "norm": seq,
        "lm_head": {"style": "ColwiseParallel", "input_layouts": "Shard(1)",
                    "output_layouts": "Replicate()"},
    }


_EXPERTS = {"experts.*.w[13]": COLWISE, "experts.*.w2": ROWWISE}

_FUSED_QKV = {
    "transformer.h.*.self_attention.query_key_value": COLWISE,
    "transformer.h.*.self_attention.dense": ROWWISE,
    "transformer.h.*.mlp.dense_h_to_4h": COLWISE,
    "transformer.h.*.mlp.dense_4h_to_h": ROWWISE,
}

_PLANS = {
    "gpt2": lambda: {
        "transformer.h.*.attn.c_attn": COLWISE,
        "transformer.h.*.attn.c_proj": ROWWISE,
        "transformer.h.*.mlp.c_fc": COLWISE,
        "transformer.h.*.mlp.c_proj": ROWWISE,
    },
    # tp's "shard_pieces": c_attn's q, k and v rows sharded each.
    "gpt2-pieces": lambda: {
        "transformer.h.*.attn.c_attn": dict(COLWISE, shard_pieces=True),
        "transformer.h.*.attn.c_proj": ROWWISE,
        "transformer.h.*.mlp.c_fc": COLWISE,
        "transformer.h.*.mlp.c_proj": ROWWISE,
    },
    "llama": lambda: _decoder("model.", _LLAMA_MLP),
    "llama-sp": lambda: _decoder_sp("model."),
    "qwen2": lambda: _decoder("model.", _LLAMA_MLP),
    "qwen2-sp": lambda: _decoder_sp("model."),
    "bert": lambda: {
        "encoder.layer.*.attention.self.query": COLWISE,
        "encoder.layer.*.attention.self.key": COLWISE,
        "encoder.layer.*.attention.self.value": COLWISE,
        "encoder.layer.*.attention.output.dense": ROWWISE,
        "encoder.layer.*.intermediate.dense": COLWISE,
        "encoder.layer.*.output.dense": ROWWISE,
    },
    # BertForMaskedLM: the encoder's plan under `bert.`; the MLM head (its
    # decoder tied to the word embeddings) replicated.
    "bert-mlm": lambda: {"bert." + key: style
                         for key, style in _PLANS["bert"]().items()},
    "mixtral": lambda: _decoder("model.", {
        "block_sparse_moe." + key: style for key, style in _EXPERTS.items()}),
    "mixtral-moe": lambda: dict(_EXPERTS),
    "neox": lambda: {
        "gpt_neox.layers.*.attention.query_key_value": COLWISE,
        "gpt_neox.layers.*.attention.dense": ROWWISE,
        "gpt_neox.layers.*.mlp.dense_h_to_4h": COLWISE,
        "gpt_neox.layers.*.mlp.dense_4h_to_h": ROWWISE,
    },
    "gemma": lambda: {
        "model.layers.*.self_attn.[qkv]_proj": COLWISE,
        "model.layers.*.self_attn.o_proj": ROWWISE,
        **{"model.layers.*." + k: v for k, v in _LLAMA_MLP.items()},
    },
    "bloom": lambda: dict(_FUSED_QKV),
    "falcon": lambda: dict(_FUSED_QKV),
    "t5": lambda: {
        "*.block.*.layer.0.SelfAttention.[qkv]": COLWISE,
        "*.block.*.layer.0.SelfAttention.o": ROWWISE,
        "decoder.block.*.layer.1.EncDecAttention.[qkv]": COLWISE,
        "decoder.block.*.layer.1.EncDecAttention.o": ROWWISE,
        "*.block.*.layer.*.DenseReluDense.wi": COLWISE,
        "*.block.*.layer.*.DenseReluDense.wo": ROWWISE,
    },
    "phi": lambda: {
        "model.layers.*.self_attn.[qkv]_proj": COLWISE,
        "model.layers.*.self_attn.dense": ROWWISE,
        "model.layers.*.mlp.fc1": COLWISE,
        "model.layers.*.mlp.fc2": ROWWISE,
    },
}


def names():
    return list(_PLANS)


def plan(name, tp=2):
    """The plan file's contents (a dict) for model NAME on TP ranks."""
    if name not in _PLANS:
        raise KeyError(f"no plan {name!r}; plans: {', '.join(_PLANS)}")
    entries = {key: dict(style) for key, style in _PLANS[name]().items()}
    return {"mesh": {"shape": [tp], "axis_names": ["tp"]}, "plan": entries}


def dumps(contents):
    """JSON as the plan files in test/ write it: one plan entry a line."""
    lines = ['{"mesh": ' + json.dumps(contents["mesh"]) + ",",
             ' "plan": {']
    entries = [f"   {json.dumps(k)}: {json.dumps(v)}"
               for k, v in contents["plan"].items()]
    lines.append(",\n".join(entries))
    lines.append(" }}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("name", nargs="?", help="one of: " + ", ".join(_PLANS))
    p.add_argument("--tp", type=int, default=2, help="ranks (default 2)")
    p.add_argument("--list", action="store_true", help="print the names")
    a = p.parse_args(argv)
    if a.list:
        print("\n".join(_PLANS))
        return 0
    if a.name is None:
        p.error("a plan name is required (or --list)")
    try:
        text = dumps(plan(a.name, a.tp))
    except KeyError as e:
        p.error(e.args[0])
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
