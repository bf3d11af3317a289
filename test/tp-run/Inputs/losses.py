"""Compares the per-step losses of two tp-run --json runs: one line per
step, "step K: same" or "step K: differs".

With --rtol R (the second run is the reference), a loss that is not equal
but within R of the reference's, relatively, is "step K: within R", and the
last line gives the largest relative difference: "max relative difference
D".

usage: losses.py A.json B.json [--rtol R]
"""
import json
import sys


def losses(path):
    with open(path) as f:
        text = f.read()
    run, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
    return run["losses"]


args = sys.argv[1:]
rtol = None
if "--rtol" in args:
    i = args.index("--rtol")
    rtol = float(args[i + 1])
    del args[i:i + 2]
a, b = losses(args[0]), losses(args[1])
if len(a) != len(b):
    sys.exit(f"{len(a)} steps against {len(b)}")
worst = 0.0
for k, (x, y) in enumerate(zip(a, b)):
    d = abs(x - y) / abs(y) if y else abs(x - y)
    worst = max(worst, d)
    if x == y:
        print(f"step {k}: same")
    elif rtol is not None and d <= rtol:
        print(f"step {k}: within {rtol:g}")
    else:
        print(f"step {k}: differs")
if rtol is not None:
    print(f"max relative difference {worst:.3g}")
