#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Shell completion: `hvtlb scenarios --names` lists the scenario names
alone, from the data directory in use.

usage: test-completion.py HVTLB SOURCE_ROOT
"""
import json
import os
import subprocess
import tempfile

from clitest import HVTLB, ROOT, check, finish, run

# `hvtlb` as a user types it: the build's binary first on PATH.
ENV = {**os.environ,
       "PATH": os.path.dirname(os.path.abspath(HVTLB)) + os.pathsep +
       os.environ.get("PATH", "")}

# --- scenarios --names --------------------------------------------------
shipped = sorted(n[:-4] for n in os.listdir(os.path.join(ROOT, "scenarios"))
                 if n.endswith(".ini"))
rc, out, err = run("scenarios", "--names")
check("scenarios --names: the shipped names, one a line",
      rc == 0 and out.splitlines() == shipped and err == "", out[:200])
rc, js, err = run("scenarios", "--json")
check("scenarios --names: the names of --json",
      [s["name"] for s in json.loads(js)["scenarios"]] == out.splitlines())
rc, out, err = run("scenarios", "--names", "--json")
check("scenarios --names --json conflict", rc == 2 and out == "" and
      "--json and --names conflict" in err, err)
with tempfile.TemporaryDirectory() as d:
    os.mkdir(os.path.join(d, "scenarios"))
    open(os.path.join(d, "scenarios", "mine.ini"), "w").close()
    p = subprocess.run([HVTLB, "scenarios", "--names"], capture_output=True,
                       text=True, timeout=60,
                       env={**os.environ, "HVTLB_DATA_DIR": d})
    check("scenarios --names follows the data directory",
          p.returncode == 0 and p.stdout == "mine\n", p.stdout + p.stderr)

finish()
