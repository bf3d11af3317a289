"""Checks the "memory" object of a `tp-run --json` report on stdin: the
predicted peak of each rank's tensor memory is within --tolerance (a
fraction) of the peak the run measured, and the peak's breakdown by kind
adds up to it. Prints one line for FileCheck; exits 1 naming what failed."""

import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--tolerance", type=float, default=0.10)
args = parser.parse_args()

report = json.load(sys.stdin)
memory = report["memory"]
predicted = memory["predicted_peak_bytes"]
measured = memory["measured_peak_bytes"]
problems = []
if measured <= 0:
    problems.append("nothing measured")
elif abs(predicted - measured) > args.tolerance * measured:
    problems.append("predicted %d bytes, measured %d (%.1f%%, more than %g%%)"
                    % (predicted, measured, memory["error_percent"],
                       100 * args.tolerance))
kinds = memory["peak_by_kind"]
if sum(kinds.values()) != predicted:
    problems.append("the peak's kinds add up to %d, not %d"
                    % (sum(kinds.values()), predicted))
if problems:
    print("memory FAILED: " + "; ".join(problems))
    sys.exit(1)
print("memory ok: %s rank(s), predicted within %g%%"
      % (report["np"], 100 * args.tolerance))
