#!/usr/bin/python3
"""Smoke test of the Hugging Face-style models in this folder.

    check_models.py [NAME ...]

For each model (default: all) builds the tiny config with
torch.manual_seed(0), runs forward, and for the causal LMs forward with
labels and loss.backward(); prints the output shapes and the loss, and
fails if an output, the loss or a gradient is not finite or a parameter
got no gradient. `make(name)` returns (model, example_inputs) for a
future importer test; the files' own factories are also usable directly,
e.g. `tp-import .../hf/llama.py:make`.
"""

import importlib.util
import os
import sys

import torch

sys.dont_write_bytecode = True
_HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (file, factory, causal LM)
MODELS = {
    "gpt2": ("gpt2.py", "make", True),
    "llama": ("llama.py", "make", True),
    "qwen2": ("qwen2.py", "make", True),
    "bert": ("bert.py", "make", False),
    "bert-no-pooler": ("bert.py", "make_no_pooler", False),
    "mixtral": ("mixtral.py", "make", True),
    "mixtral-moe": ("mixtral.py", "make_moe", False),
}


def load(filename):
    """Imports a model file of this folder by path (as tp-import does)."""
    path = os.path.join(_HERE, filename)
    name = "hf_" + os.path.splitext(filename)[0]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make(name, labels=False):
    """(model, example_inputs dict) of model NAME, seeded with 0.

    With labels=True a causal LM's inputs also get `labels` (the input ids,
    which forward shifts), so forward returns (loss, logits)."""
    filename, factory, causal = MODELS[name]
    model, inputs = getattr(load(filename), factory)()
    if labels:
        if not causal:
            raise ValueError(f"{name} takes no labels")
        inputs = dict(inputs, labels=inputs["input_ids"].clone())
    return model, inputs


def _outputs(out):
    return [out] if isinstance(out, torch.Tensor) else list(out)


def _check_finite(what, tensors):
    for i, t in enumerate(tensors):
        if not torch.isfinite(t).all():
            raise AssertionError(f"{what}: output {i} is not finite")


def check(name):
    model, inputs = make(name)
    model.eval()
    with torch.no_grad():
        outs = _outputs(model(**inputs))
    _check_finite(name, outs)
    shapes = ", ".join(str(tuple(o.shape)) for o in outs)
    params = sum(p.numel() for p in model.parameters())
    line = f"{name:15s} params {params:6d}  outputs {shapes}"
    model.train()
    if MODELS[name][2]:
        model, inputs = make(name, labels=True)
        loss, logits = model(**inputs)
        # The output without labels is the logits of the output with them.
        if not torch.allclose(logits, outs[0], atol=1e-6):
            raise AssertionError(f"{name}: logits differ with labels")
    else:
        # No loss of its own: backward through the sum of the outputs.
        loss = sum(o.float().pow(2).mean() for o in _outputs(model(**inputs)))
    _check_finite(name + " loss", [loss])
    loss.backward()
    for pname, p in model.named_parameters():
        if p.grad is None:
            raise AssertionError(f"{name}: {pname} got no gradient")
        _check_finite(f"{name} grad of {pname}", [p.grad])
    kind = "loss" if MODELS[name][2] else "mean-square"
    return line + f"  {kind} {loss.item():.6f}"


def main(argv):
    torch.set_printoptions(precision=6)
    for name in argv or MODELS:
        print(check(name))
    print("all finite")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
