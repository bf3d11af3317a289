# lit configuration for tp: FileCheck tests of the dialects and passes, and
# end-to-end tp-run tests.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tp_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py"]

# The mpi backend: `%mpirun -np 2 tp-run ...` (root and more ranks than cores
# are fine in tests).
if getattr(config, "tp_have_mpi", 0):
    config.available_features.add("mpi")
    # Each test's own session directory (%t.ompi): lit gives all tests one
    # TMPDIR, and two mpiexec runs creating their session directory there at
    # once can fail ("ompi.<host>.0: File exists").
    config.substitutions.append(
        ("%mpirun", config.tp_mpiexec +
         " --allow-run-as-root --oversubscribe --mca orte_tmpdir_base %t.ompi"))
# tp-run built with the nccl backend and --device cuda (a GPU may or may
# not be present: tests of the flags need only the build).
if getattr(config, "tp_have_cuda", 0):
    config.available_features.add("cuda-build")
    # A usable GPU too (the GPU end-to-end tests; scripts/gpu-check.sh runs
    # them and fails if they are unsupported).
    import shutil
    import subprocess
    smi = shutil.which("nvidia-smi")
    if smi and subprocess.run([smi, "-L"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("gpu")
# PyTorch for tp-import (Debian's python3-torch, importable by
# /usr/bin/python3 only): its tests `REQUIRES: torch`; %torch_python runs
# their checker scripts.
import subprocess as _subprocess
_torch_python = "/usr/bin/python3"
if os.path.exists(_torch_python) and _subprocess.run(
        [_torch_python, "-c", "import torch"], stdout=_subprocess.DEVNULL,
        stderr=_subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torch")
config.substitutions.append(("%torch_python", _torch_python))
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%examples", os.path.join(config.tp_src_root, "examples")))
# MLIR's runtime libraries, for mlir-runner (programs exported to upstream
# ops and lowered by mlir-opt).
config.substitutions.append(("%mlir_lib_dir", os.path.realpath(
    os.path.join(config.llvm_tools_dir, "..", "lib"))))
# The example style plugin (examples/style-plugin), for --load-style-plugin.
config.substitutions.append(("%style_plugin", os.path.join(
    config.tp_obj_root, "lib", "libTPExampleStylePlugin.so")))
# OPENBLAS_NUM_THREADS: scripts/sanitize.sh thread sets it (see there).
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "OPENBLAS_NUM_THREADS"])
llvm_config.use_default_substitutions()

config.tp_tools_dir = os.path.join(config.tp_obj_root, "bin")
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tools = ["tp-opt", "tp-run", "tp-plan", "tp-model", "tp-import"]
# TP_OPT_CHECK_IR_ROUNDTRIP=1 makes every tp-opt call also check that its
# output parses back to the same IR.
if os.environ.get("TP_OPT_CHECK_IR_ROUNDTRIP"):
    tools[0] = ToolSubst("tp-opt", "tp-opt --verify-roundtrip", unresolved="fatal")
llvm_config.add_tool_substitutions(tools, [config.tp_tools_dir])
# A test that hangs fails after TP_LIT_TEST_TIMEOUT seconds (default 600)
# instead of holding the whole suite until CI's time limit ends it; lit needs
# psutil (a dependency of python3-torch) to end the test's processes.
try:
    import psutil  # noqa: F401
    lit_config.maxIndividualTestTime = int(
        os.environ.get("TP_LIT_TEST_TIMEOUT", "600"))
except ImportError:
    pass
