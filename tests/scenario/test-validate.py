#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb validate on the test cases of tests/scenario/validation: the JSON
has the documented fields and every figure follows from the band (inside,
relative error, sign, summary); the output does not depend on --threads;
--quick applies `ci`; a broken case is a clear error naming its file and
line while the other cases still run.

usage: test-validate.py HVTLB SOURCE_ROOT
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HVTLB, ROOT = sys.argv[1], sys.argv[2]
CASES = os.path.join(ROOT, "tests", "scenario", "validation")
failures = []


def run(*args):
    p = subprocess.run([HVTLB, "validate", *args], capture_output=True,
                       text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


rc, out, err = run(CASES, "--uncertainty", "12", "--json", "--threads", "2")
doc = json.loads(out) if rc == 0 else {"cases": [], "summary": {}}
cases = {c["id"]: c for c in doc["cases"]}
check("both test cases ran", rc == 0 and set(cases) == {"tiny-ratio",
                                                       "tiny-value"},
      f"{rc} {err}")
for c in cases.values():
    sim = c.get("simulated") or {}
    ok = set(c) >= {"id", "source", "kind", "metric", "published",
                    "simulated", "inside"} and \
        sim["p5"] <= sim["p50"] <= sim["p95"] and \
        c["inside"] == (sim["p5"] <= c["published"] <= sim["p95"]) and \
        abs(c["rel_error"] - abs(sim["p50"] - c["published"]) /
            c["published"]) < 1e-5 and c["samples"] == 12
    if c["quantity"] == "ratio":
        ok = ok and c["decides_sign"] == (sim["p5"] > 1 or sim["p95"] < 1) \
            and c["sign_right"] == (c["decides_sign"] and
                                    (sim["p5"] > 1) == (c["published"] > 1))
    else:
        ok = ok and "decides_sign" not in c
    check(f"{c['id']}: fields follow from the band", ok, c)
check("source text keeps '#' and ';'",
      "#fragments and ; semicolons" in cases.get("tiny-ratio", {}).get(
          "source", ""))
s = doc["summary"]
val = [c for c in cases.values() if c["kind"] == "validation"]
check("summary counts validation cases only",
      s.get("validation_cases") == len(val) == 1 and
      s.get("inside") == sum(c["inside"] for c in val) and
      abs(s.get("median_rel_error", -1) -
          statistics.median(c["rel_error"] for c in val)) < 1e-5, s)

rc1, out1, _ = run(CASES, "--uncertainty", "12", "--json", "--threads", "1")
check("--threads 1 and 2 give the same bytes", out1 == out, "differs")
rc, quick, err = run(CASES, "--uncertainty", "12", "--json", "--quick")
q = {c["id"]: c for c in json.loads(quick)["cases"]} if rc == 0 else {}
check("--quick applies ci (tiny-ratio changes, tiny-value has none)",
      rc == 0 and q["tiny-ratio"]["simulated"] !=
      cases["tiny-ratio"]["simulated"] and q["tiny-value"]["simulated"] ==
      cases["tiny-value"]["simulated"], err)
# --set: in every run, after the file and ci, before the runs' own lines
rc, setq, err = run(CASES, "--uncertainty", "12", "--json", "--set",
                    "workload.iterations=10", "--set", "workload.threads=4")
sq = json.loads(setq) if rc == 0 else {"cases": [], "set": None}
ss = {c["id"]: c for c in sq["cases"]}
check("--set applies to every run (the ci lines as --set give --quick)",
      rc == 0 and ss["tiny-ratio"]["simulated"] ==
      q["tiny-ratio"]["simulated"] != cases["tiny-ratio"]["simulated"] and
      sq["set"] == ["workload.iterations=10", "workload.threads=4"], err)
check("without --set the JSON says so", doc.get("set") == [], doc.get("set"))
rc, sets, err = run(CASES, "--uncertainty", "12", "--json", "--set",
                    "strategy=hyperv")
sc = {c["id"]: c for c in json.loads(sets)["cases"]} if rc == 0 else {}
check("--set comes before the runs' own lines (a and b still differ)",
      rc == 0 and sc["tiny-ratio"]["simulated"] ==
      cases["tiny-ratio"]["simulated"], err)
rc, out, err = run(CASES, "--uncertainty", "2", "--set", "vm.vcpuz=4")
check("--set with an unknown key: exit 2, named", rc == 2 and
      "--set 'vm.vcpuz=4'" in err and "unknown key" in err, err)
rc, table, err = run(CASES, "--uncertainty", "4", "--set",
                     "workload.iterations=10")
check("table: the header names the --set", rc == 0 and
      "--set workload.iterations=10" in table.splitlines()[0], table)
rc, table, err = run(CASES, "--uncertainty", "4")
check("table: a row per case and the summary line", rc == 0 and
      "\ntiny-ratio " in table and "\ntiny-value " in table and
      "validation cases inside their band" in table, table)
rc, out2, _ = run(os.path.join(CASES, "tiny-value.ini"), "--uncertainty",
                  "12", "--json", "--seed", "1")
one = json.loads(out2)["cases"] if rc == 0 else []
check("a single file; --seed 1 is the cases' own seed",
      len(one) == 1 and one[0] == cases["tiny-value"], one)

# --- broken cases: file:line, exit 2, the good case still runs ----------
good = open(os.path.join(CASES, "tiny-ratio.ini")).read()
BROKEN = [
    ("kind = validation", "kind = guess", ":", "'validation' or 'calibration'"),
    ("quantity = ratio", "quantity = ratios", ":", "'ratio' or 'value'"),
    ("metric = real_s", "metric = speed", ":", "'speed' is none of"),
    ("published = 1.05", "published = 1.2x", ":", "published: not a number"),
    ("published = 1.05", "published = -1", ":", "a ratio is > 0"),
    ("b = strategy=hyperv;  hypervisor.xmm=0 ;\n", "", "",
     "a ratio needs b"),
    ("title = test: real", "titel = x\ntitle = test: real", ":",
     "titel: unknown key"),
    ("derivation = a number the test chose\n", "", "",
     "has no 'derivation'"),
    ("a = strategy=ipi", "a = strategy=ipi; vm.vcpuz=4", ":",
     "unknown key 'vm.vcpuz'"),
    ("a = strategy=ipi", "a = strategy=teleport", ":",
     "bad value 'teleport'"),
    ("a = strategy=ipi", "a = compare=ipi,hyperv", ":",
     "set 'strategy', not 'compare'"),
    ("a = strategy=ipi", "a = strategy ipi", ":", "missing '='"),
    ("quantity = ratio", "quantity = value", ":",
     "a value compares no second run"),
]
with tempfile.TemporaryDirectory() as d:
    for i, (old, new, _, what) in enumerate(BROKEN):
        case = os.path.join(d, f"broken-{i}.ini")
        text = good.replace("../../../profiles", os.path.join(ROOT,
                                                              "profiles"))
        assert old in text, old
        with open(case, "w") as f:
            f.write(text.replace(old, new, 1))
        shutil.copy(os.path.join(CASES, "tiny-value.ini"),
                    os.path.join(d, "zz-good.ini"))
        with open(os.path.join(d, "zz-good.ini")) as f:
            t = f.read()
        with open(os.path.join(d, "zz-good.ini"), "w") as f:
            f.write(t.replace("../../../profiles",
                              os.path.join(ROOT, "profiles")))
        rc, out, err = run(case, os.path.join(d, "zz-good.ini"),
                           "--uncertainty", "2", "--json")
        doc = json.loads(out) if out else {"cases": []}
        line = err.strip().splitlines()[0] if err.strip() else ""
        check(f"broken case {i} ({what})", rc == 2 and
              line.startswith(case + ":") and what in line and
              len(doc["cases"]) == 2 and "error" in doc["cases"][0] and
              doc["cases"][1].get("simulated"), f"rc={rc} {err!r}")
    os.rename(os.path.join(d, "zz-good.ini"), os.path.join(d, "Bad_Id.ini"))
    rc, out, err = run(os.path.join(d, "Bad_Id.ini"), "--uncertainty", "2")
    check("a case id is lowercase, digits and dashes", rc == 2 and
          "file name is its id" in err, err)
for args, what in [(["--uncertainty", "0"], "--uncertainty '0'"),
                   (["--threads", "0"], "--threads '0'"),
                   (["/nonexistent/x.ini"], "No such file"),
                   (["--frob"], "unknown option")]:
    rc, out, err = run(*args)
    check(f"bad {args}", rc == 2 and what in err, err)

# --- the ratchet script itself fails when it should ----------------------
RATCHET = os.path.join(ROOT, "tests", "scenario",
                       "check-validation-ratchet.py")
with tempfile.TemporaryDirectory() as d:
    os.mkdir(os.path.join(d, "validation"))
    for name in ("tiny-ratio.ini", "tiny-value.ini"):
        with open(os.path.join(CASES, name)) as f:
            t = f.read().replace("../../../profiles",
                                 os.path.join(ROOT, "profiles"))
        with open(os.path.join(d, "validation", name), "w") as f:
            f.write(t)

    def ratchet(ids):
        with open(os.path.join(d, "validation", "passing.txt"), "w") as f:
            f.write("# args: --uncertainty 12\n" + "".join(
                i + "\n" for i in ids))
        p = subprocess.run([sys.executable, RATCHET, HVTLB, d],
                           capture_output=True, text=True, timeout=600)
        return p.returncode, p.stdout
    rc, out = ratchet(["tiny-ratio"])
    check("ratchet: a listed case inside passes", rc == 0, out)
    rc, out = ratchet(["tiny-ratio", "tiny-value"])
    check("ratchet: a listed case outside fails", rc == 1 and
          "tiny-value: listed in passing.txt but now outside" in out, out)
    rc, out = ratchet(["ghost"])
    check("ratchet: a listed id without a case fails", rc == 1 and
          "'ghost' has no case file" in out and
          "newly inside: add 'tiny-ratio'" in out, out)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
