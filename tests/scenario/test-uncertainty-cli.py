#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb sim --uncertainty N: the same seed and N give byte-identical
output for any --threads; JSON carries bands for every run and ratio and
the list of varied parameters; CSV has one row per draw and strategy whose
strategies share the draw (paired); bad input is a clear error.

usage: test-uncertainty-cli.py HVTLB SOURCE_ROOT [--threads-only]
(--threads-only: just the runs on several host threads, for the TSan build)
"""
import csv
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HVTLB, ROOT = sys.argv[1], sys.argv[2]
DEFAULT = os.path.join(ROOT, "scenarios", "default.ini")
SMALL = ["--set", "workload.iterations=20"]
failures = []


def run(*args):
    p = subprocess.run([HVTLB, *args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


# --- same seed and N: the same bytes for 1, 2 and 3 threads -------------
for fmt in ([], ["--json"], ["--csv"]):
    outs = [run("sim", DEFAULT, *SMALL, "--uncertainty", "6", "--seed", "5",
                "--threads", t, *fmt) for t in ("1", "2", "3")]
    check(f"--threads 1/2/3 identical {fmt}",
          all(o[0] == 0 for o in outs) and
          outs[0][1] == outs[1][1] == outs[2][1] and outs[0][1],
          [o[2] for o in outs])
rc, a, _ = run("sim", DEFAULT, *SMALL, "--uncertainty", "6", "--json")
rc2, b, _ = run("sim", DEFAULT, *SMALL, "--uncertainty", "6", "--json",
                "--seed", "2")
check("another seed draws other points", rc == 0 and rc2 == 0 and a != b)

if sys.argv[3:] == ["--threads-only"]:
    rc1, a, _ = run("sensitivity", DEFAULT, *SMALL, "--threads", "1")
    rc3, b, _ = run("sensitivity", DEFAULT, *SMALL, "--threads", "3")
    check("sensitivity: --threads 1 = --threads 3", rc1 == rc3 == 0 and
          a == b)
    VAL = os.path.join(ROOT, "tests", "scenario", "validation")
    rc1, a, _ = run("validate", VAL, "--uncertainty", "5", "--threads", "1")
    rc3, b, _ = run("validate", VAL, "--uncertainty", "5", "--threads", "3")
    check("validate: --threads 1 = --threads 3", rc1 == rc3 == 0 and a == b)
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)

# --- JSON: bands everywhere, the parameters varied ----------------------
rc, out, err = run("sim", DEFAULT, *SMALL, "--uncertainty", "8", "--json",
                   "--threads", "2")
doc = json.loads(out) if rc == 0 else {}
unc = doc.get("uncertainty", {})
check("json: uncertainty.samples and parameters",
      unc.get("samples") == 8 and "cost.halt_wake" in unc["parameters"] and
      "cost.l1_hit" not in unc["parameters"] and
      "cost.vmexit" in unc["parameters"], unc)
ok = len(doc.get("runs", [])) == 2
for r in doc.get("runs", []):
    for m in ("real_s", "sys_s", "user_s", "latency_us_p50", "vm_exits",
              "ops_per_s"):
        bd = r.get("bands", {}).get(m)
        ok = ok and bd is not None and bd["p5"] <= bd["p50"] <= bd["p95"]
check("json: every run has ordered bands", ok)
rb = doc.get("ratios", [{}])[0].get("bands", {})
check("json: the ratio has real and sys bands",
      all(k in rb and rb[k]["p5"] <= rb[k]["p50"] <= rb[k]["p95"]
          for k in ("real", "sys")), rb)

# A single-strategy document has the same shape: one run in "runs", no
# ratio, the uncertainty at the top.
rc, out, err = run("sim", DEFAULT, *SMALL, "--uncertainty", "3", "--json",
                   "--compare", "hyperv")
doc = json.loads(out) if rc == 0 else {}
one = doc.get("runs", [{}])
check("json: one run, same shape, with bands and uncertainty",
      doc.get("schema") == 1 and len(one) == 1 and
      one[0].get("strategy") == "hyperv" and "bands" in one[0] and
      doc.get("ratios") == [] and
      doc.get("uncertainty", {}).get("samples") == 3, f"{rc} {err}")

# --- CSV: one row per draw and strategy, paired draws -------------------
rc, out, err = run("sim", DEFAULT, *SMALL, "--uncertainty", "5", "--csv",
                   "--set", "cost.kick=2500")
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
params = [k for k in (rows[0].keys() if rows else []) if k.startswith("cost.")]
check("csv: (N + 1) x strategies rows", len(rows) == 12, len(rows))
check("csv: a --set pins its key", "cost.kick" not in params and
      "cost.halt_wake" in params, params)
paired = True
for d in range(6):
    pair = [r for r in rows if r["draw"] == str(d)]
    paired = paired and len(pair) == 2 and \
        {p["strategy"] for p in pair} == {"ipi", "hyperv"} and \
        pair[0]["seed"] == pair[1]["seed"] and \
        all(pair[0][k] == pair[1][k] for k in params)
check("csv: both strategies of a draw share its seed and values", paired)
nominal = [r for r in rows if r["draw"] == "0"]
check("csv: draw 0 is the nominal run (seed 1, the profile's values)",
      nominal and nominal[0]["seed"] == "1" and
      nominal[0]["cost.halt_wake"] == "12000", nominal[:1])
inside = True
for r in rows:
    inside = inside and 0 <= float(r["cost.cstate_exit_us"]) <= 133 and \
        5000 <= float(r["cost.halt_wake"]) <= 50000
check("csv: drawn values lie in their ranges", inside)

# --- a scenario's own range: drawn; an impossible range end: an error ---
with tempfile.TemporaryDirectory() as d:
    own = os.path.join(d, "own.ini")
    with open(own, "w") as f:
        f.write("compare = ipi, hyperv\n[workload]\niterations = 5\n"
                "sleep_ns_max = 1000 ; range 0..5000 ; source: test\n")
    rc, out, err = run("sim", own, "--uncertainty", "4", "--csv")
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    vals = {r["workload.sleep_ns_max"] for r in rows if r["draw"] != "0"}
    check("a scenario line's range is drawn", rc == 0 and len(vals) == 4 and
          all(0 <= int(v) <= 5000 for v in vals), f"{rc} {err} {vals}")
    bad = os.path.join(d, "bad.ini")
    with open(bad, "w") as f:
        f.write("[vm]\nvcpus = 4 ; range 0..8 ; source: test\n")
    rc, out, err = run("sim", bad, "--uncertainty", "4")
    check("an impossible range end names its line",
          rc == 2 and err.startswith(f"{bad}:2: range end 0 of 'vm.vcpus'"),
          f"{rc} {err!r}")

for args, what in [(["--uncertainty", "0"], "--uncertainty '0'"),
                   (["--uncertainty", "x"], "--uncertainty 'x'"),
                   (["--uncertainty", "2", "--uncertainty", "3"], "twice"),
                   (["--uncertainty", "2", "--trace", "/tmp/t.json"],
                    "do not mix")]:
    rc, out, err = run("sim", DEFAULT, *args)
    check(f"bad {args}", rc == 2 and what in err and out == "", err)

# --- hvtlb sweep --uncertainty ---------------------------------------------
GRID = ["--vary", "machine.pcpus=4,8", "--set", "workload.iterations=10",
        "--uncertainty", "4"]
outs = [run("sweep", DEFAULT, *GRID, "--jobs", j) for j in ("1", "3")]
rows = list(csv.DictReader(io.StringIO(outs[0][1]))) if outs[0][0] == 0 \
    else []
check("sweep: band columns, --jobs 1 = --jobs 3",
      outs[0][1] == outs[1][1] and len(rows) == 4 and all(
          float(r["real_s_p5"]) <= float(r["real_s_p50"]) <=
          float(r["real_s_p95"]) for r in rows) and
      list(rows[0])[-1] == "error", outs[0][2])
lines = [json.loads(l) for l in run("sweep", DEFAULT, *GRID, "--shard",
                                    "1/2")[1].splitlines()]
check("sweep --shard: each line has bands", len(lines) == 2 and all(
    "p95" in l["bands"]["sys_s"] for l in lines), lines[:1])
with tempfile.TemporaryDirectory() as d:
    svg = os.path.join(d, "s.svg")
    rc, out, err = run("sweep", DEFAULT, *GRID, "--svg", svg)
    text = open(svg).read() if rc == 0 else ""
    check("sweep --svg: one shaded band per series",
          rc == 0 and text.count('class="band"') == 2 and
          text.count('class="series"') == 2, err)

# --- hvtlb reproduce --uncertainty ------------------------------------------
rc, out, err = run("reproduce", "--iterations", "2", "--uncertainty", "3",
                   "--json", "--threads", "2")
rrows = json.loads(out)["rows"] if rc == 0 else []
check("reproduce --uncertainty: every row has its band",
      len(rrows) == 6 and all(
          r["samples"] == 3 and
          r["bands"]["p5"] <= r["bands"]["p50"] <= r["bands"]["p95"] and
          r["published_inside"] == (r["bands"]["p5"] <= r["published_ratio"]
                                    <= r["bands"]["p95"]) for r in rrows),
      f"{rc} {err}")
rc, out, err = run("reproduce", "--seeds", "2", "--uncertainty", "2")
check("reproduce: --seeds with --uncertainty is refused",
      rc == 2 and "do not mix" in err, err)

# --- hvtlb sensitivity ----------------------------------------------------
def sens(*args):
    return run("sensitivity", DEFAULT, *SMALL, *args)


rc, sens_out, err = sens("--json", "--threads", "2")
doc = json.loads(sens_out) if rc == 0 else {}
ps = doc.get("parameters", [])
check("sensitivity: json shape", rc == 0 and doc.get("ratio") ==
      "ipi/hyperv" and doc.get("metric") == "real" and ps and
      all(set(p) >= {"name", "low", "high", "ratio_at_low", "ratio_at_high"}
          and p["low"] < p["high"] for p in ps), f"{rc} {err}")
swings = [p["swing"] for p in ps]
check("sensitivity: sorted by swing", swings == sorted(swings, reverse=True)
      and swings[0] > 0, swings[:5])
rc, out, _ = run("sim", DEFAULT, *SMALL, "--json")
sim_ratio = json.loads(out)["ratios"][0]["real"] if rc == 0 else None
check("sensitivity: baseline = the nominal ratio",
      sim_ratio and abs(doc["baseline"] - sim_ratio) < 1e-5 * sim_ratio,
      (doc.get("baseline"), sim_ratio))
# the ends really are the parameter at its low and high value
top = ps[0] if ps else {"name": "cost.kick", "low": 0, "high": 0}
for end in ("low", "high"):
    rc, out, _ = run("sim", DEFAULT, *SMALL, "--json", "--set",
                     f"{top['name']}={top[end]}")
    r = json.loads(out)["ratios"][0]["real"] if rc == 0 else None
    check(f"sensitivity: ratio_at_{end} = a run with {top['name']}="
          f"{top[end]}", r is not None and
          abs(r - top[f"ratio_at_{end}"]) < 1e-5 * r, (r, top))
rc, out2, _ = sens("--json", "--threads", "1")
check("sensitivity: --threads 1 = --threads 2", out2 == sens_out,
      "differs")
rc, out, err = sens("--json", "--ratio", "hyperv/ipi", "--metric", "sys")
inv = json.loads(out) if rc == 0 else {}
check("sensitivity: --ratio B/A --metric sys", inv.get("ratio") ==
      "hyperv/ipi" and inv.get("metric") == "sys", f"{rc} {err}")
with tempfile.TemporaryDirectory() as d:
    svg = os.path.join(d, "t.svg")
    rc, out, err = sens("--svg", svg)
    text = open(svg).read() if os.path.exists(svg) else ""
    check("sensitivity: table and tornado svg", rc == 0 and
          "ratio@low" in out and text.startswith("<?xml") and
          'class="low"' in text and 'class="baseline"' in text,
          f"{rc} {err}")
for args, what in [(["--compare", "ipi"], "fewer than two"),
                   (["--metric", "nope"], "--metric 'nope'"),
                   (["--ratio", "ipi"], "want A/B"),
                   (["--ratio", "ipi/teleport"], "unknown strategy")]:
    if args[0] == "--compare":
        rc, out, err = run("sensitivity", DEFAULT, "--set", "compare=ipi")
    else:
        rc, out, err = sens(*args)
    check(f"sensitivity: bad {args}", rc == 2 and what in err, err)

# --- a run that fails at a draw: the command printed under the error ---
# reruns it alone (the file, the command line's --set and --fault, the
# run's strategy, the draw's values and seed) and fails the same way. The
# file gives the run's virtual-time limit a range down to 1 us, which
# some draws cannot finish in; the nominal (1 s) does. Without the draw's
# values the command would run the nominal limit and finish.
d = tempfile.mkdtemp(prefix="hvtlb sim rerun ")  # a space: quoted
with open(DEFAULT) as f:
    text = f.read().replace(
        "[workload]\n",
        "[engine]\nmax_virtual_s = 1 ; range 0.000001..1 log ; source: "
        "test: a limit some draws cannot finish in\n\n[workload]\n", 1)
case = os.path.join(d, "rerun-me.ini")
with open(case, "w") as f:
    f.write(text)
rc, out, err = run("sim", case, *SMALL, "--uncertainty", "6", "-q",
                   "--fault", "no-wait", "--compare", "ipi,hyperv")
lines = err.splitlines()
prefix = "  the same run alone: hvtlb sim "
rerun = [ln[len(prefix):] for ln in lines if ln.startswith(prefix)]
check("sim: a run failed at a draw: exit 1, the error, then the command",
      rc == 1 and len(lines) == 2 and "(draw " in lines[0] and
      "virtual time limit" in lines[0] and len(rerun) == 1, (rc, err))
if rerun:
    args = shlex.split(rerun[0])
    check("sim: the command names the file, --set, --fault, the run's "
          "strategy, the draw and its seed",
          args[0] == case and "workload.iterations=20" in args and
          "no-wait" in args and "--compare" not in args and
          ("strategy=ipi" in args or "strategy=hyperv" in args) and
          any(a.startswith("engine.max_virtual_s=") for a in args) and
          args[-2] == "--seed", args)
    rc2, _, err2 = run("sim", *args, "-q")
    check("sim: the command fails as the draw did",
          rc2 == 1 and "virtual time limit" in err2, (rc2, err2))
shutil.rmtree(d)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
