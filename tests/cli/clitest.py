# SPDX-License-Identifier: MIT
"""What the CLI tests share: how to run the built hvtlb, how to report a
check, and the exit line. A test imports it from its own folder:

    from clitest import HVTLB, ROOT, DEFAULT, TINY, run, check, finish

HVTLB and ROOT are the test's two arguments (the binary, the source
tree); finish() prints the count of failed checks and exits 1 if any.
"""
import os
import subprocess
import sys

HVTLB, ROOT = sys.argv[1], sys.argv[2]
DEFAULT = os.path.join(ROOT, "scenarios", "default.ini")
TINY = ["--set", "workload.iterations=2", "--threads", "2"]
failures = []


def run(*args, stdin=None, timeout=300):
    p = subprocess.run([HVTLB, *args], capture_output=True, text=True,
                       input=stdin, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(f"{'ok  ' if cond else 'FAIL'} {name}" +
          ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def finish():
    print(f"{len(failures)} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)
