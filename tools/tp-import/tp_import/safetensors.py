"""Reads and writes safetensors files without the `safetensors` package.

The layout tp's runtime reads (lib/Runtime/Safetensors.cpp): an 8-byte
little-endian header length N, N bytes of JSON header mapping each name to
its dtype, shape and [begin, end) byte offsets into the data that follows.
"""

import json
import struct

import torch

from .errors import UserError

_DTYPES = {
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.float64: "F64",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}
_TORCH = {v: k for k, v in _DTYPES.items()}


def _raw_bytes(t):
    """The tensor's elements as little-endian bytes, in row-major order."""
    flat = t.detach().cpu().contiguous().reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return flat.view(torch.uint8).numpy().tobytes()


def encode(path, tensors):
    """The bytes of a file of `tensors` (an ordered mapping name ->
    tensor); `path` is where they will go, for messages."""
    header = {}
    chunks = []
    offset = 0
    for name, t in tensors.items():
        if t.dtype not in _DTYPES:
            raise UserError(
                f"cannot write tensor '{name}' of dtype {t.dtype} to {path}: "
                f"safetensors has no such dtype")
        if t.is_meta:
            raise UserError(
                f"cannot write tensor '{name}' to {path}: it is on the meta "
                f"device and has no values (build the module on the CPU)")
        data = _raw_bytes(t)
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    # Pad the header with spaces so the data starts 8-byte aligned, as the
    # reference implementation does.
    text += b" " * (-len(text) % 8)
    return b"".join([struct.pack("<Q", len(text)), text] + chunks)


def write(path, tensors):
    """Writes `tensors` (an ordered mapping name -> tensor) to `path`."""
    data = encode(path, tensors)
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror}")


def read(path):
    """Reads every tensor of a safetensors file into a dict name -> tensor."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror}")
    if len(blob) < 8:
        raise UserError(f"{path}: not a safetensors file (too short)")
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise UserError(f"{path}: header length {n} runs past the file")
    try:
        header = json.loads(blob[8:8 + n])
    except ValueError as e:
        raise UserError(f"{path}: the header is not JSON ({e})")
    if not isinstance(header, dict):
        raise UserError(f"{path}: the header is not a JSON object")
    data = blob[8 + n:]
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = _TORCH[entry["dtype"]]
            shape = [int(d) for d in entry["shape"]]
            begin, end = (int(o) for o in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise UserError(
                f"{path}: tensor '{name}' has a malformed or unsupported "
                f"entry {entry!r}")
        if not 0 <= begin <= end <= len(data):
            raise UserError(
                f"{path}: tensor '{name}' lies outside the file's data")
        raw = bytearray(data[begin:end])
        elt = torch.tensor([], dtype=dtype).element_size()
        count = 1
        for d in shape:
            count *= d
        if count * elt != end - begin:
            raise UserError(
                f"{path}: tensor '{name}' holds {end - begin} bytes but "
                f"shape {shape} of {entry['dtype']} needs {count * elt}")
        storage = torch.frombuffer(raw, dtype=torch.uint8) if raw else \
            torch.empty(0, dtype=torch.uint8)
        t = storage.view(torch.uint8 if dtype == torch.bool else dtype)
        out[name] = t.reshape(shape).to(dtype).clone()
    return out
