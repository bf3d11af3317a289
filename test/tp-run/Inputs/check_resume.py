"""Checks of tp-run's checkpoints, one line each for FileCheck; exits 1
naming what failed.

usage:
  check_resume.py losses FULL.json START RESUMED.json [TOL]
      the losses of a run resumed after step START equal the steps after
      START of the uninterrupted run FULL (within TOL, default 1e-6,
      relative to max(1, |loss|))
  check_resume.py same A.json B.json [TOL]
      two whole runs of the same steps (other plans or meshes) have the
      same losses, within TOL as above
  check_resume.py weights CHECKPOINT.safetensors WEIGHTS.safetensors
      the checkpoint file holds every tensor of WEIGHTS (tp-run
      --dump-weights of the same step) under the same name, shape, dtype
      and bytes, and otherwise only optimizer state ("optim.state.<FQN>.*"
      of a parameter)
"""
import json
import struct
import sys


def report(path):
    with open(path) as f:
        text = f.read()
    run, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
    return run


def safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    body = data[8 + n:]
    return {k: (v["dtype"], v["shape"], body[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in header.items()}


def losses(args):
    full, start, resumed = report(args[0])["losses"], int(args[1]), report(args[2])
    tol = float(args[3]) if len(args) > 3 else 1e-6
    got = resumed["losses"]
    want = full[start:start + len(got)]
    if len(want) != len(got) or not got:
        sys.exit(f"{len(got)} resumed losses against {len(want)} after step {start}")
    if resumed.get("resumed_from", {}).get("step") != start:
        sys.exit(f"the report says it resumed from {resumed.get('resumed_from')}")
    diff = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(got, want))
    if diff > tol:
        sys.exit(f"resumed losses {got} differ from {want} by {diff:.3g}")
    print(f"resumed after step {start}: {len(got)} losses equal (within {tol:g})")


def same(args):
    a, b = report(args[0])["losses"], report(args[1])["losses"]
    tol = float(args[2]) if len(args) > 2 else 1e-6
    if len(a) != len(b) or not a:
        sys.exit(f"{len(a)} losses against {len(b)}")
    diff = max(abs(x - y) / max(1.0, abs(y)) for x, y in zip(a, b))
    if diff > tol:
        sys.exit(f"losses {a} differ from {b} by {diff:.3g}")
    print(f"{len(a)} losses equal (within {tol:g})")


def weights(args):
    ckpt, dumped = safetensors(args[0]), safetensors(args[1])
    for name, value in dumped.items():
        if name not in ckpt:
            sys.exit(f"the checkpoint has no '{name}'")
        if ckpt[name] != value:
            sys.exit(f"'{name}' differs: {ckpt[name][:2]} against {value[:2]}")
    extra = [k for k in ckpt if k not in dumped]
    for k in extra:
        fqn = k[len("optim.state."):].rsplit(".", 1)[0]
        if not k.startswith("optim.state.") or fqn not in dumped:
            sys.exit(f"unexpected tensor '{k}' in the checkpoint")
    print(f"checkpoint file: {len(dumped)} parameters by FQN, "
          f"{len(extra)} optimizer state tensors")


{"losses": losses, "same": same, "weights": weights}[sys.argv[1]](sys.argv[2:])
