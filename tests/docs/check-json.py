#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The JSON the tool prints matches the schemas in docs/json/: every
command whose --help offers --json has a schema, docs/json.md describes
every schema, and the output of a set of invocations (success and failure
paths) validates against its schema, with no member the schema does not
name. The validator knows the part of JSON Schema the schemas use: type,
const, enum, pattern, minimum, properties, required,
additionalProperties, items, anyOf and $ref to a sibling file.

usage: check-json.py HVTLB SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HVTLB, ROOT = sys.argv[1], sys.argv[2]
SCHEMAS = os.path.join(ROOT, "docs", "json")
failures = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


def load(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        return json.load(f)


TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def errors(v, s, path="$"):
    """The first error of @v against schema @s, or None."""
    if "$ref" in s:
        return errors(v, load(s["$ref"]), path)
    if "anyOf" in s:
        errs = [errors(v, sub, path) for sub in s["anyOf"]]
        return None if None in errs else f"{path}: none of anyOf: {errs}"
    if "const" in s and v != s["const"]:
        return f"{path}: {v!r} is not {s['const']!r}"
    if "enum" in s and v not in s["enum"]:
        return f"{path}: {v!r} not in {s['enum']}"
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(v, t) for t in types):
            return f"{path}: {v!r} is not {types}"
    if isinstance(v, str) and "pattern" in s and not re.search(s["pattern"],
                                                                  v):
        return f"{path}: {v!r} does not match {s['pattern']}"
    if is_type(v, "number") and "minimum" in s and v < s["minimum"]:
        return f"{path}: {v} < {s['minimum']}"
    if isinstance(v, dict):
        props = s.get("properties", {})
        for k in s.get("required", []):
            if k not in v:
                return f"{path}: missing member '{k}'"
        for k, x in v.items():
            if k in props:
                e = errors(x, props[k], f"{path}.{k}")
            elif s.get("additionalProperties") is False:
                e = f"{path}: member '{k}' is not in the schema"
            elif isinstance(s.get("additionalProperties"), dict):
                e = errors(x, s["additionalProperties"], f"{path}.{k}")
            else:
                e = None
            if e:
                return e
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            e = errors(x, s["items"], f"{path}[{i}]")
            if e:
                return e
    return None


def run(args):
    """The JSON document hvtlb prints, or a string saying why there is
    none."""
    p = subprocess.run([HVTLB, *args], capture_output=True, text=True,
                       timeout=300, cwd=ROOT)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return f"no JSON (exit {p.returncode}): {p.stderr[:300]}"


def commands():
    out = subprocess.run([HVTLB, "--help"], capture_output=True,
                         text=True).stdout
    body = out.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in body.splitlines() if line.strip()]


# Every --json has a schema, and docs/json.md names every schema.
with open(os.path.join(ROOT, "docs", "json.md")) as f:
    doc = f.read()
schemas = sorted(n for n in os.listdir(SCHEMAS) if n.endswith(".json"))
for cmd in commands():
    usage = subprocess.run([HVTLB, cmd, "--help"], capture_output=True,
                           text=True).stdout
    if "--json" in usage:
        check(f"{cmd} --json has docs/json/{cmd}.schema.json",
              f"{cmd}.schema.json" in schemas)
for name in schemas:
    check(f"docs/json.md describes {name}", f"json/{name}" in doc)

