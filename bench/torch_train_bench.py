#!/usr/bin/env python3
"""PyTorch eager training steps of tp-model's transformer, on its weights.

    torch_train_bench.py --config train.json --weights W.safetensors
                         --inputs I.safetensors --out RESULT.json
                         [--np 1,2] [--steps 5] [--warmup 2] [--lr 0.01]
                         [--tp-losses L0,L1] [--tp-grads G.safetensors]

The model is built in PyTorch to match tp-model's "transformer" exactly
(token and position embeddings; pre-norm blocks of LayerNorm, causal
multi-head attention without biases and a GELU MLP with biases; final
LayerNorm; output linear; mean cross entropy), and loads the parameters
and inputs `tp-run --save-weights/--save-inputs` wrote, so it is the same
model on the same data. A step is optimizer.zero_grad(set_to_none=True),
forward, loss.backward() and optimizer.step() with SGD (lr, no momentum:
tp's default), on one thread (torch.set_num_threads(1)).

On 1 rank it checks the first two losses against tp's (--tp-losses) and
the gradients of the first step against tp's (--tp-grads). On N > 1 ranks
(N processes on this host, torch.distributed over gloo) it splits the model
as bench/models.py's plan does, Megatron-style, with hand-written autograd
functions (Debian's torch 1.13 has no DTensor tensor parallelism): the
token embedding and the output split on their output features and
gathered, q/k/v and w1 column-parallel, wo and w2 row-parallel with an
all_reduce; it checks the first loss against tp's. Times are per step: the
slowest rank's wall time between two barriers, and its thread CPU time.

Writes RESULT.json: {"torch": version, "results": [{"np", "step_ms",
"cpu_ms", "loss", "tp_loss", ...}]}. Exits 0 with a message when torch
is missing (this is a benchmark, not a test).
"""
import argparse
import json
import math
import os
import struct
import sys
import time

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    import torch.nn.functional as F
except ImportError:
    torch = None


def read_safetensors(path):
    """{name: tensor} of a safetensors file (F32, I64 and I32 only)."""
    dtypes = {"F32": torch.float32, "I64": torch.int64, "I32": torch.int32}
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        t = torch.frombuffer(bytearray(body[begin:end]),
                             dtype=dtypes[info["dtype"]])
        out[name] = t.reshape(info["shape"]).clone()
    return out


# --- Tensor parallelism (Megatron's f, g and the gather) ---------------

class _CopyToTP(torch.autograd.Function if torch else object):
    """Identity forward; the gradient is summed over the ranks (f)."""
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        g = g.contiguous().clone()
        dist.all_reduce(g)
        return g


class _ReduceFromTP(torch.autograd.Function if torch else object):
    """Sums the ranks' partial outputs (g); identity backward."""
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        dist.all_reduce(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class _GatherLastDim(torch.autograd.Function if torch else object):
    """All-gathers the last dim; the gradient keeps this rank's piece."""
    @staticmethod
    def forward(ctx, x):
        ws = dist.get_world_size()
        parts = [torch.empty_like(x) for _ in range(ws)]
        dist.all_gather(parts, x.contiguous())
        return torch.cat(parts, dim=-1)

    @staticmethod
    def backward(ctx, g):
        ws, r = dist.get_world_size(), dist.get_rank()
        return g.chunk(ws, dim=-1)[r].contiguous()


# --- The model ---------------------------------------------------------

class Transformer(torch.nn.Module if torch else object):
    """tp-model's transformer; on ws > 1 ranks, this rank's Megatron
    shard of it (heads and MLP features split, embedding and output split
    on their output features)."""

    def __init__(self, cfg, weights, ws=1, rank=0):
        super().__init__()
        self.cfg, self.ws, self.rank = cfg, ws, rank
        dim, heads = cfg["dim"], cfg["n_heads"]
        self.local_heads = heads // ws
        self.head_dim = dim // heads
        self.eps = cfg.get("norm_eps", 1e-5)

        def param(name, dim_=None):
            t = weights[name]
            if dim_ is not None and ws > 1:
                t = t.chunk(ws, dim=dim_)[rank]
            return torch.nn.Parameter(t.contiguous().clone())

        self.p = torch.nn.ParameterDict()

        def add(name, dim_=None):
            self.p[name.replace(".", "__")] = param(name, dim_)

        add("tok_embeddings.weight", 1)
        add("pos_embeddings.weight")
        for i in range(cfg["n_layers"]):
            pre = f"layers.{i}"
            for n in ("attention_norm", "ffn_norm"):
                add(f"{pre}.{n}.weight")
                add(f"{pre}.{n}.bias")
            for n in ("wq", "wk", "wv"):
                add(f"{pre}.attention.{n}.weight", 0)
            add(f"{pre}.attention.wo.weight", 1)
            add(f"{pre}.feed_forward.w1.weight", 0)
            add(f"{pre}.feed_forward.w1.bias", 0)
            add(f"{pre}.feed_forward.w2.weight", 1)
            add(f"{pre}.feed_forward.w2.bias")
        add("norm.weight")
        add("norm.bias")
        add("output.weight", 0)

    def w(self, name):
        return self.p[name.replace(".", "__")]

    def f(self, x):
        return _CopyToTP.apply(x) if self.ws > 1 else x

    def g(self, x):
        return _ReduceFromTP.apply(x) if self.ws > 1 else x

    def gather(self, x):
        return _GatherLastDim.apply(x) if self.ws > 1 else x

    def norm(self, name, x):
        return F.layer_norm(x, (x.shape[-1],), self.w(name + ".weight"),
                            self.w(name + ".bias"), self.eps)

    def forward(self, tokens, targets):
        b, s = tokens.shape
        h = self.gather(F.embedding(tokens, self.w("tok_embeddings.weight")))
        h = h + F.embedding(torch.arange(s), self.w("pos_embeddings.weight"))
        mask = torch.ones(s, s, dtype=torch.bool).triu(1)
        for i in range(self.cfg["n_layers"]):
            pre = f"layers.{i}"
            x = self.f(self.norm(pre + ".attention_norm", h))

            def heads(n):
                y = F.linear(x, self.w(f"{pre}.attention.{n}.weight"))
                return y.view(b, s, self.local_heads, self.head_dim) \
                        .transpose(1, 2)
            q, k, v = heads("wq"), heads("wk"), heads("wv")
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
            scores = scores.masked_fill(mask, float("-inf"))
            o = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, -1)
            h = h + self.g(F.linear(o, self.w(f"{pre}.attention.wo.weight")))
            x = self.f(self.norm(pre + ".ffn_norm", h))
            y = F.gelu(F.linear(x, self.w(f"{pre}.feed_forward.w1.weight"),
                                self.w(f"{pre}.feed_forward.w1.bias")))
            y = self.g(F.linear(y, self.w(f"{pre}.feed_forward.w2.weight")))
            # The bias after the reduction, as RowwiseParallel adds it.
            h = h + (y + self.w(f"{pre}.feed_forward.w2.bias"))
        x = self.f(self.norm("norm", h))
        logits = self.gather(F.linear(x, self.w("output.weight")))
        return F.cross_entropy(logits.reshape(b * s, -1), targets.reshape(-1))


