"""Checks that training state memory falls as 1/np: given the `tp-run --json`
reports of one rank and of N ranks of the same model and optimizer, the
predicted parameters + gradients + optimizer state of one rank of the N is
the one-rank figure over N, to within --tolerance (a fraction of it:
parameters replicated over an axis, such as norm weights over tp, and
uneven pieces stay larger). Prints one line for FileCheck; exits 1 saying what differs."""

import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("one", help="report of the run on 1 rank")
parser.add_argument("many", help="report of the run on N ranks")
parser.add_argument("--tolerance", type=float, default=0.0)
args = parser.parse_args()


def state(path):
    with open(path) as f:
        report = json.load(f)
    memory = report["memory"]
    return report["np"], (memory["parameter_bytes"] + memory["gradient_bytes"]
                          + memory["optimizer_bytes"])


_, one = state(args.one)
n, many = state(args.many)
expected = one / n
if abs(many - expected) > args.tolerance * expected:
    print("state FAILED: %d bytes per rank on %d ranks, expected %d / %d = %g"
          % (many, n, one, n, expected))
    sys.exit(1)
print("state ok: %d bytes per rank on %d ranks = %d / %d" % (many, n, one, n))
