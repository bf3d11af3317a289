#!/usr/bin/env python3
"""Compile-time benchmark: tp-opt --tp-pipeline against upstream MLIR's shard
passes on the same N-layer tensor-parallel MLP, plus tp-opt on tp-model's
transformer and llama at several depths.

Writes OUT/compile.json (read by bench/report.py). Every timing is a whole
process (start-up, parse, passes, print to /dev/null) measured with
time.perf_counter around fork/exec/wait4; ours and upstream alternate within
each repetition so that a noisy moment hits both. With --callgrind it also
counts instructions (valgrind --tool=callgrind: repeatable, unlike time) and
keeps the top functions of our 100-layer run.

Usage: compile_bench.py --build build --out DIR [--sizes 1,10,100,1000]
                        [--arch-sizes 1,10,100] [--reps 5] [--callgrind]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_mlp  # noqa: E402
import models  # noqa: E402

UPSTREAM_PIPELINE = "builtin.module(func.func(sharding-propagation,shard-partition))"

def run_timed(cmd):
    """(wall seconds, user+sys CPU seconds) of one run of cmd."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"failed: {' '.join(cmd)}\n{err[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime


def summarize(samples):
    walls = [w for w, _ in samples]
    cpus = [c for _, c in samples]
    return {"median_s": statistics.median(walls), "min_s": min(walls),
            "max_s": max(walls), "cpu_median_s": statistics.median(cpus),
            "samples_s": walls}


def mlir_timing(cmd):
    """Phase times (seconds) from --mlir-timing."""
    p = subprocess.run(cmd + ["--mlir-timing"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=True)
    phases = {}
    for m in re.finditer(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*?)\s*$",
                         p.stderr, re.M):
        phases.setdefault(m.group(2), float(m.group(1)))
    return phases


def linear_fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    icpt = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - icpt - slope * x) ** 2 for x, y in zip(xs, ys))
    return {"slope": slope, "intercept": icpt,
            "r2": 1 - ss_res / ss_tot if ss_tot else 1.0}


