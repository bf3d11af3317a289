#!/usr/bin/env python3
"""Runs a program exported by convert-model-to-linalg under mlir-runner.

mlir-runner calls an entry without arguments, so this wraps the exported
function in a `@main` that feeds it dense constants read from safetensors
files (as tp-run --save-weights / --save-inputs write them) and prints every
result with printMemrefF32; then compares the printed tensors with tp-run's
--dump-outputs. Standard library only.

  linalg-runner.py main PROGRAM.mlir --weights W --inputs I [--func forward]
      prints PROGRAM with @main added (arguments by their tp.param / tp.input
      names; parameters the weights file lacks are an error; tp.state
      arguments, an optimizer's state, are zeros, the state before the first
      step, the tp.step argument is --step, default 1, and tp.seed (dropout
      masks) --seed, default 0 as tp-run's; --steps N calls
      it N times, each on the updated parameters and state of the one before,
      as tp-run --train --steps N)
  linalg-runner.py compare PRINTED.txt OUTPUTS.safetensors [--names a,b]
      [--rtol R] [--atol A] [--allow-extra]
      [--ulps U]
      checks each printed tensor against the outputs (in order, or under the
      names given), prints the largest errors, exits 1 past the tolerance
      (f32: atol + rtol * |ref|; a bf16 or f16 output may also differ by U
      units, default 2, in the last place of its largest magnitude: the
      rounding of two correct implementations)
"""

import argparse
import json
import math
import re
import struct
import sys

DTYPES = {"F32": ("f32", "f", 4), "I64": ("i64", "q", 8), "I32": ("i32", "i", 4),
          "BF16": ("bf16", None, 2), "F16": ("f16", "e", 2)}


def floats(dtype, raw):
    """The values of a float tensor's raw little-endian bytes."""
    if dtype == "BF16":
        halves = struct.unpack(f"<{len(raw) // 2}H", raw)
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in halves]
    _, code, size = DTYPES[dtype]
    return list(struct.unpack(f"<{len(raw) // size}{code}", raw))


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = (info["dtype"], info["shape"], body[begin:end])
    return out


def split_top(text, sep=","):
    """Splits on `sep` outside <>, (), [], {} and strings."""
    parts, depth, cur, quoted = [], 0, "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if not quoted:
            if ch in "<([{":
                depth += 1
            elif ch in ">)]}":
                depth -= 1
            elif ch == sep and depth == 0:
                parts.append(cur.strip())
                cur = ""
                continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def balanced(text, start):
    """The index after the bracket closing the one at `start`."""
    depth, quoted = 0, False
    for i in range(start, len(text)):
        ch = text[i]
        if ch == '"':
            quoted = not quoted
        if quoted:
            continue
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced brackets")


def signature(program, func):
    m = re.search(r"func\.func\s+@" + re.escape(func) + r"\(", program)
    if not m:
        sys.exit(f"linalg-runner: no func.func @{func} in the program")
    open_paren = m.end() - 1
    close = balanced(program, open_paren)
    args = []
    for part in split_top(program[open_paren + 1:close - 1]):
        am = re.match(r"%[\w]+\s*:\s*(tensor<[^>]*>)\s*(\{.*\})?$", part, re.S)
        if not am:
            sys.exit(f"linalg-runner: cannot read argument '{part}' of @{func}")
        attrs = am.group(2) or ""
        found = None
        for kind in ("param", "input", "state"):
            m2 = re.search(r"tp\." + kind + r'\s*=\s*"([^"]*)"', attrs)
            if m2:
                found = (am.group(1), kind, m2.group(1))
        if re.search(r"tp\.step\b", attrs):
            found = (am.group(1), "step", "step")
        if re.search(r"tp\.seed\b", attrs):
            found = (am.group(1), "seed", "seed")
        if not found:
            sys.exit(f"linalg-runner: argument '{part}' of @{func} has none of "
                     "tp.param, tp.input, tp.state, tp.step (run "
                     "convert-model-to-linalg)")
        args.append(found)
    rest = program[close:].lstrip()
    results = []
    if rest.startswith("->"):
        rest = rest[2:].lstrip()
        if rest.startswith("("):
            end = balanced(rest, 0)
            items = split_top(rest[1:end - 1])
        else:
            items = [re.match(r"tensor<[^>]*>", rest).group(0)]
        for item in items:
            # A result that is a parameter's updated value or an optimizer
            # state feeds the next step (main --steps).
            feeds = re.search(r'tp\.(?:updated|state)\s*=\s*"([^"]*)"', item)
            kind = "state" if "tp.state" in item else "param"
            results.append((re.match(r"tensor<[^>]*>", item).group(0),
                            (kind, feeds.group(1)) if feeds else None))
    return args, results


