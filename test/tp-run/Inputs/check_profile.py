"""Checks tp-run --profile --json: the rows add up to the measured step.

check_profile.py RUN.json RANKS STEPS

STEPS is the number of steps profiled: every step but the first of
several. Every figure is a time per step. Each row (phase, module) is the slowest
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
# Each step's wall time (the slowest rank's): one per step run, within the
# run, and no less than the instructions it times.
step_ms = run["step_ms"]
runs = steps + 1 if steps > 1 else 1
print("step times:", len(step_ms) == runs and all(t > 0 for t in step_ms))
print("steps within the run:", sum(step_ms) <= run["time_ms"])
profiled = step_ms[1:] if runs > 1 else step_ms
print("steps hold the instructions:",
      step * steps <= sum(profiled) / 1e3 * (1 + 1e-9))
slowest = p["slowest"]
print("slowest sorted:", all(a["seconds"] >= b["seconds"]
                             for a, b in zip(slowest, slowest[1:])))
