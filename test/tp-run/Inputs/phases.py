"""Prints the collectives per phase of a tp-opt report or a tp-run --json
run, one line per phase ("backward: all_gather=5 reduce_scatter=5", "none"
without any). Given both, also checks that the run measured what the
report counts, phase by phase, and fails naming the first difference.

usage: phases.py REPORT_OR_RUN.json [RUN.json]
"""
import json
import sys


def by_phase(path):
    with open(path) as f:
        text = f.read()
    # tp-opt may print the module after the report: the first object.
    report, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
    return report["collectives_by_phase"]


first = by_phase(sys.argv[1])
for phase in ("forward", "backward", "optimizer"):
    counts = {k: v for k, v in sorted(first[phase].items()) if v}
    print(phase + ": " +
          (" ".join(f"{k}={v}" for k, v in counts.items()) or "none"))
if len(sys.argv) > 2:
    second = by_phase(sys.argv[2])
    for phase in sorted(set(first) | set(second)):
        if first.get(phase) != second.get(phase):
            sys.exit(f"{phase}: {sys.argv[1]} has {first.get(phase)}, "
                     f"{sys.argv[2]} has {second.get(phase)}")
    print("the same in both")
