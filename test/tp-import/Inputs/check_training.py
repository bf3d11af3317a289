#!/usr/bin/python3
"""Compares a tp-run --train run with PyTorch's own training steps.

    check_training.py MODEL.py:FACTORY WEIGHTS INPUTS SUMMARY.json
                      [--final-weights W.safetensors] [--optimizer adamw]
                      [--lr LR] [--weight-decay WD] [--rtol R] [--atol A]
                      [--param-atol P]

Rebuilds the module with FACTORY, loads the weights and inputs tp-run
read, and runs len(losses) steps of torch.autograd and torch.optim (SGD or
AdamW with tp-run's defaults: betas 0.9, 0.999, eps 1e-8, weight decay 0
for SGD and 0.01 for AdamW). The loss is forward's first result. Asserts
that each step's loss matches tp-run's (`losses` of --json) and, with
--final-weights (tp-run --dump-weights), that every parameter after the
last step does; prints the largest differences.
"""

import argparse
import inspect
import json
import os
import sys

import torch

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_outputs import load, safetensors  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("spec")
    p.add_argument("weights")
    p.add_argument("inputs")
    p.add_argument("summary")
    p.add_argument("--final-weights")
    p.add_argument("--optimizer", default="sgd", choices=["sgd", "adamw"])
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--weight-decay", type=float)
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-5)
    # AdamW divides each gradient element by its own magnitude, so an
    # element whose gradient is rounding noise in both runs moves by up to
    # lr in either: parameters compare looser than losses.
    p.add_argument("--param-atol", type=float, default=1e-4)
    a = p.parse_args()
    # tp-run's training step: dropout in train mode; these models have none
    # with p > 0, so eval mode (load's) is the same program.
    module, example = load(a.spec, a.weights)
    params = dict(module.named_parameters())
    inputs = safetensors.read(a.inputs)
    # A tuple example is forward's leading parameters, as tp-import names
    # the inputs.
    names = list(example) if isinstance(example, dict) else list(
        inspect.signature(module.forward).parameters)[:len(example)]
    wd = a.weight_decay
    if a.optimizer == "adamw":
        opt = torch.optim.AdamW(module.parameters(), lr=a.lr,
                                weight_decay=0.01 if wd is None else wd)
    else:
        opt = torch.optim.SGD(module.parameters(), lr=a.lr,
                              weight_decay=0.0 if wd is None else wd)
    want = json.load(open(a.summary))["losses"]
    worst = 0.0
    for step, tp_loss in enumerate(want):
        opt.zero_grad()
        out = module(**{k: inputs[k] for k in names})
        loss = out if isinstance(out, torch.Tensor) else out[0]
        diff = abs(loss.item() - tp_loss)
        worst = max(worst, diff / max(abs(loss.item()), 1e-30))
        assert diff <= a.atol + a.rtol * abs(loss.item()), \
            f"step {step}: PyTorch's loss {loss.item()}, tp's {tp_loss}"
        loss.backward()
        opt.step()
    print(f"losses match PyTorch: {len(want)} step(s), max rel diff "
          f"{worst:.3g}")
    if a.final_weights:
        got = safetensors.read(a.final_weights)
        worst_w = 0.0
        for fqn, param in params.items():
            have = got[fqn].float()
            d = (have - param.detach().float()).abs().max().item()
            worst_w = max(worst_w, d)
            assert torch.allclose(have, param.detach().float(),
                                  atol=a.param_atol, rtol=a.rtol), \
                f"{fqn}: max abs diff {d}"
        print(f"parameters match PyTorch: {len(params)}, max abs diff "
              f"{worst_w:.3g}")


if __name__ == "__main__":
    main()