def parse_type(t):
    m = re.match(r"tensor<((?:\d+x)*)(\w+)>", t)
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2)


def emit_main(args):
    program = open(args.program).read()
    weights = read_safetensors(args.weights) if args.weights else {}
    inputs = read_safetensors(args.inputs) if args.inputs else {}
    params, results = signature(program, args.func)
    lines = ["  func.func private @printMemrefF32(memref<*xf32>)",
             "  func.func @main() {"]
    names = []
    for i, (type_text, kind, name) in enumerate(params):
        if kind == "step":
            names.append(None)  # one constant per step
            continue
        if kind == "seed":
            # tp-run's --seed, a uint64, as the i64 of the same bits.
            bits = args.seed % (1 << 64)
            signed = bits - (1 << 64) if bits >= 1 << 63 else bits
            lines.append(f"    %a{i} = arith.constant dense<{signed}> : "
                         f"{type_text}")
            names.append(f"%a{i}")
            continue
        if kind == "state":
            # Optimizer state before the first step: zeros.
            lines.append(f"    %a{i} = arith.constant dense<0.0> : {type_text}")
            names.append(f"%a{i}")
            continue
        source = weights if kind == "param" else inputs
        if name not in source:
            sys.exit(f"linalg-runner: {kind} '{name}' is not in "
                     f"{args.weights if kind == 'param' else args.inputs}")
        dtype, shape, raw = source[name]
        dims, elt = parse_type(type_text)
        if DTYPES.get(dtype, (None,))[0] != elt or shape != dims:
            sys.exit(f"linalg-runner: {kind} '{name}' is {dtype} {shape} in "
                     f"the file, the program wants {type_text}")
        lines.append(f'    %a{i} = arith.constant dense<"0x{raw.hex().upper()}"> '
                     f": {type_text}")
        names.append(f"%a{i}")
    types = ", ".join(t for t, _, _ in params)
    res = ", ".join(t for t, _ in results)
    many = len(results) > 1
    for step in range(args.step, args.step + args.steps):
        call_args = list(names)
        for i, (type_text, kind, name) in enumerate(params):
            if kind == "step":
                lines.append(f"    %step{step} = arith.constant dense<{step}> "
                             f": {type_text}")
                call_args[i] = f"%step{step}"
        lines.append(f"    %r{step}{':' + str(len(results)) if many else ''} = "
                     f"call @{args.func}({', '.join(call_args)}) : ({types}) "
                     f"-> ({res})")
        outs = [f"%r{step}#{i}" if many else f"%r{step}"
                for i in range(len(results))]
        # The next step reads the updated parameters and state.
        fed = {feeds: out for out, (_, feeds) in zip(outs, results) if feeds}
        for i, (_, kind, name) in enumerate(params):
            if (kind, name) in fed:
                names[i] = fed[(kind, name)]
    for i, (out, (t, _)) in enumerate(zip(outs, results)):
        dims, elt = parse_type(t)
        if elt in ("bf16", "f16"):
            # Printed as f32 (exactly).
            wide = t.replace(elt + ">", "f32>")
            lines.append(f"    %w{i} = arith.extf {out} : {t} to {wide}")
            out, t = f"%w{i}", wide
        elif elt != "f32":
            sys.exit(f"linalg-runner: result {i} is {t}: only float results "
                     "print")
        mem = t.replace("tensor<", "memref<")
        lines.append(f"    %m{i} = bufferization.to_buffer {out} : {t} to {mem}")
        lines.append(f"    %u{i} = memref.cast %m{i} : {mem} to memref<*xf32>")
        lines.append(f"    call @printMemrefF32(%u{i}) : (memref<*xf32>) -> ()")
    lines.append("    return")
    lines.append("  }")
    # Into the module before its closing brace, or next to a function of
    # an implicit module.
    text = program.rstrip()
    if re.search(r"^module\b", text, re.M):
        text = text[:text.rfind("}")] + "\n".join(lines) + "\n}\n"
    else:
        text = text + "\n" + "\n".join(lines) + "\n"
    sys.stdout.write(text)


