"""The Hugging Face-style Llama of test/tp-import/Inputs/hf/llama.py at the
end-to-end benchmark's llama shape (bench/models.py CONFIGS["llama"]), as a
tp-import factory: imported through the generic ops (rotate_half as slices
and a concat, RMSNorm upcasting through casts, repeat_kv folded into the
attention) to compare with tp-model's built-in llama.

    tp-import bench/hf_models.py:llama -o OUT/hf_llama.mlir
    python3 bench/hf_models.py --plan 2 > OUT/hf_llama_plan.json

The plan is bench/models.py's llama plan under Hugging Face's module names
(embedding and output column-wise, gathered back to Replicate; q/k/v and
gate/up column-wise, o and down row-wise), so that both run the same
collectives.
"""
import argparse
import importlib.util
import json
import os

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config():
    spec = importlib.util.spec_from_file_location(
        "bench_models", os.path.join(_HERE, "models.py"))
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    return models.CONFIGS["llama"]


def llama(layers=2):
    """LlamaForCausalLM at the benchmark's shape, ids [batch, seq]."""
    hf = _load("hf_llama", os.path.join(
        _HERE, "..", "test", "tp-import", "Inputs", "hf", "llama.py"))
    c = _config()
    config = hf.LlamaConfig(
        vocab_size=c["vocab_size"], hidden_size=c["dim"],
        intermediate_size=c["hidden_dim"], num_hidden_layers=layers,
        num_attention_heads=c["n_heads"], num_key_value_heads=c["n_kv_heads"],
        max_position_embeddings=c["max_seq_len"], rms_norm_eps=1e-5)
    torch.manual_seed(0)
    model = hf.LlamaForCausalLM(config)
    ids = torch.randint(0, c["vocab_size"], (c["batch"], c["seq_len"]))
    return model, {"input_ids": ids}


def plan(tp):
    colwise, rowwise = {"style": "ColwiseParallel"}, {"style": "RowwiseParallel"}
    gathered = {"style": "ColwiseParallel", "output_layouts": "Replicate()"}
    layers = "model.layers.*."
    return {"mesh": {"shape": [tp], "axis_names": ["tp"]},
            "plan": {"model.embed_tokens": gathered,
                     layers + "self_attn.[qkv]_proj": colwise,
                     layers + "self_attn.o_proj": rowwise,
                     layers + "mlp.gate_proj": colwise,
                     layers + "mlp.up_proj": colwise,
                     layers + "mlp.down_proj": rowwise,
                     "lm_head": gathered}}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", type=int, required=True, metavar="TP",
                    help="print the plan for a TP-way mesh")
    print(json.dumps(plan(ap.parse_args().plan), indent=1))
