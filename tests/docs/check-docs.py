#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The project's docs stand alone: README.md, docs/ (pages and man pages),
the installed headers and the code (sources, tests, scripts, scenarios,
profiles, examples, proofs) name no file outside the repository and no issue
number; every relative link in a Markdown page leads to a file of the
tree; docs/model.md names every scenario key (the cost.* keys are listed
by `hvtlb keys cost.` and described in docs/calibration-notes.md).

usage: check-docs.py HVTLB SOURCE_ROOT
"""
import glob
import json
import os
import re
import subprocess
import sys

HVTLB, ROOT = sys.argv[1], sys.argv[2]
failures = []

# Notes that live outside the repository, and issue numbers.
OUTSIDE = re.compile(r"(?<![\w-])(abi|calibration|design|windows-guest|"
                     r"style)\.md\b|\.\./shared\b|shared/docs|"
                     r"\bissues? *#?\d+\b|\bseed posts?\b", re.I)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


def files():
    for pattern in ("README.md", "BENCHMARKS.md", "docs/*.md",
                    "docs/man/*.scd", "include/hvtlb/*.h", "meson.build",
                    "**/meson.build", "src/**/*.[ch]", "tools/**/*.[ch]",
                    "tests/**/*.[ch]", "tests/**/*.py", "tests/**/*.sh",
                    "bench/**/*.py", "scripts/*", "scenarios/*.ini",
                    "profiles/*.ini", "examples/**/*", "proofs/*"):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern),
                                     recursive=True)):
            # this file names the patterns; fuzz corpora are mutated bytes
            if (os.path.isfile(path) and
                    os.path.abspath(path) != os.path.abspath(__file__) and
                    "/subprojects/" not in path and "/build" not in path):
                yield path


for path in files():
    rel = os.path.relpath(path, ROOT)
    with open(path, errors="replace") as f:
        text = f.read()
    bad = [f"{i}: {m.group(0)}" for i, line in enumerate(text.splitlines(), 1)
           for m in [OUTSIDE.search(line)] if m]
    check(f"{rel} names nothing outside the repository", not bad, bad[:5])
    if not path.endswith(".md"):
        continue
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        dest = os.path.normpath(os.path.join(os.path.dirname(path),
                                             target.split("#")[0]))
        if not os.path.exists(dest):
            broken.append(target)
    check(f"{rel}: every relative link resolves", not broken, broken)

out = subprocess.run([HVTLB, "keys", "--json"], capture_output=True,
                     text=True, timeout=60).stdout
with open(os.path.join(ROOT, "docs", "model.md")) as f:
    model = f.read()
keys = [k["name"] for k in json.loads(out)["keys"] if not k["name"].startswith(
    "cost.")]
missing = [k for k in keys if f"`{k}`" not in model]
check(f"docs/model.md names every one of the {len(keys)} scenario keys",
      not missing, missing)

sys.exit(1 if failures else 0)
