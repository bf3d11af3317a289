"""Compares the per-step losses of two tp-run --json runs: one line per
step, "step K: same" or "step K: differs".

usage: losses.py A.json B.json
"""
import json
import sys


def losses(path):
    with open(path) as f:
        text = f.read()
    run, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
    return run["losses"]


a, b = losses(sys.argv[1]), losses(sys.argv[2])
if len(a) != len(b):
    sys.exit(f"{len(a)} steps against {len(b)}")
for k, (x, y) in enumerate(zip(a, b)):
    print(f"step {k}: " + ("same" if x == y else "differs"))
