"""The user's side of the command line: the FILE.py:FACTORY spec, running
user code with its errors reported as messages, and the example inputs."""

import importlib.util
import inspect
import os
import sys
import traceback

import torch
import torch.nn as nn

from .errors import UserError

_OWN_DIR = os.path.dirname(os.path.abspath(__file__))

_INPUT_DTYPES = (torch.float32, torch.bfloat16, torch.float16, torch.int64,
                 torch.int32, torch.bool)


def load_factory(spec):
    """The function named by `FILE.py:FACTORY`, and the file's path."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise UserError(f"bad spec '{spec}': expected FILE.py:FACTORY")
    if not name.isidentifier():
        raise UserError(f"bad spec '{spec}': '{name}' is not a Python name")
    if not os.path.isfile(path):
        raise UserError(f"bad spec '{spec}': no such file '{path}'")
    path = os.path.abspath(path)
    module_name = "tp_import_user_" + \
        os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None:
        raise UserError(f"bad spec '{spec}': '{path}' is not a Python file")
    user = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = user
    # The file may import modules next to it.
    sys.path.insert(0, os.path.dirname(path))
    run_user_code(lambda: loader_spec.loader.exec_module(user), path,
                  f"running {os.path.basename(path)}")
    factory = getattr(user, name, None)
    if factory is None:
        raise UserError(f"bad spec '{spec}': {os.path.basename(path)} "
                        f"defines no '{name}'")
    if not callable(factory):
        raise UserError(f"bad spec '{spec}': '{name}' is not callable")
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        params = []
    required = [p.name for p in params
                if p.default is p.empty and
                p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if required:
        raise UserError(
            f"bad spec '{spec}': {name}() has required parameter"
            f"{'s' if len(required) > 1 else ''} "
            f"{', '.join(repr(r) for r in required)}; tp-import calls the "
            f"factory with no arguments")
    return factory, path


def _own(filename):
    """Whether a frame's file is tp-import's: its package or the entry
    script."""
    path = os.path.abspath(filename)
    entry = os.path.realpath(sys.argv[0]) if sys.argv else ""
    return path.startswith(_OWN_DIR) or os.path.realpath(path) == entry


def run_user_code(fn, path, what, fallback=""):
    """Calls `fn`; an exception raised in user code becomes a UserError
    naming it and the innermost line of user code, or `fallback` (a
    `file.py:line`) when none ran, as when the call itself fails (a bug in
    tp-import itself propagates with its traceback)."""
    try:
        return fn()
    except UserError:
        raise
    except SyntaxError as e:
        raise UserError(f"{what}: syntax error at "
                        f"{os.path.basename(e.filename or path)}:{e.lineno}: "
                        f"{e.msg}")
    except Exception as e:
        frames = traceback.extract_tb(e.__traceback__)
        if frames and os.path.abspath(frames[-1].filename).startswith(
                _OWN_DIR):
            raise
        where = f" at {fallback}" if fallback else ""
        for f in reversed(frames):
            if not _own(f.filename) and not os.path.abspath(
                    f.filename).startswith(os.path.dirname(torch.__file__)):
                where = f" at {os.path.basename(f.filename)}:{f.lineno}"
                break
        raise UserError(f"{what} raised {type(e).__name__}: {e}{where}")


def example_inputs(result, spec):
    """(module, [(name, tensor)], call with keywords) from the factory's
    result."""
    factory = spec.rpartition(":")[2]
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise UserError(f"{factory}() must return (module, example_inputs), "
                        f"not {type(result).__name__}")
    module, ins = result
    if not isinstance(module, nn.Module):
        raise UserError(f"{factory}() returned {type(module).__name__} as "
                        f"the module; expected a torch.nn.Module")
    as_kwargs = isinstance(ins, dict)
    if isinstance(ins, torch.Tensor):
        ins = (ins,)
    if as_kwargs:
        named = list(ins.items())
    elif isinstance(ins, (tuple, list)):
        names = _forward_names(module, len(ins))
        named = list(zip(names, ins))
    else:
        raise UserError(f"{factory}() returned {type(ins).__name__} as the "
                        f"example inputs; expected a tensor, a tuple or list "
                        f"of tensors, or a dict name -> tensor")
    if not named:
        raise UserError(f"{factory}() returned no example inputs")
    for name, t in named:
        if not isinstance(name, str) or not name or '"' in name or \
                "\\" in name:
            raise UserError(f"example input name {name!r} must be a "
                            f"non-empty string without quotes or "
                            f"backslashes")
        if not isinstance(t, torch.Tensor):
            raise UserError(f"example input '{name}' is "
                            f"{type(t).__name__}, not a tensor")
        if t.dtype not in _INPUT_DTYPES:
            raise UserError(f"example input '{name}' has dtype {t.dtype}; "
                            f"tp takes float32, bfloat16, float16, int64, "
                            f"int32 or bool")
    return module, [(n, t.detach().contiguous()) for n, t in named], as_kwargs


def _forward_names(module, n):
    """The names of forward()'s first n positional parameters."""
    names = []
    try:
        for p in inspect.signature(module.forward).parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
    except (TypeError, ValueError):
        pass
    names = names[:n]
    return names + [f"arg{i}" for i in range(len(names), n)]
