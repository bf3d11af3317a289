"""Checks tp-run --profile --json: the rows add up to the measured step.

check_profile.py RUN.json RANKS STEPS

Every figure is a time per step. Each row (phase, module) is the slowest
rank's, so the rows of a 1-rank run add up to its step exactly, and those of
several ranks to at least the step (the slowest rank's total) and at most
the ranks' totals added up.
"""
import json
import sys

run = json.load(open(sys.argv[1]))
ranks, steps = int(sys.argv[2]), int(sys.argv[3])
p = run["profile"]
step = p["step_seconds"]
print("steps:", p["steps"] == steps)
print("step positive:", step > 0)
# The step is within the run's wall time (which also counts setup).
print("within the run:", step * p["steps"] <= run["time_ms"] / 1e3)
for key in ("phases", "modules"):
    total = sum(r["compute_seconds"] + r["communication_seconds"]
                for r in p[key])
    if ranks == 1:
        ok = abs(total - step) <= 1e-6 * step
    else:
        ok = step * (1 - 1e-6) <= total <= ranks * step * (1 + 1e-6)
    print("%s add up:" % key, ok)
colls = sum(r["collectives"] for r in p["phases"])
print("collectives:", colls, colls == sum(r["collectives"]
                                          for r in p["modules"]))
slowest = p["slowest"]
print("slowest sorted:", all(a["seconds"] >= b["seconds"]
                             for a, b in zip(slowest, slowest[1:])))
