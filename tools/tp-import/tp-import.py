#!/usr/bin/python3
"""tp-import: writes a PyTorch nn.Module as tp `model` dialect IR.

    tp-import FILE.py:FACTORY -o MODEL.mlir [--save-weights W.safetensors]
              [--save-inputs I.safetensors] [--weights-prefix P]
              [--load-weights CKPT.safetensors]

FACTORY() in FILE.py returns (module, example_inputs); the module's forward
is traced on the example inputs (docs/embedding.md, "From PyTorch"). Runs on
Debian's python3-torch, hence /usr/bin/python3.
"""

import argparse
import os
import sys
import threading
import traceback

# Loading the user's file leaves no __pycache__ next to it.
sys.dont_write_bytecode = True
_HERE = os.path.dirname(os.path.realpath(__file__))
# The package sits next to the source script, or in ../share/tp-import/ of
# the build and install trees.
for _candidate in (_HERE, os.path.join(_HERE, "..", "share", "tp-import")):
    if os.path.isdir(os.path.join(_candidate, "tp_import")):
        sys.path.insert(0, os.path.abspath(_candidate))
        break

try:
    import torch
except ImportError:
    sys.stderr.write("tp-import: error: cannot import torch with "
                     f"{sys.executable} (install python3-torch)\n")
    sys.exit(1)

from tp_import import safetensors  # noqa: E402
from tp_import.cli import (example_inputs, load_factory,  # noqa: E402
                           run_user_code)
from tp_import.emit import emit  # noqa: E402
from tp_import.errors import UserError  # noqa: E402
from tp_import.rewrite import rewrite  # noqa: E402
from tp_import.trace import trace  # noqa: E402


def _parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tp-import",
        description="Trace a PyTorch nn.Module on example inputs and write "
                    "it as tp model dialect IR.")
    p.add_argument("spec", metavar="FILE.py:FACTORY",
                   help="a Python file and a function in it returning "
                        "(module, example_inputs)")
    p.add_argument("-o", dest="output", metavar="MODEL.mlir",
                   help="where to write the IR (default: standard output)")
    p.add_argument("--save-weights", metavar="W.safetensors",
                   help="write the module's parameters under their FQNs")
    p.add_argument("--save-inputs", metavar="I.safetensors",
                   help="write the example inputs under their argument names")
    p.add_argument("--weights-prefix", metavar="P", default="",
                   help="the weights files' keys are P + FQN: "
                        "--save-weights writes them so, --load-weights "
                        "reads them so (tp-run --weights-prefix P reads such "
                        "a file)")
    p.add_argument("--load-weights", metavar="CKPT.safetensors",
                   help="load the parameters from a safetensors checkpoint "
                        "(keys P + FQN) before tracing")
    return p.parse_args(argv)


def _load_weights(module, path, prefix):
    tensors = safetensors.read(path)
    params = dict(module.named_parameters())
    missing = [n for n in params if prefix + n not in tensors]
    if missing:
        raise UserError(
            f"{path} has no tensor '{prefix + missing[0]}' (for parameter "
            f"'{missing[0]}'" + (f", and {len(missing) - 1} more missing"
                                 if len(missing) > 1 else "") + ")")
    with torch.no_grad():
        for name, p in params.items():
            t = tensors[prefix + name]
            if tuple(t.shape) != tuple(p.shape):
                raise UserError(
                    f"{path}: tensor '{prefix + name}' has shape "
                    f"{list(t.shape)} but parameter '{name}' is "
                    f"{list(p.shape)}")
            p.copy_(t.to(p.dtype))


def _write_all(files):
    """Writes [(path, bytes)]: each to a temporary file next to it, then
    all renamed into place, so a failure leaves none half written."""
    done = []
    try:
        for path, data in files:
            tmp = f"{path}.tp-import-{os.getpid()}.tmp"
            done.append((tmp, path))
            try:
                with open(tmp, "wb") as f:
                    f.write(data)
            except OSError as e:
                raise UserError(f"cannot write {path}: {e.strerror}")
        for tmp, path in done:
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise UserError(f"cannot write {path}: {e.strerror}")
    finally:
        for tmp, _ in done:
            if os.path.exists(tmp):
                os.unlink(tmp)


def main(argv):
    args = _parse_args(argv)
    if args.weights_prefix and not (args.save_weights or args.load_weights):
        raise UserError("--weights-prefix names the keys of --save-weights "
                        "and --load-weights; give one of them too")
    factory, path = load_factory(args.spec)
    module, inputs, as_kwargs = example_inputs(
        run_user_code(factory, path, "the factory"), args.spec)
    if args.load_weights:
        _load_weights(module, args.load_weights, args.weights_prefix)
    # The inputs as the factory made them (an in-place op in forward may
    # write into them), for --save-inputs.
    saved_inputs = {name: t.clone() for name, t in inputs}
    graph = run_user_code(lambda: trace(module, inputs, as_kwargs), path,
                          "the module's forward",
                          fallback=_defined_at(module))
    rewrite(graph)
    text = emit(graph, [f"Imported by tp-import from {args.spec} "
                        f"({type(module).__name__})."])
    # Every output is computed before any is written: nothing is written
    # unless all of it succeeds.
    files = []
    if args.output:
        files.append((args.output, text.encode()))
    if args.save_weights:
        state = module.state_dict(keep_vars=True)
        params = {args.weights_prefix + name: t.detach()
                  for name, t in state.items()
                  if isinstance(t, torch.nn.Parameter)}
        files.append((args.save_weights,
                      safetensors.encode(args.save_weights, params)))
    if args.save_inputs:
        files.append((args.save_inputs,
                      safetensors.encode(args.save_inputs, saved_inputs)))
    _write_all(files)
    if not args.output:
        sys.stdout.write(text)
    return 0


def _defined_at(module):
    """`file.py:line` of the module's forward, for errors raised by the call
    of it rather than inside it."""
    code = getattr(getattr(type(module), "forward", None), "__code__", None)
    if code is None:
        return ""
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"


def _run(argv):
    """main() on a thread with a large stack and recursion limit: the trace
    adds frames to each module call, and a model nested a few hundred
    modules deep that runs in PyTorch must trace too."""
    result = {}

    def body():
        try:
            result["status"] = main(argv)
        except BaseException as e:  # re-raised on the main thread
            result["error"] = e

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 50000))
    threading.stack_size(1 << 30)
    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["status"]


if __name__ == "__main__":
    try:
        sys.exit(_run(sys.argv[1:]))
    except UserError as e:
        sys.stderr.write(f"tp-import: error: {e}\n")
        sys.exit(1)
    except Exception:
        sys.stderr.write("tp-import: internal error (a bug in tp-import):\n")
        traceback.print_exc()
        sys.exit(2)