def printed_tensors(path):
    """The tensors printMemrefF32 printed: (sizes, flat values) each."""
    text = open(path).read()
    out = []
    for m in re.finditer(r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ "
                         r"sizes = \[([^\]]*)\] strides = \[[^\]]*\] data =",
                         text):
        sizes = [int(s) for s in m.group(2).split(",") if s.strip()]
        numel = 1
        for s in sizes:
            numel *= s
        nums = re.findall(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)",
                          text[m.end():], re.I)
        out.append((sizes, [float(x) for x in nums[:numel]]))
    return out


# Explicit mantissa bits of the 16-bit formats.
MANTISSA_BITS = {"BF16": 7, "F16": 10}


def sixteen_bit_floor(dtype, ref, ulps):
    """The error two correct runs of a 16-bit program may differ by.

    Both compute each kernel in f32 and round its result to 16 bits once,
    but their f32 sums differ in the last bits (another SIMD width, another
    BLAS kernel), so now and then one run rounds up where the other rounds
    down. Such a one-unit difference in a value moves everything computed
    from it by about a unit in the last place of the values it is mixed
    with: so an output may differ by a few units in the last place of the
    tensor's largest magnitude, not of its own (a logit near 0.3 can be off
    by the unit of the 2.0 next to it). `ulps` such units; 0 for f32.
    """
    bits = MANTISSA_BITS.get(dtype)
    if bits is None or not ulps:
        return 0.0
    finite = [abs(x) for x in ref if x == x and abs(x) != float("inf")]
    scale = max(finite, default=0.0)
    if scale == 0.0:
        return 0.0
    return ulps * 2.0 ** (math.floor(math.log2(scale)) - bits)


def compare(args):
    printed = printed_tensors(args.printed)
    outputs = read_safetensors(args.outputs)
    names = args.names.split(",") if args.names else list(outputs)
    if all(re.fullmatch(r"output\d+", n) for n in names):
        names.sort(key=lambda n: int(n[len("output"):]))
    if args.allow_extra:
        printed = printed[:len(names)]
    if len(printed) != len(names):
        sys.exit(f"linalg-runner: {len(printed)} printed tensors, "
                 f"{len(names)} outputs to compare")
    worst_all = 0.0
    ok = True
    for (sizes, values), name in zip(printed, names):
        if name not in outputs:
            sys.exit(f"linalg-runner: no output '{name}' in {args.outputs}")
        dtype, shape, raw = outputs[name]
        ref = floats(dtype, raw)
        if sizes != shape or len(values) != len(ref):
            sys.exit(f"linalg-runner: '{name}' printed as {sizes}, "
                     f"tp-run wrote {shape}")
        floor = sixteen_bit_floor(dtype, ref, args.ulps)
        worst = 0.0
        for got, want in zip(values, ref):
            err = abs(got - want)
            if err > max(args.atol + args.rtol * abs(want), floor) or err != err:
                ok = False
            worst = max(worst, err)
        worst_all = max(worst_all, worst)
        print(f"{name}: {len(ref)} values, max abs error {worst:.3g}"
              + (f" (16-bit: at most {floor:.3g})" if floor else ""))
    print(f"max abs error {worst_all:.3g} "
          f"(tolerance {args.atol:g} + {args.rtol:g} * |ref|): "
          f"{'ok' if ok else 'MISMATCH'}")
    sys.exit(0 if ok else 1)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("main")
    m.add_argument("program")
    m.add_argument("--weights")
    m.add_argument("--inputs")
    m.add_argument("--func", default="forward")
    m.add_argument("--seed", type=int, default=0,
                   help="the tp.seed argument (tp-run's --seed, default 0)")
    m.add_argument("--step", type=int, default=1,
                   help="the first step's tp.step argument")
    m.add_argument("--steps", type=int, default=1,
                   help="call the function this many times, each call reading "
                   "the parameters (tp.updated) and optimizer state (tp.state) "
                   "the previous one returned; print the last call's results")
    c = sub.add_parser("compare")
    c.add_argument("printed")
    c.add_argument("outputs")
    c.add_argument("--names", default="")
    c.add_argument("--allow-extra", action="store_true",
                   help="compare the first printed tensors only (e.g. not "
                   "the optimizer state a step returns after tp-run's outputs)")
    c.add_argument("--rtol", type=float, default=1e-4)
    c.add_argument("--atol", type=float, default=1e-5)
    c.add_argument("--ulps", type=float, default=2,
                   help="a bf16 or f16 output may also differ by this many "
                   "units in the last place of its largest magnitude (what "
                   "rounding allows two correct runs; 0: --rtol and --atol "
                   "only)")
    args = p.parse_args()
    emit_main(args) if args.cmd == "main" else compare(args)


if __name__ == "__main__":
    main()
