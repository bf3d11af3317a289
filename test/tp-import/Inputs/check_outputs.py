#!/usr/bin/python3
"""Compares tp-run's --dump-outputs with PyTorch's own forward.

    check_outputs.py MODEL.py:FACTORY WEIGHTS INPUTS OUTPUTS [--atol A]
                     [--rtol R] [--weights-prefix P]

Rebuilds the module with FACTORY, loads the weights tp-run read (keys
P + FQN) and the inputs, runs forward in eval mode and asserts that each
output (`output`, or `output0`, `output1`, ...) matches within
torch.allclose(atol, rtol). Prints the largest absolute difference.
"""

import argparse
import importlib.util
import os
import sys

import torch

# The safetensors module of tp-import's sources (no bytecode written there).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "tools", "tp-import"))
from tp_import import safetensors  # noqa: E402


def load(spec, weights, prefix=""):
    """(module, example_inputs) of FACTORY in `spec` (MODEL.py:FACTORY),
    in eval mode, its parameters those of the safetensors file `weights`
    (keys `prefix` + FQN)."""
    path, _, name = spec.rpartition(":")
    py_spec = importlib.util.spec_from_file_location("model_under_test", path)
    mod = importlib.util.module_from_spec(py_spec)
    py_spec.loader.exec_module(mod)
    module, example = getattr(mod, name)()
    module.eval()
    state = {k[len(prefix):]: v for k, v in safetensors.read(weights).items()
             if k.startswith(prefix)}
    missing, _ = module.load_state_dict(state, strict=False)
    params = {n for n, _ in module.named_parameters()}
    assert not params & set(missing), f"weights miss {params & set(missing)}"
    return module, example


def main():
    p = argparse.ArgumentParser()
    p.add_argument("spec")
    p.add_argument("weights")
    p.add_argument("inputs")
    p.add_argument("outputs")
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--weights-prefix", default="")
    a = p.parse_args()
    module, example = load(a.spec, a.weights, a.weights_prefix)
    inputs = safetensors.read(a.inputs)
    with torch.no_grad():
        if isinstance(example, dict):
            out = module(**{k: inputs[k] for k in example})
        else:
            import inspect
            names = list(inspect.signature(module.forward).parameters)
            out = module(*[inputs[n] for n in names[:len(example)]])
    outs = [out] if isinstance(out, torch.Tensor) else list(out)
    got = safetensors.read(a.outputs)
    worst = 0.0
    for i, want in enumerate(outs):
        key = "output" if len(outs) == 1 else f"output{i}"
        have = got[key]
        assert have.shape == want.shape, (key, have.shape, want.shape)
        diff = (have.float() - want.float()).abs().max().item()
        worst = max(worst, diff)
        assert torch.allclose(have.float(), want.float(), atol=a.atol,
                              rtol=a.rtol), f"{key}: max abs diff {diff}"
    print(f"outputs match PyTorch: {len(outs)} output(s), "
          f"max abs diff {worst:.3g}")


if __name__ == "__main__":
    main()
