# SPDX-License-Identifier: MIT
"""What the replay's Python tests share: the ok/FAIL lines, the failures
they count and the exit status, and running hvtlb."""
import subprocess
import sys

failures = []


def check(name, cond, detail=""):
    """Prints one ok/FAIL line; a failure is counted for done()."""
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


def hvtlb(exe, *args, timeout=60, cwd=None):
    """Runs `exe args...`: (exit status, stdout, stderr)."""
    p = subprocess.run([exe, *args], capture_output=True, text=True,
                       timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def done():
    """Exits 1 when a check failed, else 0."""
    sys.exit(1 if failures else 0)