def callgrind(cmd, outfile):
    """Total instructions of cmd; keeps the callgrind profile in outfile."""
    p = subprocess.run(["valgrind", "--tool=callgrind",
                        f"--callgrind-out-file={outfile}"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    m = re.search(r"refs:\s+([0-9,]+)", p.stderr)
    return int(m.group(1).replace(",", ""))


def top_functions(profile, inclusive, limit):
    """(Ir, function) rows of callgrind_annotate, largest first."""
    args = ["callgrind_annotate", "--threshold=100"]
    if inclusive:
        args.append("--inclusive=yes")
    p = subprocess.run(args + [profile], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, check=True)
    rows = []
    for line in p.stdout.splitlines():
        m = re.match(r"^\s*([0-9,]+) \(\s*[0-9.]+%\)\s+(.*)$", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        fn = m.group(2)
        fn = re.sub(r"\s*\[[^\]]*\]\s*$", "", fn)   # object file
        fn = re.sub(r"^\?\?\?:", "", fn)
        fn = re.sub(r"^\./[^:]*:", "", fn)            # glibc source path
        rows.append((int(m.group(1).replace(",", "")), fn))
    return rows[:limit] if limit else rows


# Phases of a tp-opt run, by the inclusive cost of these functions.
PHASES = [
    ("dynamic loading (ld.so)", r"^_dl_start$"),
    ("parse", r"^mlir::parseSourceFile\(std::shared_ptr"),
    ("verify after each pass", r"^mlir::verify\(mlir::Operation\*, bool\)$"),
    ("  of which symbol-use checks (tp ops' mesh lookups)",
     r"^mlir::detail::verifySymbolTable\("),
    ("print", r"^mlir::Operation::print\(llvm::raw_ostream&, mlir::AsmState&\)$"),
    ("tp-apply-plan", r"ApplyPlanPass::runOnOperation"),
    ("tp-lower-styles", r"LowerStylesPass::runOnOperation"),
    ("  of which propagation (tp-propagate's propagatePlacements)",
     r"^mlir::tp::propagatePlacements\("),
    ("tp-optimize", r"OptimizePass::runOnOperation"),
    ("tp-lower-redistribute", r"LowerRedistributePass::runOnOperation"),
    ("tp-partition", r"PartitionPass::runOnOperation"),
    ("cse", r"\(anonymous namespace\)::CSE::runOnOperation"),
]


def phase_costs(profile):
    rows = top_functions(profile, True, 0)
    out = []
    for label, pat in PHASES:
        hits = [ir for ir, fn in rows if re.search(pat, fn)]
        out.append((label, max(hits) if hits else 0))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", required=True)
    ap.add_argument("--mlir-opt", default="mlir-opt-22")
    ap.add_argument("--sizes", default="1,10,100,1000")
    ap.add_argument("--arch-sizes", default="1,10,100")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    tp_opt = os.path.join(a.build, "bin", "tp-opt")
    tp_model = os.path.join(a.build, "bin", "tp-model")
    sizes = [int(s) for s in a.sizes.split(",")]
    arch_sizes = [int(s) for s in a.arch_sizes.split(",") if s]
    work = os.path.join(a.out, "compile")
    os.makedirs(work, exist_ok=True)
    plan = os.path.join(work, "mlp_plan.json")
    with open(plan, "w") as f:
        json.dump(gen_mlp.PLAN, f, indent=1)

    def ours_cmd(path, plan_path=plan):
        return [tp_opt, path, f"--tp-pipeline=plan={plan_path}", "-o", os.devnull]

    def up_cmd(path):
        return [a.mlir_opt, path, f"--pass-pipeline={UPSTREAM_PIPELINE}",
                "-o", os.devnull]

    version = subprocess.run([a.mlir_opt, "--version"], capture_output=True,
                             text=True).stdout
    res = {"mlir_opt": " ".join(version.split()), "reps": a.reps,
           "commands": {
               "generate": "python3 bench/gen_mlp.py -n N --form tp -o tp_N.mlir "
                           "--plan mlp_plan.json; python3 bench/gen_mlp.py -n N "
                           "--form upstream -o upstream_N.mlir",
               "ours": "build/bin/tp-opt tp_N.mlir --tp-pipeline=plan=mlp_plan.json "
                       "-o /dev/null",
               "upstream": f"mlir-opt-22 upstream_N.mlir --pass-pipeline="
                           f"'{UPSTREAM_PIPELINE}' -o /dev/null"},
           "mlp": []}

    # Sanity: both produce one all_reduce per layer.
    files = {}
    for n in sizes:
        tp_path = os.path.join(work, f"tp_{n}.mlir")
        up_path = os.path.join(work, f"upstream_{n}.mlir")
        with open(tp_path, "w") as f:
            f.write(gen_mlp.gen_tp(n))
        with open(up_path, "w") as f:
            f.write(gen_mlp.gen_upstream(n))
        files[n] = (tp_path, up_path)
    n0 = sizes[min(1, len(sizes) - 1)]
    rep_json = os.path.join(work, "report.json")
    subprocess.run([tp_opt, files[n0][0],
                    f"--tp-pipeline=plan={plan} report-json={rep_json}",
                    "-o", os.devnull], check=True)
    with open(rep_json) as f:
        ours_ar = json.load(f)["collectives"].get("all_reduce", 0)
    up_out = subprocess.run(up_cmd(files[n0][1])[:-2] + ["-o", "-"],
                            capture_output=True, text=True, check=True).stdout
    res["check"] = {"layers": n0, "ours_all_reduce": ours_ar,
                    "upstream_all_reduce": up_out.count("shard.all_reduce ")}

    # Warm the page cache and the dynamic loader.
    run_timed(ours_cmd(files[sizes[0]][0]))
    run_timed(up_cmd(files[sizes[0]][1]))
    # Process start-up: an empty module, no passes.
    empty = os.path.join(work, "empty.mlir")
    with open(empty, "w") as f:
        f.write("module {}\n")
    ours, up = [], []
    for r in range(a.reps):
        ours.append(run_timed([tp_opt, empty, "-o", os.devnull]))
        up.append(run_timed([a.mlir_opt, empty, "-o", os.devnull]))
    res["startup"] = {"ours": summarize(ours), "upstream": summarize(up),
                      "commands": [f"build/bin/tp-opt empty.mlir -o /dev/null",
                                   f"mlir-opt-22 empty.mlir -o /dev/null"]}
    print(f"start-up ours {res['startup']['ours']['median_s']*1e3:.1f} ms  "
          f"upstream {res['startup']['upstream']['median_s']*1e3:.1f} ms",
          flush=True)
    for n in sizes:
        tp_path, up_path = files[n]
        ours, up = [], []
        for r in range(a.reps):
            pair = [(ours, ours_cmd(tp_path)), (up, up_cmd(up_path))]
            if r % 2:
                pair.reverse()
            for dst, cmd in pair:
                dst.append(run_timed(cmd))
        row = {"layers": n, "tp_bytes": os.path.getsize(tp_path),
               "upstream_bytes": os.path.getsize(up_path),
               "ours": summarize(ours), "upstream": summarize(up)}
        row["ratio"] = row["upstream"]["median_s"] / row["ours"]["median_s"]
        res["mlp"].append(row)
        print(f"mlp N={n:5d} ours {row['ours']['median_s']*1e3:8.1f} ms  "
              f"upstream {row['upstream']['median_s']*1e3:8.1f} ms  "
              f"ratio {row['ratio']:.2f}", flush=True)

    big = sizes[-1]
    res["phases"] = {"layers": big,
                     "ours": mlir_timing(ours_cmd(files[big][0])),
                     "upstream": mlir_timing(up_cmd(files[big][1]))}
    fit_sizes = [n for n in sizes if n >= 10] or sizes
    for who in ("ours", "upstream"):
        xs = [r["layers"] for r in res["mlp"] if r["layers"] in fit_sizes]
        ys = [r[who]["median_s"] * 1e3 for r in res["mlp"]
              if r["layers"] in fit_sizes]
        if len(xs) >= 2:
            res.setdefault("fit_ms", {})[who] = linear_fit(xs, ys)

    # transformer / llama through tp-opt.
    res["arch"] = []
    for arch in models.CONFIGS:
        for n in arch_sizes:
            mlir_path, plan_path = models.write_model(
                tp_model, work, arch, n, tp=4, name=f"{arch}_{n}")
            cmd = ours_cmd(mlir_path, plan_path)
            run_timed(cmd)
            samples = [run_timed(cmd) for _ in range(a.reps)]
            row = {"arch": arch, "layers": n, "ours": summarize(samples)}
            res["arch"].append(row)
            print(f"{arch} N={n:4d} ours {row['ours']['median_s']*1e3:8.1f} ms",
                  flush=True)
        res.setdefault("arch_commands", {})[arch] = (
            f"build/bin/tp-model {arch}_N.json -o {arch}_N.mlir; build/bin/tp-opt "
            f"{arch}_N.mlir --tp-pipeline=plan={arch}_plan.json -o /dev/null")
    for arch in models.CONFIGS:
        rows = [r for r in res["arch"] if r["arch"] == arch and r["layers"] >= 1]
        if len(rows) >= 2:
            res.setdefault("arch_fit_ms", {})[arch] = linear_fit(
                [r["layers"] for r in rows],
                [r["ours"]["median_s"] * 1e3 for r in rows])

    if a.callgrind and shutil.which("valgrind"):
        cg = {}
        for n in [x for x in (100, 1000) if x in files]:
            prof = os.path.join(work, f"callgrind.tp_{n}.out")
            cg[f"ours_{n}"] = callgrind(ours_cmd(files[n][0]), prof)
            print(f"callgrind ours N={n}: {cg[f'ours_{n}']:,} Ir", flush=True)
            prof_up = os.path.join(work, f"callgrind.upstream_{n}.out")
            cg[f"upstream_{n}"] = callgrind(up_cmd(files[n][1]), prof_up)
            print(f"callgrind upstream N={n}: {cg[f'upstream_{n}']:,} Ir",
                  flush=True)
        if 10 in files:
            cg["ours_10"] = callgrind(ours_cmd(files[10][0]),
                                      os.path.join(work, "callgrind.tp_10.out"))
        res["callgrind"] = {"instructions": cg}
        for n in (100, 1000):
            if n in files:
                prof = os.path.join(work, f"callgrind.tp_{n}.out")
                res["callgrind"][f"phases_{n}"] = phase_costs(prof)
                if n == 100:
                    res["callgrind"]["top_self_100"] = top_functions(prof, False,
                                                                     15)
        res["callgrind"]["command"] = (
            "valgrind --tool=callgrind --callgrind-out-file=cg.out "
            "build/bin/tp-opt tp_100.mlir --tp-pipeline=plan=mlp_plan.json "
            "-o /dev/null; callgrind_annotate --inclusive=yes cg.out")

    with open(os.path.join(a.out, "compile.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
