#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every JSON document hvtlb prints says what it is and what made it: a
"schema" (docs/json.md) and "hvtlb": {"version", "commit"}, the version
and commit `hvtlb --version` prints. Results do not depend on the
machine: `sim --json` with --threads 1 and 2 gives the same document but
for "execution". Every --help that offers --json has a case here, so a
new command with --json cannot skip the metadata.

usage: test-json-meta.py HVTLB SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HVTLB, ROOT = sys.argv[1], sys.argv[2]
failures = []
checks = 0


def check(name, cond, detail=""):
    global checks
    checks += 1
    print(("ok   " if cond else "FAIL ") + name +
          ("" if cond else ": " + str(detail)[:400]))
    if not cond:
        failures.append(name)


def run(*args, env=None):
    p = subprocess.run([HVTLB, *args], capture_output=True, text=True,
                       timeout=300, cwd=ROOT,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


# --version: "hvtlb VERSION (commit COMMIT)", one line.
rc, out, err = run("--version")
m = re.fullmatch(r"hvtlb (\S+) \(commit (\S+)\)\n", out)
check("--version prints the version and the commit", rc == 0 and m, out)
version, commit = (m.group(1), m.group(2)) if m else (None, None)
check("--version: the commit is hex (with -dirty for a changed tree) or "
      "'unknown'", commit and re.fullmatch(
          r"([0-9a-f]{40}(-dirty)?|unknown)", commit), commit)


def meta(what, doc):
    """doc carries the schema and the version and commit of --version."""
    check(f"{what}: is an object", isinstance(doc, dict), type(doc))
    if not isinstance(doc, dict):
        return
    check(f"{what}: schema", isinstance(doc.get("schema"), int) and
          doc["schema"] >= 1, doc.get("schema"))
    h = doc.get("hvtlb")
    check(f"{what}: hvtlb.version and hvtlb.commit as --version says",
          isinstance(h, dict) and h.get("version") == version and
          h.get("commit") == commit and set(h) == {"version", "commit"}, h)


SMALL = ["--set", "workload.iterations=2", "--set", "workload.pages=8"]
CASES = {
    "encode": ["encode", "--call", "list-ex", "--vps", "0,5,130", "--range",
               "0x7f0000000000+1", "--json"],
    "decode": ["decode", "--control", "0x0000000100040014", "--input",
               "0,0,0,5,0x21,0x4,0x7f0000000000", "--json"],
    "plan": ["plan", "--strategy", "kvm-pv", "--cpus", "8", "--targets",
             "0-7", "--preempted", "3,4", "--range", "all", "--json"],
    "keys": ["keys", "--json"],
    "scenarios": ["scenarios", "--json"],
    "replay": ["replay", "--check", "--json",
               "traces/tlb-churn-2t-local.txt.gz"],
    "sim": ["sim", "default", *SMALL, "--json"],
    "reproduce": ["reproduce", "--iterations", "1", "--json"],
    "sensitivity": ["sensitivity", "default", *SMALL, "--json"],
    "validate": ["validate", "--uncertainty", "2", "--json",
                 "tests/scenario/validation"],
}
# A failed decode answers a status, and is a document like any other.
EXTRA = {
    "decode (a failure status)": ["decode", "--control", "0x99", "--input",
                                  "0,0,1", "--json"],
}

# Every command whose --help offers --json has a case.
out = run("--help")[1]
body = out.split("commands:\n", 1)[1].split("\n\n", 1)[0]
for cmd in [line.split()[0] for line in body.splitlines() if line.strip()]:
    if "--json" in run(cmd, "--help")[1]:
        check(f"{cmd} --json has a case here", cmd in CASES)

for what, args in list(CASES.items()) + list(EXTRA.items()):
    rc, out, err = run(*args)
    try:
        doc = json.loads(out)
    except ValueError:
        check(f"{what}: prints one JSON document", False,
              f"exit {rc}: {err}")
        continue
    check(f"{what}: exit 0", rc == 0, err)
    meta(what, doc)

# sweep --shard: one document per line, each with the metadata.
rc, out, err = run("sweep", "default", *SMALL, "--vary", "vm.vcpus=2,4",
                   "--shard", "0/2")
lines = out.splitlines()
check("sweep --shard: prints lines", rc == 0 and lines, err)
for i, line in enumerate(lines):
    meta(f"sweep --shard line {i}", json.loads(line))

# sweep --merge reads the metadata: a later schema is refused, shards of
# different builds merge with a warning, lines of before the metadata merge.
shard0 = [json.loads(line) for line in lines]
rc, out1, err = run("sweep", "default", *SMALL, "--vary", "vm.vcpus=2,4",
                    "--shard", "1/2")
shard1 = [json.loads(line) for line in out1.splitlines()]
with tempfile.TemporaryDirectory() as d:
    def merge(first, second):
        paths = []
        for i, docs in enumerate((first, second)):
            paths.append(os.path.join(d, f"{i}.jsonl"))
            with open(paths[-1], "w") as f:
                f.write("".join(json.dumps(x) + "\n" for x in docs))
        return run("sweep", "--merge", *paths)
    rc, out, err = merge(shard0, shard1)
    check("sweep --merge: shards of one build, no warning",
          rc == 0 and err == "" and len(out.splitlines()) == 5, err)
    later = [dict(x, schema=x["schema"] + 1) for x in shard1]
    rc, out, err = merge(shard0, later)
    check("sweep --merge: a later schema is refused, naming the line",
          rc == 2 and out == "" and "1.jsonl:1" in err and "schema" in err,
          err)
    other = [dict(x, hvtlb=dict(x["hvtlb"], commit="0" * 40))
             for x in shard1]
    rc, out, err = merge(shard0, other)
    check("sweep --merge: shards of two commits merge with a warning",
          rc == 0 and len(out.splitlines()) == 5 and "warning" in err and
          "0" * 40 in err and (commit or "?") in err, err)
    old = [{k: v for k, v in x.items() if k not in ("schema", "hvtlb")}
           for x in shard1]
    rc, out, err = merge(shard0, old)
    check("sweep --merge: lines from before the metadata still merge",
          rc == 0 and err == "" and len(out.splitlines()) == 5, err)

# Results do not depend on the machine: --threads is run metadata.
docs = []
for t in ("1", "2"):
    rc, out, err = run("sim", "default", *SMALL, "--threads", t, "--json")
    docs.append(json.loads(out) if rc == 0 else {})
for d in docs:
    for r in d.get("runs", []):
        check("sim --json: a run has no 'threads'", "threads" not in r,
              sorted(r))
check("sim --json: --threads says itself in execution.threads",
      [d.get("execution", {}).get("threads") for d in docs] == [1, 2],
      [d.get("execution") for d in docs])
for d in docs:
    d.pop("execution", None)
check("sim --json: --threads 1 and 2 give the same document otherwise",
      docs[0] and docs[0] == docs[1])

# Displayed data paths are canonical, as an installed tool's data found
# from its bin/ through ../share would not be: no "/../" or "/./".
rc, out, err = run("scenarios", "--json",
                   env={"HVTLB_DATA_DIR": ROOT + "/scenarios/../."})
try:
    doc = json.loads(out)
except ValueError:
    doc = {}
files = [s.get("file", "") for s in
         (doc.get("scenarios", []) if isinstance(doc, dict) else doc)]
check("scenarios --json: files listed", rc == 0 and files, err)
check("scenarios --json: every file path is canonical",
      all(os.path.realpath(f) == f for f in files),
      [f for f in files if os.path.realpath(f) != f][:3])

print(f"{checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
