#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CI for the validation suite: every case of validation/ loads, runs and
prints a row at the reduced size named in validation/passing.txt, and every
case listed there still has its published value inside the band (the
ratchet). Cases inside but not listed are reported, not failed.

usage: check-validation-ratchet.py HVTLB SOURCE_ROOT
"""
import json
import os
import subprocess
import sys

HVTLB, ROOT = sys.argv[1], sys.argv[2]
DIR = os.path.join(ROOT, "validation")
RATCHET = os.path.join(DIR, "passing.txt")

args, listed = [], []
with open(RATCHET) as f:
    for line in f:
        line = line.strip()
        if line.startswith("# args:"):
            args = line[len("# args:"):].split()
        elif line and not line.startswith("#"):
            listed.append(line)
files = sorted(n[:-4] for n in os.listdir(DIR) if n.endswith(".ini"))
problems = [f"{RATCHET}: '{i}' has no case file" for i in listed
            if i not in files]
if not args:
    problems.append(f"{RATCHET}: no '# args:' line")
if not files:
    print("no validation case yet")
else:
    p = subprocess.run([HVTLB, "validate", DIR, "--json", *args],
                       capture_output=True, text=True, timeout=3000)
    if p.returncode:
        problems.append(f"hvtlb validate exited {p.returncode}: "
                        f"{p.stderr.strip()}")
    doc = json.loads(p.stdout) if p.stdout else {"cases": []}
    rows = {c["id"]: c for c in doc["cases"]}
    for i in files:
        c = rows.get(i)
        if not c or c.get("error") or not c.get("simulated"):
            problems.append(f"{i}: no result ({c and c.get('error')})")
            continue
        sim = c["simulated"]
        print(f"{i:32} {c['kind']:11} published {c['published']:<9.4g} "
              f"band {sim['p5']:.4g} / {sim['p50']:.4g} / {sim['p95']:.4g}"
              f" {'inside' if c['inside'] else 'outside'}")
        if i in listed and not c["inside"]:
            problems.append(f"{i}: listed in passing.txt but now outside "
                            "its band")
        if c["inside"] and i not in listed:
            print(f"  newly inside: add '{i}' to validation/passing.txt")
for m in problems:
    print("FAIL " + m)
sys.exit(1 if problems else 0)
