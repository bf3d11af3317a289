#!/usr/bin/env python3
"""The transformer and llama configs and TP plans the benchmarks use.

As a script it writes, for the end-to-end benchmark, OUT/{arch}.json (a
tp-model config), OUT/{arch}.mlir (tp-model's output) and
OUT/{arch}_plan.json for each architecture:

    models.py --tp-model build/bin/tp-model --out DIR [--layers 2]
              [--batch 4] [--seq 128] [--archs transformer,llama]

With --train it writes the training benchmark's models instead (each with
"loss": true): OUT/train.{json,mlir} and OUT/train_plan.json (the
transformer of the end-to-end benchmark and its plan), and the
long-sequence transformer of the memory table, OUT/long.{json,mlir}, with
OUT/long_plan_{nosp,sp,sp_lp}.json (no sequence parallelism; SP; SP with
loss_parallel).
"""
import argparse
import json
import os
import subprocess

# dim >= 1024 so that GEMMs dominate; vocab and sequence small so that one
# forward pass takes well under a second on one core.
CONFIGS = {
    "transformer": {"arch": "transformer", "dim": 1024, "n_heads": 16,
                    "vocab_size": 2048, "max_seq_len": 128, "batch": 4,
                    "seq_len": 128},
    "llama": {"arch": "llama", "dim": 1024, "n_heads": 16, "n_kv_heads": 8,
              "vocab_size": 2048, "hidden_dim": 2816, "max_seq_len": 128,
              "batch": 4, "seq_len": 128},
}


def plan(arch, tp):
    """torchtitan's plan minus SequenceParallel: embedding and output
    column-parallel (gathered back to Replicate), attention and MLP
    Colwise/Rowwise."""
    ffn = ("layers.*.feed_forward.w1" if arch == "transformer"
           else "layers.*.feed_forward.w[13]")
    return {"mesh": {"shape": [tp], "axis_names": ["tp"]},
            "plan": {"tok_embeddings": {"style": "ColwiseParallel",
                                        "output_layouts": "Replicate()"},
                     "layers.*.attention.w[qkv]": {"style": "ColwiseParallel"},
                     "layers.*.attention.wo": {"style": "RowwiseParallel"},
                     ffn: {"style": "ColwiseParallel"},
                     "layers.*.feed_forward.w2": {"style": "RowwiseParallel"},
                     "output": {"style": "ColwiseParallel",
                                "output_layouts": "Replicate()"}}}


# Long sequences, so that activations outweigh parameters: the memory table
# of the training benchmark (not run, its liveness plan is read).
LONG = {"arch": "transformer", "dim": 512, "n_heads": 8, "vocab_size": 2048,
        "max_seq_len": 2048, "batch": 1, "seq_len": 2048, "n_layers": 2,
        "loss": True}


def sp_plan(tp, loss_parallel=False):
    """Megatron's sequence parallelism on the transformer: the norms and the
    residual stream sharded on the sequence, gathered into the attention
    and the MLP, reduce-scattered out of them; with loss_parallel the
    logits stay sharded on the vocabulary into the loss."""
    out = {"style": "ColwiseParallel", "input_layouts": "Shard(1)"}
    if loss_parallel:
        out["use_local_output"] = False
    else:
        out["output_layouts"] = "Replicate()"
    shard = {"style": "PrepareModuleInput", "input_layouts": ["Shard(1)"],
             "desired_input_layouts": ["Replicate()"]}
    p = {"mesh": {"shape": [tp], "axis_names": ["tp"]},
         "plan": {"tok_embeddings": {"style": "RowwiseParallel",
                                     "input_layouts": "Replicate()",
                                     "output_layouts": "Shard(1)"},
                  "layers.*.attention_norm": {"style": "SequenceParallel"},
                  "layers.*.attention": shard,
                  "layers.*.attention.w[qkv]": {"style": "ColwiseParallel"},
                  "layers.*.attention.wo": {"style": "RowwiseParallel",
                                            "output_layouts": "Shard(1)"},
                  "layers.*.ffn_norm": {"style": "SequenceParallel"},
                  "layers.*.feed_forward": shard,
                  "layers.*.feed_forward.w1": {"style": "ColwiseParallel"},
                  "layers.*.feed_forward.w2": {"style": "RowwiseParallel",
                                               "output_layouts": "Shard(1)"},
                  "norm": {"style": "SequenceParallel"},
                  "output": out}}
    if loss_parallel:
        p["loss_parallel"] = True
    return p


def write_train_models(tp_model, out_dir, layers=2):
    """The training benchmark's models and plans (see the module doc)."""
    def emit(name, cfg, plans):
        cfg_path = os.path.join(out_dir, f"{name}.json")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f, indent=1)
        subprocess.run([tp_model, cfg_path, "-o",
                        os.path.join(out_dir, f"{name}.mlir")], check=True)
        for suffix, p in plans.items():
            with open(os.path.join(out_dir, f"{name}_plan{suffix}.json"),
                      "w") as f:
                json.dump(p, f, indent=1)
    emit("train", dict(CONFIGS["transformer"], n_layers=layers, loss=True),
         {"": plan("transformer", 2)})
    emit("long", LONG, {"_nosp": plan("transformer", 2), "_sp": sp_plan(2),
                        "_sp_lp": sp_plan(2, loss_parallel=True)})


def write_model(tp_model, out_dir, arch, layers, tp=2, **overrides):
    """Writes {name}.json, {name}.mlir and {name}_plan.json; returns the
    (mlir, plan) paths. name is arch, or arch_N when overrides are empty and
    layers is given for a sweep (see compile_bench.py)."""
    name = overrides.pop("name", arch)
    cfg = dict(CONFIGS[arch], n_layers=layers, **overrides)
    cfg_path = os.path.join(out_dir, f"{name}.json")
    mlir_path = os.path.join(out_dir, f"{name}.mlir")
    plan_path = os.path.join(out_dir, f"{arch}_plan.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=1)
    with open(plan_path, "w") as f:
        json.dump(plan(arch, tp), f, indent=1)
    subprocess.run([tp_model, cfg_path, "-o", mlir_path], check=True)
    return mlir_path, plan_path


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tp-model", default="build/bin/tp-model")
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--archs", default="transformer,llama")
    ap.add_argument("--train", action="store_true",
                    help="write the training benchmark's models instead")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.train:
        write_train_models(a.tp_model, a.out, a.layers)
        return
    for arch in a.archs.split(","):
        write_model(a.tp_model, a.out, arch, a.layers, batch=a.batch,
                    seq_len=a.seq, max_seq_len=max(a.seq, 128))


if __name__ == "__main__":
    main()
