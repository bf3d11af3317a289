#!/usr/bin/env python3
"""Predicted against measured: tp-plan's cost model on this machine.

For the GPT-style and the Llama model at two sizes, every hand-written plan
of the tests (1-D tensor parallel with and without sequence parallel on 2
and 4 ranks; dp x tp, sequence parallel, and FSDP x TP on 2x2) and the plan
tp-plan writes for each mesh (with --profile), one AdamW training step: the
step time tp-plan --evaluate predicts against the steady step tp-run
measures (the median of its step_ms after the first step, over --reps runs
of each plan, the plans of a mesh run in turn), on the threads backend and,
with --mpi, on MPI. The prediction's profile is the median of the
calibrations (tp-plan --calibrate) run between the repetitions: the
machine as it ran during the measurement. A plan the planner
writes that compiles to the program of a hand-written one is named so.

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


# One OpenBLAS thread per rank, as tp-plan --calibrate measures.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")


def run(cmd, env=None):
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out.stderr))
    return out.stdout


def tp_run_cmd(build, model, plan, np, mpi, steps):
    cmd = [os.path.join(build, "bin", "tp-run"), model, "--plan", plan,
           "--train", "--optimizer", "adamw", "--steps", str(steps)]
    if mpi:
        return ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np",
                str(np)] + cmd + ["--backend", "mpi"]
    return cmd + ["--np", str(np)]


def step_times(build, model, plan, np, mpi, steps):
    """The wall ms of each step after the first of one run of `steps`
    (tp-run's step_ms: the slowest rank's run of the step's program)."""
    out = run(tp_run_cmd(build, model, plan, np, mpi, steps) + ["--json"],
              ENV)
    return json.loads(out)["step_ms"][1:]


def program_text(build, model, plan, np):
    """The per-rank program a plan compiles to (tp-run --dump-program): two
    plans with the same text are the same plan."""
    return run(tp_run_cmd(build, model, plan, np, False, 1) +
               ["--dump-program"], ENV)


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def mpi_profile(build, out):
    """This machine's MPI profile: calibrated with 2 processes, and its
    oversubscribed link from 4 (more processes than cores here)."""
    mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
    tp_plan = os.path.join(build, "bin", "tp-plan")
    run(mpirun + ["-np", "2", tp_plan, "--calibrate", "--backend", "mpi",
                  "-o", out], ENV)
    run(mpirun + ["-np", "4", tp_plan, "--calibrate", "--backend", "mpi",
                  "-o", out + ".4"], ENV)
    profile = json.load(open(out))
    profile["oversubscribed"] = json.load(open(out + ".4"))["intra_node"]
    with open(out, "w") as f:
        json.dump(profile, f, indent=2)
    return out


def calibrate(build, backend, out):
    """This machine's profile now, calibrated for `backend`."""
    if backend == "mpi":
        return mpi_profile(build, out)
    run([os.path.join(build, "bin", "tp-plan"), "--calibrate", "-o", out],
        ENV)
    return out


def median_profile(paths, out):
    """The profile whose every figure is the median of the profiles': the
    machine as it ran over the repetitions they were calibrated between."""
    profiles = [json.load(open(p)) for p in paths]

    def merge(values):
        first = values[0]
        if isinstance(first, dict):
            return {k: merge([v[k] for v in values]) for k in first}
        if isinstance(first, (int, float)) and not isinstance(first, bool):
            return statistics.median(values)
        return first

    with open(out, "w") as f:
        json.dump(merge(profiles), f, indent=2)
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
                 steps):
    """The rows of one mesh on one backend: each hand-written plan and the
    planner's (planned with `profile`), measured and predicted with the
    machine's profile over the measurement (calibrated before each
    repetition)."""
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
    # The planner's plan may be one of the hand-written ones: the same
    # program, which the tables say rather than compare with itself.
    texts = {name: program_text(args.build, model, plan, np)
             for name, plan in plans}
    same = [name for name, _ in plans[:-1] if texts[name] == texts["tp-plan"]]
    # Interleaved: each repetition runs every plan once, starting from the
    # next plan each time, so that the machine's slow and fast minutes fall
    # on all of them alike; each plan's measure is the median of its steps
    # after the first over all repetitions.
    # The machine's speed drifts by tens of percent over minutes here: it
    # is calibrated again between the repetitions (before the first and
    # after the last too), and the plans are predicted with the median of
    # those calibrations.
    samples = {name: [] for name, _ in plans}
    calibrations = []

    def calibrate_now():
        calibrations.append(calibrate(args.build, backend, os.path.join(
            tmp, "cal-%s-%d.json" % (backend, len(calibrations)))))

    for rep in range(args.reps):
        calibrate_now()
        for i in range(len(plans)):
            name, plan = plans[(rep + i) % len(plans)]
            samples[name] += step_times(args.build, model, plan, np,
                                        backend == "mpi", steps)
    calibrate_now()
    during = median_profile(calibrations,
                            os.path.join(tmp, "cal-%s.json" % backend))
    rows = []
    for name, plan in plans:
        pred = predicted_ms(args.build, model, plan, np, during)
        low, meas, high = quartiles(samples[name])
        row = {"arch": arch, "size": size, "mesh": mesh, "plan": name,
               "np": np, "backend": backend, "predicted_ms": pred,
               "measured_ms": meas, "quartiles_ms": [low, high],
               "steps": len(samples[name]),
               "error_percent": 100 * (pred - meas) / meas}
        if name == "tp-plan":
            row["planner"] = summary
            row["same_as"] = same
        row["profile"] = json.load(open(during))
        rows.append(row)
        print("%-11s %-5s %-16s mesh %-3s %-7s predicted %8.3f ms, measured "
              "%8.3f ms [%.3f, %.3f] (%+.0f%%)" % (
                  arch, size, name, mesh, backend, pred, meas, low, high,
                  row["error_percent"]), file=sys.stderr, flush=True)
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
                steps = 21 if size == "small" else 7
                for mesh, hand in MESHES:
                    for backend, profile in backends:
                        rows += measure_mesh(args, tmp, model, arch, size,
                                             mesh, hand, backend, profile,
                                             steps)
    print("| model | size | mesh | plan | backend | predicted ms | "
          "measured ms | quartiles | error |")
    print("|---|---|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        name = r["plan"]
        if r.get("same_as"):
            name += " (= %s)" % ", ".join(r["same_as"])
        print("| %s | %s | %s | %s | %s | %.3f | %.3f | %.3f-%.3f | %+.0f%% |"
              % (r["arch"], r["size"], r["mesh"], name, r["backend"],
                 r["predicted_ms"], r["measured_ms"], r["quartiles_ms"][0],
                 r["quartiles_ms"][1], r["error_percent"]))
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
        # The best hand plan may be the planner's own program: the gap
        # between their two measures is the machine's noise.
        ratio = "%.2fx" % (planner["measured_ms"] / best["measured_ms"])
        if best["plan"] in planner["same_as"]:
            ratio = "1.00x (the same program; measured %s)" % ratio
        print("| %s | %s | %s | %s | %.3f | %s | %.3f | %s |" % (
            arch, size, mesh, backend, planner["measured_ms"], best["plan"],
            best["measured_ms"], ratio))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
