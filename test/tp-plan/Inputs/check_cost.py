"""Checks that a tp-plan --evaluate --json report adds up: the step is its
compute plus the waiting on collectives, and the phases and the modules
each sum to the total."""
import json
import sys

report = json.load(open(sys.argv[1]))
total = report["total"]


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def sums(parts):
    keys = ["compute_seconds", "communication_seconds", "exposed_seconds",
            "flops", "communication_bytes", "collectives"]
    return all(close(sum(p[k] for p in parts), total[k]) for k in keys)


ok = close(total["compute_seconds"] + total["exposed_seconds"],
           report["step_seconds"])
print("step = compute + exposed:", "ok" if ok else "WRONG")
print("phases sum to the total:",
      "ok" if sums(list(report["phases"].values())) else "WRONG")
print("modules sum to the total:",
      "ok" if sums([m["cost"] for m in report["modules"]]) else "WRONG")
memory = report["memory"]
print("memory: %.2f KiB predicted, %d ranks, %d runs" % (
    memory["predicted_peak_bytes"] / 1024, memory["np"], memory["runs"]))
