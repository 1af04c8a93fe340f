#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb keys: every key the library enumerates is listed once with a
default that `hvtlb sim --set` accepts, PREFIX filters, --json parses,
bad options exit 2.

usage: test-keys-cli.py HVTLB SCENARIO
"""
import json
import subprocess
import sys

HVTLB, SCENARIO = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    p = subprocess.run([HVTLB, *args], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(f"{'ok  ' if cond else 'FAIL'} {name}" + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


rc, out, err = run("keys", "--json")
keys = json.loads(out)["keys"] if rc == 0 else []
names = [k["name"] for k in keys]
check("--json parses, exit 0", rc == 0 and len(keys) > 80, f"rc={rc} {err!r}")
check("every key once", len(names) == len(set(names)), names)
by = {k["name"]: k for k in keys}
check("vm.vcpus: default 16, range 1..4096",
      by.get("vm.vcpus", {}).get("default") == "16" and
      by["vm.vcpus"].get("min") == 1 and by["vm.vcpus"].get("max") == 4096,
      by.get("vm.vcpus"))
check("strategy: its values", by.get("strategy", {}).get("values", [])[:2] ==
      ["ipi", "hyperv"], by.get("strategy"))
check("costs listed with a source", all(len(k["meaning"]) > 10 for k in keys
                                        if k["name"].startswith("cost.")))

# Every default, given back to `sim --set`, is accepted (the run itself is
# cut short at once: only the configuration is under test).
sets = []
for k in keys:
    if k["name"] in ("threads",):
        continue
    sets += ["--set", f"{k['name']}={k['default']}"]
rc, out, err = run("sim", SCENARIO, "--compare", "ipi", *sets,
                   "--set", "engine.max_virtual_s=0.000001")
check("sim --set takes every default", "bad value" not in err and
      "unknown key" not in err and rc in (0, 1), f"rc={rc} {err!r}")

rc, out, err = run("keys", "workload.")
rows = out.strip().splitlines()[1:]
check("PREFIX keeps workload.* only", rc == 0 and len(rows) >= 10 and
      all(r.startswith("workload.") for r in rows), out)
rc, out, err = run("keys", "--bogus")
check("unknown option exits 2 with one line",
      rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