SMALL = ["--set", "workload.iterations=3"]
with tempfile.TemporaryDirectory() as tmp:
    broken = os.path.join(tmp, "broken.ini")
    with open(broken, "w") as f:
        f.write("[validation]\nquantity = ratio\n")
    # a superseded case named on the command line: "superseded_by"
    old = os.path.join(tmp, "old.ini")
    with open(os.path.join(ROOT, "tests", "scenario", "validation",
                           "tiny-value.ini")) as f:
        text = f.read().replace("../../../profiles",
                                os.path.join(ROOT, "profiles"))
    with open(old, "w") as f:
        f.write(text + "superseded_by = tiny-value\n")
    cases = [
        ("encode", ["encode", "--call", "list-ex", "--vps", "0,5,130",
                    "--range", "0x7f0000000000+1", "--json"]),
        ("encode", ["encode", "--call", "ipi", "--vps", "1", "--vector",
                    "0x30", "--fast", "--json"]),
        ("decode", ["decode", "--control", "0x0000000100040014", "--input",
                    "0,0,0,5,0x21,0x4,0x7f0000000000", "--profile", "kvm",
                    "--json"]),
        ("decode", ["decode", "--control", "0x0000000100040014", "--input",
                    "0,0,0,5", "--json"]),
        ("decode", ["decode", "--control", "0x13", "--input",
                    "0,0,0,0x4,0x4", "--profile", "xen", "--vp-count",
                    "128", "--json"]),
        ("decode", ["decode", "--control", "0x0b", "--input", "0x30,0x3",
                    "--json"]),
        ("decode", ["decode", "--control", "0x8001", "--input", "0",
                    "--profile", "kvm", "--json"]),
        ("plan", ["plan", "--strategy", "kvm-pv", "--cpus", "8", "--targets",
                  "0-7", "--preempted", "3,4", "--cas-lose", "4", "--range",
                  "all", "--json"]),
        ("plan", ["plan", "--strategy", "hyperv", "--cpus", "256",
                  "--targets", "0,5,130", "--range", "0x1000-0x3000",
                  "--hypercall-status", "0x3", "--json"]),
        ("plan", ["plan", "--strategy", "broadcast", "--cpus", "4",
                  "--targets", "1-3", "--range", "0x1000-0x9000", "--global",
                  "--json"]),
        ("plan", ["plan", "--strategy", "lazy", "--cpus", "4", "--targets",
                  "1-3", "--range", "0x1000-0x2000", "--json"]),
        ("plan", ["plan", "--strategy", "vmm-assist", "--cpus", "4",
                  "--targets", "1-3", "--range", "all", "--vmm-result",
                  "5", "--json"]),
        ("keys", ["keys", "--json"]),
        ("scenarios", ["scenarios", "--json"]),
        ("replay", ["replay", "--check", "--json",
                    "traces/tlb-churn-3t-tsc.txt.gz"]),
        ("replay", ["replay", "--check", "--json",
                    "fuzz/corpus/trace-text/real-tsc-clock.txt"]),
        ("replay", ["replay", "--check", "--json",
                    "fuzz/corpus/trace-text/format-ipi-shootdowns.txt"]),
        ("sim", ["sim", "scenarios/default.ini", *SMALL, "--json"]),
        ("sim", ["sim", "scenarios/default.ini", *SMALL, "--uncertainty",
                 "2", "--json"]),
        ("sim", ["sim", "scenarios/default.ini", *SMALL, "--compare",
                 "kvm-pv", "--json"]),
        ("sim", ["sim", "scenarios/oracle-stress.ini", "--set",
                 "workload.iterations=20", "--compare", "ipi", "--fault",
                 "drop-target", "--json"]),
        ("reproduce", ["reproduce", "--iterations", "2", "--json"]),
        ("reproduce", ["reproduce", "--iterations", "2", "--uncertainty",
                       "2", "--json"]),
        ("sensitivity", ["sensitivity", "scenarios/default.ini", *SMALL,
                         "--json"]),
        # the test cases carry observables (a ratio, a run b and a run
        # a value); the broken case has "observables": []
        ("validate", ["validate", "--uncertainty", "2", "--json",
                      "tests/scenario/validation", broken, old]),
    ]
    # sweep --shard prints one document per line.
    shard = subprocess.run([HVTLB, "sweep", "scenarios/default.ini", *SMALL,
                            "--vary", "vm.vcpus=2,4", "--uncertainty", "2",
                            "--shard", "1/2"], capture_output=True,
                           text=True, timeout=300, cwd=ROOT)
    lines = shard.stdout.splitlines()
    check("hvtlb sweep --shard prints lines", shard.returncode == 0 and
          len(lines) > 0, shard.stderr[:300])
    for i, line in enumerate(lines):
        try:
            err = errors(json.loads(line), load("sweep-shard.schema.json"))
        except ValueError as e:
            err = str(e)
        check(f"hvtlb sweep --shard line {i} matches sweep-shard",
              err is None, err)
    for schema, args in cases:
        out = run(args)
        err = out if isinstance(out, str) else errors(
            out, load(f"{schema}.schema.json"))
        check(f"hvtlb {' '.join(args[:6])} ... matches {schema}",
              err is None, err)
        if schema == "validate" and not isinstance(out, str):
            runs = {o["run"] for c in out["cases"]
                    for o in c["observables"] if o.get("simulated")}
            check("hvtlb validate: the schema saw observables of every run",
                  runs == {"a", "b", "ratio"}, runs)
            check("hvtlb validate: the schema saw a superseded_by",
                  any("superseded_by" in c for c in out["cases"]))


def strategy_enums(node, path):
    """Every enum of a property named strategy, with where it is."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "strategy" and isinstance(v, dict) and "enum" in v:
                yield path + "/strategy", v["enum"]
            yield from strategy_enums(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from strategy_enums(v, f"{path}/{i}")


# The schemas' strategy names are the library's (HVTLB_STRATEGY_MAP, as
# `hvtlb keys strategy` accepts them): a new strategy is found here.
keys = subprocess.run([HVTLB, "keys", "strategy"], capture_output=True,
                      text=True, timeout=60, cwd=ROOT)
row = [l.split() for l in keys.stdout.splitlines() if l.startswith("strategy ")]
names = row[0][2].split("|") if row and len(row[0]) > 2 else []
check("hvtlb keys strategy lists the strategies", len(names) >= 6,
      keys.stdout[:300])
seen = 0
for f in sorted(os.listdir(os.path.join(ROOT, "docs", "json"))):
    if f.endswith(".schema.json"):
        for where, enum in strategy_enums(load(f), f):
            seen += 1
            check(f"{where}: the strategies of the library",
                  enum == names, f"{enum} != {names}")
check("the schemas name the strategies somewhere", seen >= 2, seen)

sys.exit(1 if failures else 0)
