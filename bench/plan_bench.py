#!/usr/bin/env python3
"""Predicted against measured: tp-plan's cost model on this machine.

For the GPT-style and the Llama model at two sizes, every hand-written plan
of the tests (1-D tensor parallel with and without sequence parallel on 2
and 4 ranks; dp x tp, sequence parallel, and FSDP x TP on 2x2) and the plan
tp-plan writes for each mesh, one AdamW training step: the step time tp-plan --evaluate predicts with a calibrated
profile (tp-plan --calibrate) against the steady-state step time tp-run
measures (the difference between a long and a short run, divided by the
steps between them, the median of --reps pairs), on the threads backend
and, with --mpi, on MPI.

  bench/plan_bench.py --build build --profile cpu.json --out plan.json

Prints two markdown tables (predicted against measured; the planner's plan
against the best hand-written plan of its mesh); --out keeps the rows as
JSON.
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

# Per mesh: the hand-written plans of the tests (1-D plans resize to the
# mesh's ranks), and the planner's plan for that mesh.
MESHES = [
    ("2", ["plans-no-sp.json", "plans-sp.json"]),
    ("4", ["plans-no-sp.json", "plans-sp.json"]),
    ("2,2", ["plans-no-sp-dp-tp.json", "plans-sp-dp-tp.json",
             "plans-sp-fsdp-tp.json"]),
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


def mpi_profile(build, out):
    """This machine's MPI profile: calibrated with 2 processes, and its
    oversubscribed link from 4 (more processes than cores here)."""
    mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
    tp_plan = os.path.join(build, "bin", "tp-plan")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    run(mpirun + ["-np", "2", tp_plan, "--calibrate", "--backend", "mpi",
                  "-o", out], env)
    run(mpirun + ["-np", "4", tp_plan, "--calibrate", "--backend", "mpi",
                  "-o", out + ".4"], env)
    profile = json.load(open(out))
    profile["oversubscribed"] = json.load(open(out + ".4"))["intra_node"]
    with open(out, "w") as f:
        json.dump(profile, f, indent=2)
    return out


def planner_plan(build, model, mesh, profile, out):
    """tp-plan's plan for `mesh`, written to `out`; its summary line."""
    cmd = [os.path.join(build, "bin", "tp-plan"), model, "--mesh-shape",
           mesh, "--hardware", profile, "--train", "--optimizer", "adamw",
           "-o", out]
    return run(cmd).strip()


def predicted_ms(build, model, plan, np, profile):
    out = run([os.path.join(build, "bin", "tp-plan"), model, "--evaluate",
               plan, "--np", str(np), "--hardware", profile, "--train",
               "--optimizer", "adamw", "--json"])
    return json.loads(out)["step_seconds"] * 1e3


def measure_mesh(args, tmp, model, arch, size, mesh, hand, backend, profile,
                 short, long):
    """The rows of one mesh on one backend: each hand-written plan and the
    planner's, predicted with `profile` and measured."""
    np = 1
    for d in mesh.split(","):
        np *= int(d)
    planned = os.path.join(tmp, "planned-%s-%s-%s-%s.json" % (
        arch, size, mesh.replace(",", "x"), backend))
    summary = planner_plan(args.build, model, mesh, profile, planned)
    print("  tp-plan --mesh-shape %s (%s): %s" % (mesh, backend, summary),
          file=sys.stderr, flush=True)
    plans = [(h[:-len(".json")], os.path.join(PLANS, h)) for h in hand]
    plans.append(("tp-plan", planned))
    rows = []
    for name, plan in plans:
        pred = predicted_ms(args.build, model, plan, np, profile)
        meas = measured_ms(args.build, model, plan, np, backend == "mpi",
                           args.reps, short, long)
        row = {"arch": arch, "size": size, "mesh": mesh, "plan": name,
               "np": np, "backend": backend, "predicted_ms": pred,
               "measured_ms": meas,
               "error_percent": 100 * (pred - meas) / meas}
        if name == "tp-plan":
            row["planner"] = summary
        rows.append(row)
        print("%-11s %-5s %-16s mesh %-3s %-7s predicted %8.3f ms, measured "
              "%8.3f ms (%+.0f%%)" % (arch, size, name, mesh, backend, pred,
                                      meas, row["error_percent"]),
              file=sys.stderr, flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--mpi", action="store_true",
                    help="also measure on MPI, predicted with a profile "
                    "calibrated under mpirun (--mpi-profile, else made)")
    ap.add_argument("--mpi-profile")
    ap.add_argument("--no-threads", action="store_true")
    ap.add_argument("--sizes", default="small,large")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        backends = [] if args.no_threads else [("threads", args.profile)]
        if args.mpi:
            backends.append(("mpi", args.mpi_profile or mpi_profile(
                args.build, os.path.join(tmp, "cpu-mpi.json"))))
        for arch in ("transformer", "llama"):
            for size in args.sizes.split(","):
                config = os.path.join(tmp, "%s-%s.json" % (arch, size))
                with open(config, "w") as f:
                    json.dump(model_config(arch, size), f)
                model = os.path.join(tmp, "%s-%s.mlir" % (arch, size))
                run([os.path.join(args.build, "bin", "tp-model"), config,
                     "-o", model])
                short, long = (2, 22) if size == "small" else (2, 8)
                for mesh, hand in MESHES:
                    for backend, profile in backends:
                        rows += measure_mesh(args, tmp, model, arch, size,
                                             mesh, hand, backend, profile,
                                             short, long)
    print("| model | size | mesh | plan | backend | predicted ms | "
          "measured ms | error |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %s | %.3f | %.3f | %+.0f%% |" % (
            r["arch"], r["size"], r["mesh"], r["plan"], r["backend"],
            r["predicted_ms"], r["measured_ms"], r["error_percent"]))
    # The planner's plan against the best hand-written one, per mesh.
    print()
    print("| model | size | mesh | backend | tp-plan measured ms | best hand "
          "plan | its measured ms | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    groups = {}
    for r in rows:
        groups.setdefault((r["arch"], r["size"], r["mesh"], r["backend"]),
                          []).append(r)
    for (arch, size, mesh, backend), group in groups.items():
        planner = [r for r in group if r["plan"] == "tp-plan"][0]
        best = min((r for r in group if r["plan"] != "tp-plan"),
                   key=lambda r: r["measured_ms"])
        print("| %s | %s | %s | %s | %.3f | %s | %.3f | %.2fx |" % (
            arch, size, mesh, backend, planner["measured_ms"], best["plan"],
            best["measured_ms"],
            planner["measured_ms"] / best["measured_ms"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
