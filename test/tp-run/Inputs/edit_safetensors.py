#!/usr/bin/env python3
# edit_safetensors.py - craft broken safetensors files for the tp-run tests.
#
# Rewrites a valid file with one tensor dropped or reshaped, or writes a file
# whose header is cut short or claims more bytes than the file holds.
"""Usage:
  edit_safetensors.py drop IN NAME OUT       # OUT = IN without tensor NAME
  edit_safetensors.py reshape IN NAME D0xD1 OUT  # same bytes, new shape
  edit_safetensors.py truncate IN N OUT      # the first N bytes of IN
  edit_safetensors.py biglen OUT             # header length > file size
  edit_safetensors.py set IN NAME INDEX VALUE OUT  # element INDEX (flat) of
                                             # NAME = VALUE (nan, inf, 1.5;
                                             # an integer for I64/I32)
  edit_safetensors.py compare A B RTOL      # same names and shapes, F32
                                             # values within RTOL of the
                                             # largest magnitude; prints the
                                             # largest relative difference
  edit_safetensors.py keep IN NAME OUT      # OUT = only tensor NAME of IN
  edit_safetensors.py norm IN               # the 2-norm of every F32
                                             # element of every tensor
  edit_safetensors.py stack OUT IN...       # each tensor of the INs (same
                                             # names, shapes, dtypes) stacked
                                             # on a new leading dim: a batch
                                             # per step
  edit_safetensors.py merge OUT IN...       # the tensors of every IN
  edit_safetensors.py shard IN N DIR        # IN as a Hugging Face sharded
                                             # checkpoint of N files and
                                             # model.safetensors.index.json
"""
import json
import struct
import sys


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8 : 8 + n]), data[8 + n :]


def write(path, header, payload):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + payload)


def main(argv):
    op = argv[1]
    if op == "drop":
        header, payload = read(argv[2])
        entry = header.pop(argv[3])
        begin, end = entry["data_offsets"]
        # Close the gap so the remaining offsets stay contiguous.
        for e in header.values():
            if isinstance(e, dict) and "data_offsets" in e:
                b, d = e["data_offsets"]
                if b >= end:
                    e["data_offsets"] = [b - (end - begin), d - (end - begin)]
        write(argv[4], header, payload[:begin] + payload[end:])
    elif op == "reshape":
        header, payload = read(argv[2])
        header[argv[3]]["shape"] = [int(d) for d in argv[4].split("x")]
        write(argv[5], header, payload)
    elif op == "truncate":
        with open(argv[2], "rb") as f:
            data = f.read(int(argv[3]))
        with open(argv[4], "wb") as f:
            f.write(data)
    elif op == "biglen":
        with open(argv[2], "wb") as f:
            f.write(struct.pack("<Q", 1 << 20) + b'{"a":{}}')
    elif op == "set":
        header, payload = read(argv[2])
        entry = header[argv[3]]
        fmt = {"F32": ("<f", 4), "F16": ("<e", 2), "BF16": ("<f", 2),
               "I64": ("<q", 8), "I32": ("<i", 4)}
        code, size = fmt[entry["dtype"]]
        number = int(argv[5]) if entry["dtype"][0] == "I" else float(argv[5])
        value = struct.pack(code, number)
        if entry["dtype"] == "BF16":
            value = value[2:]  # the high half of the f32
        at = entry["data_offsets"][0] + int(argv[4]) * size
        write(argv[6], header, payload[:at] + value + payload[at + size :])
    elif op == "compare":
        (ha, pa), (hb, pb) = read(argv[2]), read(argv[3])
        names = sorted(k for k in ha if k != "__metadata__")
        if names != sorted(k for k in hb if k != "__metadata__"):
            sys.exit("different tensors: %s" % names)
        worst = 0.0
        for name in names:
            ea, eb = ha[name], hb[name]
            if ea["shape"] != eb["shape"] or ea["dtype"] != "F32":
                sys.exit("%s: %s vs %s" % (name, ea, eb))
            n = (ea["data_offsets"][1] - ea["data_offsets"][0]) // 4
            va = struct.unpack("<%df" % n, pa[slice(*ea["data_offsets"])])
            vb = struct.unpack("<%df" % n, pb[slice(*eb["data_offsets"])])
            scale = max([abs(v) for v in vb] + [1e-30])
            diff = max([abs(x - y) for x, y in zip(va, vb)] + [0.0])
            worst = max(worst, diff / scale)
        print("%d tensors, max rel difference %.3g" % (len(names), worst))
        if worst > float(argv[4]):
            sys.exit("exceeds %s" % argv[4])
    elif op == "keep":
        header, payload = read(argv[2])
        entry = dict(header[argv[3]])
        begin, end = entry["data_offsets"]
        entry["data_offsets"] = [0, end - begin]
        write(argv[4], {argv[3]: entry}, payload[begin:end])
    elif op == "norm":
        header, payload = read(argv[2])
        total = 0.0
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            if entry["dtype"] != "F32":
                sys.exit("%s: %s" % (name, entry))
            n = (entry["data_offsets"][1] - entry["data_offsets"][0]) // 4
            values = struct.unpack("<%df" % n, payload[slice(*entry["data_offsets"])])
            total += sum(v * v for v in values)
        print("norm %.6f" % total ** 0.5)
    elif op in ("stack", "merge"):
        files = [read(path) for path in argv[3:]]
        header, payload = {}, b""

        def add(name, dtype, shape, data):
            nonlocal payload
            header[name] = {"dtype": dtype, "shape": shape,
                            "data_offsets": [len(payload),
                                             len(payload) + len(data)]}
            payload += data

        if op == "stack":
            first = files[0][0]
            for name in (k for k in first if k != "__metadata__"):
                entries = [h[name] for h, _ in files]
                if any(e["shape"] != entries[0]["shape"] or
                       e["dtype"] != entries[0]["dtype"] for e in entries):
                    sys.exit("%s differs between the files" % name)
                add(name, entries[0]["dtype"],
                    [len(files)] + entries[0]["shape"],
                    b"".join(p[slice(*h[name]["data_offsets"])]
                             for h, p in files))
        else:
            for h, p in files:
                for name in (k for k in h if k != "__metadata__"):
                    add(name, h[name]["dtype"], h[name]["shape"],
                        p[slice(*h[name]["data_offsets"])])
        write(argv[2], header, payload)
    elif op == "shard":
        # A Hugging Face sharded checkpoint: the tensors dealt round-robin
        # into N files DIR/model-0000K-of-0000N.safetensors, and
        # DIR/model.safetensors.index.json mapping each to its file.
        header, payload = read(argv[2])
        n, out = int(argv[3]), argv[4]
        names = [k for k in header if k != "__metadata__"]
        files = ["model-%05d-of-%05d.safetensors" % (k + 1, n) for k in range(n)]
        parts = [({}, b"") for _ in range(n)]
        weight_map = {}
        for i, name in enumerate(names):
            h, p = parts[i % n]
            entry = dict(header[name])
            data = payload[slice(*entry["data_offsets"])]
            entry["data_offsets"] = [len(p), len(p) + len(data)]
            h[name] = entry
            parts[i % n] = (h, p + data)
            weight_map[name] = files[i % n]
        for f, (h, p) in zip(files, parts):
            write(out + "/" + f, h, p)
        with open(out + "/model.safetensors.index.json", "w") as f:
            json.dump({"metadata": {"total_size": len(payload)},
                       "weight_map": weight_map}, f)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
