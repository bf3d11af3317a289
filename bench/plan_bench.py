#!/usr/bin/env python3
"""Predicted against measured: tp-plan's cost model on this machine.

For the GPT-style and the Llama model at two sizes, every hand-written plan
of the tests (1-D tensor parallel with and without sequence parallel on 2
and 4 ranks; dp x tp, sequence parallel, and FSDP x TP on 2x2), one AdamW
training step: the step time tp-plan --evaluate predicts with a calibrated
profile (tp-plan --calibrate) against the steady-state step time tp-run
measures (the difference between a long and a short run, divided by the
steps between them, the median of --reps pairs), on the threads backend
and, with --mpi, on MPI.

  bench/plan_bench.py --build build --profile cpu.json --out plan.json

Prints a markdown table; --out keeps the rows as JSON.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLANS = os.path.join(ROOT, "test", "tp-run", "Inputs")

SIZES = {
    # The examples' shapes (examples/transformer.json, llama.json).
    "small": {"dim": 64, "n_layers": 2, "n_heads": 4, "vocab_size": 128,
              "max_seq_len": 32, "batch": 2, "seq_len": 16},
    # Four times wider and twice as deep, longer sequences.
    "large": {"dim": 256, "n_layers": 4, "n_heads": 8, "vocab_size": 512,
              "max_seq_len": 64, "batch": 4, "seq_len": 64},
}

# (plan file, ranks): 1-D plans resize to --np; 2-D ones are 2x2.
RUNS = [
    ("plans-no-sp.json", 2), ("plans-sp.json", 2),
    ("plans-no-sp.json", 4), ("plans-sp.json", 4),
    ("plans-no-sp-dp-tp.json", 4), ("plans-sp-dp-tp.json", 4),
    ("plans-sp-fsdp-tp.json", 4),
]


def model_config(arch, size):
    config = {"arch": arch, "loss": True}
    config.update(SIZES[size])
    if arch == "llama":
        config["n_kv_heads"] = config["n_heads"] // 2
        config["hidden_dim"] = config["dim"] * 3 // 2
    return config


def run(cmd, env=None):
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out.stderr))
    return out.stdout


def measured_ms(build, model, plan, np, mpi, reps, short, long):
    """The steady-state ms per step: (time of `long` steps - time of
    `short` steps) / (long - short), the median of `reps` pairs."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    tp_run = os.path.join(build, "bin", "tp-run")

    def time_of(steps):
        cmd = [tp_run, model, "--plan", plan, "--train", "--optimizer",
               "adamw", "--steps", str(steps), "--json"]
        if mpi:
            cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np",
                   str(np)] + cmd + ["--backend", "mpi"]
        else:
            cmd += ["--np", str(np)]
        return json.loads(run(cmd, env))["time_ms"]

    per_step = []
    for _ in range(reps):
        per_step.append((time_of(long) - time_of(short)) / (long - short))
    return statistics.median(per_step)


def predicted_ms(build, model, plan, np, profile):
    out = run([os.path.join(build, "bin", "tp-plan"), model, "--evaluate",
               plan, "--np", str(np), "--hardware", profile, "--train",
               "--optimizer", "adamw", "--json"])
    return json.loads(out)["step_seconds"] * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--mpi", action="store_true")
    ap.add_argument("--sizes", default="small,large")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ("transformer", "llama"):
            for size in args.sizes.split(","):
                config = os.path.join(tmp, "%s-%s.json" % (arch, size))
                with open(config, "w") as f:
                    json.dump(model_config(arch, size), f)
                model = os.path.join(tmp, "%s-%s.mlir" % (arch, size))
                run([os.path.join(args.build, "bin", "tp-model"), config,
                     "-o", model])
                short, long = (2, 22) if size == "small" else (2, 8)
                for plan_name, np in RUNS:
                    plan = os.path.join(PLANS, plan_name)
                    pred = predicted_ms(args.build, model, plan, np,
                                        args.profile)
                    for backend in ["threads"] + (["mpi"] if args.mpi else []):
                        meas = measured_ms(args.build, model, plan, np,
                                           backend == "mpi", args.reps,
                                           short, long)
                        row = {"arch": arch, "size": size,
                               "plan": plan_name[:-len(".json")], "np": np,
                               "backend": backend, "predicted_ms": pred,
                               "measured_ms": meas,
                               "error_percent": 100 * (pred - meas) / meas}
                        rows.append(row)
                        print("%-11s %-5s %-16s np %d %-7s predicted %8.3f "
                              "ms, measured %8.3f ms (%+.0f%%)" % (
                                  arch, size, row["plan"], np, backend, pred,
                                  meas, row["error_percent"]),
                              file=sys.stderr, flush=True)
    print("| model | size | plan | ranks | backend | predicted ms | "
          "measured ms | error |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %d | %s | %.3f | %.3f | %+.0f%% |" % (
            r["arch"], r["size"], r["plan"], r["np"], r["backend"],
            r["predicted_ms"], r["measured_ms"], r["error_percent"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