# --- Running -----------------------------------------------------------

def run_rank(rank, ws, a, queue):
    torch.set_num_threads(1)
    if ws > 1:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(a.port))
        dist.init_process_group("gloo", rank=rank, world_size=ws)
    with open(a.config) as f:
        cfg = json.load(f)
    weights = read_safetensors(a.weights)
    inputs = read_safetensors(a.inputs)
    tokens, targets = inputs["tokens"].long(), inputs["targets"].long()
    model = Transformer(cfg, weights, ws, rank)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    result = {"np": ws}

    def step():
        opt.zero_grad(set_to_none=True)
        loss = model(tokens, targets)
        loss.backward()
        opt.step()
        return loss.item()

    # The first two steps are checked against tp (and warm up).
    opt.zero_grad(set_to_none=True)
    loss = model(tokens, targets)
    loss.backward()
    result["loss"] = loss.item()
    if ws == 1 and a.tp_grads:
        tp_grads = read_safetensors(a.tp_grads)
        worst = 0.0
        for name, g in tp_grads.items():
            mine = model.w(name).grad
            scale = max(g.abs().max().item(), 1e-30)
            worst = max(worst, (mine - g).abs().max().item() / scale)
        result["max_grad_rel_error"] = worst
    opt.step()
    result["loss2"] = step()
    for _ in range(max(a.warmup - 2, 0)):
        step()
    walls, cpus = [], []
    for _ in range(a.steps):
        if ws > 1:
            dist.barrier()
        t0, c0 = time.perf_counter(), time.thread_time()
        step()
        c = time.thread_time() - c0
        if ws > 1:
            dist.barrier()
        w = time.perf_counter() - t0
        if ws > 1:
            t = torch.tensor([w, c], dtype=torch.float64)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            w, c = t.tolist()
        walls.append(w * 1e3)
        cpus.append(c * 1e3)
    result["step_ms"] = walls
    result["cpu_ms"] = cpus
    if ws > 1:
        dist.destroy_process_group()
    if rank == 0:
        queue.put(result)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True)
    ap.add_argument("--weights", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--np", default="1,2")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--tp-losses", default="")
    ap.add_argument("--tp-grads", default="")
    ap.add_argument("--port", type=int, default=29517)
    a = ap.parse_args()
    if torch is None:
        print("torch_train_bench.py: PyTorch is not installed here "
              "(apt-get install python3-torch); skipped")
        return 0
    tp_losses = [float(x) for x in a.tp_losses.split(",") if x]
    out = {"torch": torch.__version__,
           "blas": os.environ.get("OPENBLAS_CORETYPE", "auto"),
           "results": []}
    for ws in [int(x) for x in a.np.split(",")]:
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        procs = [ctx.Process(target=run_rank, args=(r, ws, a, queue))
                 for r in range(ws)]
        for p in procs:
            p.start()
        result = queue.get()
        for p in procs:
            p.join()
        if tp_losses:
            result["tp_loss"] = tp_losses[0]
            result["loss_rel_error"] = abs(result["loss"] - tp_losses[0]) / \
                abs(tp_losses[0])
            if len(tp_losses) > 1:
                result["tp_loss2"] = tp_losses[1]
        result["median_ms"] = median(result["step_ms"])
        result["median_cpu_ms"] = median(result["cpu_ms"])
        out["results"].append(result)
        print(f"torch np={ws}: step {result['median_ms']:.1f} ms "
              f"(cpu {result['median_cpu_ms']:.1f} ms), loss "
              f"{result['loss']:.6f}" +
              (f" vs tp {tp_losses[0]:.6f}" if tp_losses else ""))
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
