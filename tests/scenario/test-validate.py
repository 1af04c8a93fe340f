#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb validate on the test cases of tests/scenario/validation: the JSON
has the documented fields and every figure follows from the band (inside,
relative error, sign, summary), for the headline and for each further
observable (observable.N.*); the table prints the observables under their
case; the output does not depend on --threads; --quick applies `ci`; a
broken case (a malformed observable too) is a clear error naming its file
and line while the other cases still run; a published value moved out of
its band, or to the wrong side of 1, turns its verdict; a directory
leaves out the cases that name a successor beside them (superseded_by)
unless --all-versions, and a bad superseded_by is an error at its line;
a run that fails at one draw is named with the `hvtlb sim` command that
reruns it alone, and that command fails the same way.

usage: test-validate.py HVTLB SOURCE_ROOT
"""
import json
import os
import shlex
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


def obs_ok(o):
    """The verdict of an observable follows from its band."""
    sim = o.get("simulated") or {}
    ok = set(o) >= {"number", "title", "metric", "run", "published",
                    "simulated", "nominal", "inside", "rel_error",
                    "derivation"} and \
        sim["p5"] <= sim["p50"] <= sim["p95"] and \
        o["inside"] == (sim["p5"] <= o["published"] <= sim["p95"]) and \
        abs(o["rel_error"] - abs(sim["p50"] - o["published"]) /
            abs(o["published"])) < 1e-5
    if o["run"] == "ratio":
        return ok and o["decides_sign"] == (sim["p5"] > 1 or
                                            sim["p95"] < 1) and \
            o["sign_right"] == (o["decides_sign"] and
                                (sim["p5"] > 1) == (o["published"] > 1))
    return ok and "decides_sign" not in o


obs = {cid: c.get("observables") for cid, c in cases.items()}
check("observables: tiny-ratio has 1 (run b) and 2 (ratio), tiny-value 1 "
      "(run a), in number order",
      [(o["number"], o["run"], o["metric"]) for o in obs["tiny-ratio"]] ==
      [(1, "b", "hypercalls"), (2, "ratio", "sys_s")] and
      [(o["number"], o["run"]) for o in obs["tiny-value"]] == [(1, "a")] and
      obs["tiny-ratio"][0]["title"] == "test: hypercalls of the hypercall run"
      and obs["tiny-ratio"][1]["derivation"] == "a number the test chose",
      obs)
for cid, lst in obs.items():
    for o in lst:
        check(f"{cid} observable {o['number']}: fields follow from the band",
              obs_ok(o), o)


def plain(name, *sets):
    """The nominal run of test case NAME with SETS, as `hvtlb sim` runs
    it."""
    args = [a for kv in sets for a in ("--set", kv)]
    p = subprocess.run([os.path.abspath(HVTLB), "sim", name, *args,
                        "--threads", "1", "--json"], capture_output=True,
                       text=True, timeout=600, cwd=CASES)
    return json.loads(p.stdout)["runs"][0] if p.returncode == 0 else {}


# Each observable reads the run it names: its nominal figure is that of a
# plain run with the case's a or b overrides (run a makes no hypercall,
# so reading the wrong run shows).
ra = plain("tiny-ratio.ini", "strategy=ipi")
rb = plain("tiny-ratio.ini", "strategy=hyperv", "hypervisor.xmm=0")
va = plain("tiny-value.ini", "strategy=hyperv", "hypervisor.profile=kvm")
check("observables read the runs they name (nominal = hvtlb sim's figure)",
      ra.get("hypercalls") == 0 and
      obs["tiny-ratio"][0]["nominal"] == rb.get("hypercalls") > 0 and
      abs(obs["tiny-ratio"][1]["nominal"] -
          ra["sys_s"] / rb["sys_s"]) < 1e-5 * ra["sys_s"] / rb["sys_s"]
      and obs["tiny-value"][0]["nominal"] == va.get("shootdowns"),
      (obs, ra.get("hypercalls"), rb.get("hypercalls")))
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
check("summary counts the observables of validation cases only",
      s.get("observables") == sum(len(c["observables"]) for c in val) == 2
      and s.get("observables_inside") ==
      sum(o["inside"] for c in val for o in c["observables"]), s)

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
rc, table, err = run(CASES, "--uncertainty", "12", "--threads", "2")
rows = table.splitlines()


def row_of(start):
    return next((i for i, r in enumerate(rows) if r.startswith(start)), -1)


def figures(o):
    return " ".join("%.4g" % x for x in (
        o["published"], o["simulated"]["p5"], o["simulated"]["p50"],
        o["simulated"]["p95"]))


i = row_of("tiny-ratio ")
check("table: the observables, indented under their case, with their band",
      rc == 0 and i >= 0 and
      rows[i + 1].startswith("  observable 1 ") and
      "hypercalls b" in rows[i + 1] and
      " ".join(rows[i + 1].split()[4:8]) == figures(obs["tiny-ratio"][0]) and
      rows[i + 2].startswith("  observable 2 ") and
      "sys_s a/b" in rows[i + 2] and
      " ".join(rows[i + 2].split()[4:8]) == figures(obs["tiny-ratio"][1]) and
      rows[i + 3].startswith("tiny-value ") and
      rows[i + 4].startswith("  observable 1 ") and
      "shootdowns a" in rows[i + 4], table)
check("table: a separate line counts the observables inside",
      f"{s['observables_inside']} of 2 further observables of validation "
      "cases inside their band" in table, table)
rc, out2, _ = run(os.path.join(CASES, "tiny-value.ini"), "--uncertainty",
                  "12", "--json", "--seed", "1")
one = json.loads(out2)["cases"] if rc == 0 else []
check("a single file; --seed 1 is the cases' own seed",
      len(one) == 1 and one[0] == cases["tiny-value"], one)

# --- each verdict of an observable can turn ----------------------------
def with_text(name, edits):
    """A copy of test case NAME with EDITS [(old, new)], in a temporary
    directory that the caller removes."""
    with open(os.path.join(CASES, name)) as f:
        text = f.read().replace("../../../profiles",
                                os.path.join(ROOT, "profiles"))
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    d = tempfile.mkdtemp()
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return d, path


o1, o2 = obs["tiny-ratio"]
s1, s2 = o1["simulated"], o2["simulated"]
# published at the p50 (inside, no error) and far above the p95 (outside)
d, path = with_text("tiny-ratio.ini", [
    ("observable.1.published = 100",
     "observable.1.published = %r" % (10 * s1["p95"] + 1)),
    ("observable.2.published = 1.2",
     "observable.2.published = %r" % s2["p50"])])
rc, out, err = run(path, "--uncertainty", "12", "--threads", "2", "--json")
shutil.rmtree(d)
moved = json.loads(out)["cases"][0] if rc == 0 else {"observables": [{}, {}]}
m1, m2 = moved["observables"]
check("a published value far above the band is outside (inside: false)",
      m1.get("inside") is False and m1["simulated"] == s1 and
      m1["rel_error"] > 0.9, m1)
check("a published value at the p50 is inside, relative error 0",
      m2.get("inside") is True and m2["simulated"] == s2 and
      m2["rel_error"] < 1e-5, m2)
check("the summary counts them: 1 of 2 inside",
      rc == 0 and json.loads(out)["summary"]["observables_inside"] == 1 and
      moved["simulated"] == cases["tiny-ratio"]["simulated"], out)
# both at their p50: both inside, and the summary says 2 (1 and 0 above)
d, path = with_text("tiny-ratio.ini", [
    ("observable.1.published = 100",
     "observable.1.published = %r" % s1["p50"]),
    ("observable.2.published = 1.2",
     "observable.2.published = %r" % s2["p50"])])
rc, out, err = run(path, "--uncertainty", "12", "--threads", "2", "--json")
rc2, table, _ = run(path, "--uncertainty", "12", "--threads", "2")
shutil.rmtree(d)
both = json.loads(out) if rc == 0 else {"cases": [{}], "summary": {}}
check("both published at their p50: both inside, the summary counts 2",
      [o["inside"] for o in both["cases"][0]["observables"]] ==
      [True, True] and both["summary"]["observables_inside"] == 2 and
      "2 of 2 further observables of validation cases inside" in table,
      (both["summary"], table))
# the sign: the same band against a published ratio on each side of 1
for pub in (0.5, 2.0):
    d, path = with_text("tiny-ratio.ini", [
        ("observable.2.published = 1.2", "observable.2.published = %r" % pub)])
    rc, out, err = run(path, "--uncertainty", "12", "--threads", "2",
                       "--json")
    shutil.rmtree(d)
    o = json.loads(out)["cases"][0]["observables"][1] if rc == 0 else {}
    decided = s2["p5"] > 1 or s2["p95"] < 1
    check(f"a ratio observable published {pub}: the band decides the sign "
          f"({decided}), rightly only on the band's side of 1",
          o.get("decides_sign") == decided and
          o.get("sign_right") == (decided and (s2["p5"] > 1) == (pub > 1)),
          o)

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
              doc["cases"][0]["observables"] == [] and
              doc["cases"][1].get("simulated"), f"rc={rc} {err!r}")
    # Malformed observables: (case, old, new, the line the error names,
    # what it says). Every message is "FILE:LINE: [validation] ...".
    OBS_BROKEN = [
        ("tiny-ratio", "observable.1.metric = hypercalls",
         "observable.1.metric = speed", "observable.1.metric = speed",
         "observable.1.metric: 'speed' is none of real_s"),
        ("tiny-ratio", "observable.1.run = b", "observable.1.run = c",
         "observable.1.run = c", "observable.1.run: 'a', 'b' or 'ratio'"),
        ("tiny-ratio", "observable.1.published = 100",
         "observable.1.published = lots", "observable.1.published = lots",
         "observable.1.published: not a number"),
        ("tiny-ratio", "observable.2.published = 1.2",
         "observable.2.published = 0", "observable.2.published = 0",
         "observable.2.published: a ratio is > 0"),
        ("tiny-value", "observable.1.published = 100",
         "observable.1.published = 0.0", "observable.1.published = 0.0",
         "not 0 (the relative error divides by it)"),
        ("tiny-value", "observable.1.run = a", "observable.1.run = b",
         "observable.1.run = b", "a value case has no run b"),
        ("tiny-value", "observable.1.run = a", "observable.1.run = ratio",
         "observable.1.run = ratio", "a value case has no run b"),
        ("tiny-ratio", "observable.2.derivation = a number the test chose\n",
         "", "observable.2.title",
         "observable.2 has no 'derivation' (an observable needs title, "
         "metric, run, published, derivation)"),
        ("tiny-ratio", "observable.1.run = b",
         "observable.1.run = b\nobservable.1.run = a",
         "observable.1.run = a",
         "observable.1.run: given twice (first on line 38)"),
        ("tiny-ratio", "observable.1.title", "observable.01.title",
         "observable.01.title",
         "N a number from 1 to 16 without leading zeros"),
        ("tiny-ratio", "observable.2.metric", "observable.x.metric",
         "observable.x.metric", "observable.x.metric: an observable's key"),
        ("tiny-ratio", "observable.2.metric", "observable.17.metric",
         "observable.17.metric", "N a number from 1 to 16"),
        ("tiny-ratio", "observable.2.title", "observable.2.titel",
         "observable.2.titel", "unknown field 'titel' (an observable has "
         "title, metric, run, published, derivation)"),
        ("tiny-ratio", "observable.2.run = ratio",
         "observable.2.run = ratio\nobservable.2 = ratio",
         "observable.2 = ratio", "an observable's key is "
         "observable.N.FIELD, FIELD one of"),
        ("tiny-ratio", "observable.2.", "observable.3.", "observable.3.title",
         "observable.3.title: observable.2 is missing (observables are "
         "numbered 1..N without a gap)"),
    ]
    for i, (base, old, new, at, what) in enumerate(OBS_BROKEN):
        case = os.path.join(d, f"obs-broken-{i}.ini")
        with open(os.path.join(CASES, base + ".ini")) as f:
            text = f.read().replace("../../../profiles",
                                    os.path.join(ROOT, "profiles"))
        assert old in text, old
        text = text.replace(old, new, 1 if old != "observable.2." else -1)
        with open(case, "w") as f:
            f.write(text)
        lineno = next(n for n, line in enumerate(text.splitlines(), 1)
                      if line.startswith(at))
        rc, out, err = run(case, os.path.join(d, "zz-good.ini"),
                           "--uncertainty", "2", "--json")
        doc = json.loads(out) if out else {"cases": []}
        line = err.strip().splitlines()[0] if err.strip() else ""
        check(f"malformed observable {i} ({what}): {case}:{lineno}",
              rc == 2 and line.startswith(f"{case}:{lineno}: [validation] ")
              and what in line and len(doc["cases"]) == 2 and
              "error" in doc["cases"][0] and
              doc["cases"][0]["observables"] == [] and
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

def add_case(d, name):
    """Test case NAME, unchanged, into directory D beside a with_text()
    copy."""
    d2, _ = with_text(name, [])
    shutil.move(os.path.join(d2, name), os.path.join(d, name))
    shutil.rmtree(d2)


# --- a long case name keeps the table in line ----------------------------
d, path = with_text("tiny-value.ini", [])
long = os.path.join(d, "a-case-whose-name-is-longer-than-the-column.ini")
os.rename(path, long)
add_case(d, "tiny-ratio.ini")
rc, table, err = run(d, "--uncertainty", "4", "--threads", "2")
shutil.rmtree(d)
lines = table.splitlines()
kinds = [ln.index(" val ") if " val " in ln else ln.find(" cal ")
         for ln in lines if ln.startswith(("a-case-", "tiny-ratio"))]
head = next((ln for ln in lines if ln.startswith("case ")), "")
check("table: a long case name widens the column, every row in line",
      rc == 0 and len(kinds) == 2 and len(set(kinds)) == 1 and
      head.index(" kind") == kinds[0], table + err)

# --- --converge: a settled case stops drawing, the others do not ----------
# tiny-ratio with b = a: every draw's ratio is 1, settled after 16 draws;
# its a and b runs are the same configuration, so they run once.
d, path = with_text("tiny-ratio.ini", [
    ("b = strategy=hyperv;  hypervisor.xmm=0 ;", "b = strategy=ipi")])
add_case(d, "tiny-value.ini")
rc, full, err = run(d, "--uncertainty", "40", "--json", "--quick")
rc2, conv, err2 = run(d, "--uncertainty", "40", "--json", "--quick",
                      "--converge")
rc3, table, err3 = run(d, "--uncertainty", "40", "--quick", "--converge",
                       "--threads", "1")
shutil.rmtree(d)
fc = {c["id"]: c for c in json.loads(full)["cases"]} if rc == 0 else {}
cc = {c["id"]: c for c in json.loads(conv)["cases"]} if rc2 == 0 else {}
check("--converge: a ratio of 1 in every draw settles after 16 draws",
      rc2 == 0 and cc["tiny-ratio"]["samples"] == 16 and
      cc["tiny-ratio"]["simulated"] == {"p5": 1, "p50": 1, "p95": 1} and
      fc["tiny-ratio"]["samples"] == 40, (err2, cc.get("tiny-ratio")))
check("--converge: a case whose band is wide draws all (16, 32, then 40),"
      " the band of a run without --converge",
      rc2 == 0 and cc["tiny-value"]["samples"] == 40 and
      cc["tiny-value"] == fc["tiny-value"],
      (cc.get("tiny-value"), fc.get("tiny-value")))
check("--converge: the table says where a case settled",
      rc3 == 0 and "settled after 16 draws (--converge)" in table and
      "up to 40 draws" in table.splitlines()[0], table + err3)

# --- superseded cases: a directory runs the current versions ------------
def old_version(d, successor):
    """tiny-value as tiny-value-old.ini in D, superseded by SUCCESSOR;
    returns the line of its superseded_by key."""
    with open(os.path.join(d, "tiny-value.ini")) as f:
        text = "".join(ln for ln in f
                       if not ln.startswith("superseded_by"))
    with open(os.path.join(d, "tiny-value-old.ini"), "w") as f:
        f.write(text + f"superseded_by = {successor}\n")
    return text.count("\n") + 1


d, _ = with_text("tiny-value.ini", [])
add_case(d, "tiny-ratio.ini")
old_version(d, "tiny-value")
rc, out, err = run(d, "--uncertainty", "2", "--json")
rc2, allv, err2 = run(d, "--uncertainty", "2", "--json", "--all-versions")
rc3, named, err3 = run(os.path.join(d, "tiny-value-old.ini"),
                       "--uncertainty", "2", "--json")
rc4, table, err4 = run(d, "--uncertainty", "2")
ids = [c["id"] for c in json.loads(out)["cases"]] if rc == 0 else []
av = {c["id"]: c for c in json.loads(allv)["cases"]} if rc2 == 0 else {}
check("superseded: a directory leaves the earlier version out and counts it",
      rc == 0 and ids == ["tiny-ratio", "tiny-value"] and
      json.loads(out)["summary"]["superseded_left_out"] == 1, (ids, err))
check("superseded: --all-versions runs it too, naming its successor",
      rc2 == 0 and sorted(av) == ["tiny-ratio", "tiny-value",
                                  "tiny-value-old"] and
      av["tiny-value-old"].get("superseded_by") == "tiny-value" and
      "superseded_by" not in av["tiny-value"] and
      av["tiny-value-old"]["simulated"] == av["tiny-value"]["simulated"] and
      json.loads(allv)["summary"]["superseded_left_out"] == 0, err2)
check("superseded: a file named on the command line runs",
      rc3 == 0 and [c["id"] for c in json.loads(named)["cases"]] ==
      ["tiny-value-old"], err3)
check("superseded: the table says how many were left out",
      rc4 == 0 and "1 superseded case left out" in table and
      "\ntiny-value-old " not in table, table)
# A successor that is not beside it, itself, or not an id: file:line,
# exit 2, the other cases still run.
for succ, what in (("ghost", "superseded_by: no case beside it named "
                            "'ghost'"),
                   ("tiny-value-old", "a case cannot replace itself"),
                   ("Tiny_Value", "the id of a case")):
    line = old_version(d, succ)
    rc, out, err = run(d, "--uncertainty", "2", "--json")
    got = {c["id"]: c for c in json.loads(out)["cases"]} if out else {}
    check(f"superseded_by = {succ}: an error at its line, the others run",
          rc == 2 and err.startswith(
              os.path.join(d, "tiny-value-old.ini") + f":{line}: ") and
          what in err and "error" in got.get("tiny-value-old", {}) and
          got["tiny-value"].get("simulated") and
          got["tiny-ratio"].get("simulated"), (rc, err))
# Two cases that name each other: neither is current, both are errors.
line = old_version(d, "tiny-value")
with open(os.path.join(d, "tiny-value.ini"), "a") as f:
    f.write("superseded_by = tiny-value-old\n")
rc, out, err = run(d, "--uncertainty", "2", "--json")
got = {c["id"]: c for c in json.loads(out)["cases"]} if out else {}
check("superseded_by in a cycle: both cases are errors, the other runs",
      rc == 2 and f"tiny-value-old.ini:{line}: [validation] superseded_by: "
      "no current case at the end of the chain from 'tiny-value'" in err and
      "error" in got.get("tiny-value", {}) and
      "error" in got.get("tiny-value-old", {}) and
      got["tiny-ratio"].get("simulated"), (rc, err))
# A chain broken further on: the case whose successor is missing says so,
# the one before it that its chain has no end.
line = old_version(d, "tiny-value")
with open(os.path.join(d, "tiny-value.ini")) as f:
    text = f.read().replace("superseded_by = tiny-value-old",
                            "superseded_by = ghost")
with open(os.path.join(d, "tiny-value.ini"), "w") as f:
    f.write(text)
rc, out, err = run(d, "--uncertainty", "2", "--json")
check("superseded_by: a chain broken further on, an error for each case",
      rc == 2 and f"tiny-value-old.ini:{line}: [validation] superseded_by: "
      "no current case at the end of the chain from 'tiny-value'" in err and
      "superseded_by: no case beside it named 'ghost'" in err, (rc, err))
shutil.rmtree(d)

# A run that fails at a draw: the command printed under the error reruns
# it alone (the case's ci, the --set options, the run's own lines, the
# draw's values and seed) and fails the same way. The case gives the
# run's virtual-time limit a range down to 1 us, which some draws cannot
# finish in; the nominal (1 s) does. Without the draw's values the command
# would run the nominal limit and finish: the check would fail.
d = tempfile.mkdtemp(prefix="hvtlb validate rerun ")  # a space: quoted
with open(os.path.join(CASES, "tiny-ratio.ini")) as f:
    text = f.read().replace(
        "profile = ../../../profiles/",
        "profile = " + os.path.join(ROOT, "profiles") + "/").replace(
        "[workload]\n",
        "[engine]\nmax_virtual_s = 1 ; range 0.000001..1 log ; source: "
        "test: a limit some draws cannot finish in\n\n[workload]\n", 1)
case = os.path.join(d, "rerun-me.ini")
with open(case, "w") as f:
    f.write(text)
rc, out, err = run(case, "--uncertainty", "6", "--quick", "-q",
                   "--set", "workload.user_ns=600")
lines = err.splitlines()
prefix = "  the same run alone: hvtlb sim "
rerun = [ln[len(prefix):] for ln in lines if ln.startswith(prefix)]
check("a run failed at a draw: exit 1, the error, then the command",
      rc == 1 and len(lines) == 2 and
      "(draw " in lines[0] and "virtual time limit" in lines[0] and
      len(rerun) == 1, (rc, err))
if rerun:
    args = shlex.split(rerun[0])
    check("the command names the file, ci, --set, the run's lines, "
          "the draw and its seed",
          args[0] == case and "workload.iterations=10" in args and
          "workload.user_ns=600" in args and
          ("strategy=ipi" in args or "strategy=hyperv" in args) and
          any(a.startswith("engine.max_virtual_s=") for a in args) and
          args[-2] == "--seed", args)
    p = subprocess.run([HVTLB, "sim", *args, "-q"], capture_output=True,
                       text=True, timeout=300)
    check("the command fails as the draw did", p.returncode == 1 and
          "virtual time limit" in p.stderr, (p.returncode, p.stderr))
shutil.rmtree(d)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
