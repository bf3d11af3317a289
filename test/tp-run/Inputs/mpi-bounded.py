"""Runs a command that is expected to fail, within a deadline.

Usage: mpi-bounded.py SECONDS COMMAND [ARGS...]

Prints the command's stdout and stderr, then one last line:
"bounded: exit code N" if it ended by itself within SECONDS (N may be 0, or
negative for a signal), or "unbounded: killed after SECONDS s" if it had to be
killed (with every process it started). Always exits 0, so that FileCheck
decides.
"""

import os
import signal
import subprocess
import sys

deadline = float(sys.argv[1])
proc = subprocess.Popen(
    sys.argv[2:],
    stdout=subprocess.PIPE,
    stderr=subprocess.STDOUT,
    start_new_session=True,
)
try:
    out, _ = proc.communicate(timeout=deadline)
    ending = "bounded: exit code %d" % proc.returncode
except subprocess.TimeoutExpired:
    os.killpg(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate()
    ending = "unbounded: killed after %g s" % deadline
sys.stdout.write(out.decode("utf-8", "replace"))
print(ending)
