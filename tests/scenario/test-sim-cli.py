#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb sim: bad scenario input exits 2 with `file:line: message`, --set
errors name the argument, every shipped scenario runs (at a tiny size) and
--json carries the documented keys, and --fault reaches the oracle.

usage: test-sim-cli.py HVTLB SOURCE_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HVTLB, ROOT = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    p = subprocess.run([HVTLB, "sim", *args], capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


def expect_error(name, text, line, what, extra=()):
    """A scenario file with @text must fail with exit 2 and exactly one
    stderr line 'PATH:LINE: ...what...'."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.ini")
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = run(path, *extra)
    lines = err.strip().splitlines()
    want = f"{path}:{line}: "
    check(name, rc == 2 and len(lines) == 1 and lines[0].startswith(want)
          and what in lines[0] and out == "",
          f"rc={rc} stderr={err!r} want {want!r}...{what!r}")


# --- bad scenario input: file:line: message, exit 2 ----------------------
expect_error("unknown key", "[vm]\nvcpus = 4\nvcpuz = 4\n", 3,
             "unknown key 'vm.vcpuz'")
expect_error("bad value", "# c\n[vm]\nvcpus = lots\n", 3,
             "bad value 'lots' for 'vm.vcpus'")
expect_error("impossible machine (0 vCPUs)", "[vm]\nvcpus = 0\n", 2,
             "'vm.vcpus'")
expect_error("impossible machine (too many vCPUs)", "[vm]\nvcpus = 4097\n",
             2, "'vm.vcpus'")
expect_error("impossible machine (0 pCPUs)", "[machine]\npcpus = 0\n", 2,
             "'machine.pcpus'")
# guest.kernel and machine.backing: one line, key, value and why
expect_error("version gate (KVM PV send-IPI)",
             "[guest]\nkernel = 4.15\n[hypervisor]\nipi_delivery = kvm-pv\n",
             4, "'hypervisor.ipi_delivery = kvm-pv': guest.kernel predates "
             "it: KVM PV send-IPI needs Linux 4.19")
expect_error("backing gate (TDX, kvm-pv)",
             "strategy = kvm-pv\n[machine]\nbacking = tdx\n", 1,
             "'strategy = kvm-pv': machine.backing = tdx")
expect_error("bad guest.kernel", "[guest]\nkernel = 4.x\n", 2,
             "bad value '4.x' for 'guest.kernel': want any|MAJOR.MINOR")
expect_error("unknown section", "strategy = ipi\n\n[vmm]\nvcpus = 4\n", 3,
             "unknown section [vmm]")
expect_error("missing =", "[vm]\nvcpus 4\n", 2, "missing '='")
expect_error("empty value", "[vm]\nvcpus =\n", 2, "has no value")
expect_error("bad section header", "[vm\n", 1, "without ']'")
expect_error("unknown strategy", "strategy = teleport\n", 1,
             "bad value 'teleport' for 'strategy'")
expect_error("unknown compare strategy", "compare = ipi, teleport\n", 1,
             "unknown strategy 'teleport' in compare")
expect_error("missing profile", "profile = no-such-profile\n", 1,
             "profile 'no-such-profile' not found")

with tempfile.TemporaryDirectory() as d:
    os.mkdir(os.path.join(d, "profiles"))
    os.mkdir(os.path.join(d, "scenarios"))
    prof = os.path.join(d, "profiles", "p.ini")
    with open(prof, "w") as f:
        f.write("vmexit = 1000 ; source: test\nkick = 10\n")
    scen = os.path.join(d, "scenarios", "s.ini")
    with open(scen, "w") as f:
        f.write("profile = p\n")
    rc, out, err = run(scen)
    check("profile line without a source", rc == 2 and
          err.startswith(os.path.realpath(prof) + ":2: ") and
          "source" in err, f"rc={rc} {err!r}")
    with open(prof, "w") as f:
        f.write("vmexit = 1000 ; source: test\nnot_a_cost = 1 ; source: x\n")
    rc, out, err = run(scen)
    check("unknown cost in a profile", rc == 2 and ":2: unknown key "
          "'cost.not_a_cost'" in err, f"rc={rc} {err!r}")

rc, out, err = run("/nonexistent/dir/s.ini")
check("unreadable file", rc == 2 and err.startswith(
    "/nonexistent/dir/s.ini: cannot read scenario"), f"rc={rc} {err!r}")
rc, out, err = run(os.path.join(ROOT, "scenarios"))
check("a directory as scenario", rc == 2 and "scenarios: cannot read "
      "scenario: Is a directory" in err, f"rc={rc} {err!r}")

# --- --set and option errors name the bad argument -----------------------
default = os.path.join(ROOT, "scenarios", "default.ini")
for args, what in [
        (["--set", "vm.vcpus"], "--set 'vm.vcpus': missing '='"),
        (["--set", "vm.vcpus=many"], "--set 'vm.vcpus=many': bad value"),
        (["--set", "vm.vcpuz=4"], "--set 'vm.vcpuz=4': unknown key"),
        (["--set", "vm.vcpus=0"],
         "--set 'vm.vcpus=0': '0' for 'vm.vcpus' is out of range: 1..4096"),
        (["--set", "vm.vcpu=4"], "(did you mean 'vm.vcpus'?)"),
        (["--set", "strategy=hypercal"], "(did you mean 'hyperv'?)"),
        (["--set", "=4"], "--set '=4': bad key"),
        (["--set", "profile=nope"], "--set 'profile=nope': profile"),
        (["--compare", "ipi,nope"], "unknown strategy 'nope'"),
        (["--threads", "0"], "--threads '0': want a whole number in 1..64"),
        (["--threads", "x"], "--threads 'x': want a whole number"),
        (["--seed", "-1"],
         "--seed '-1': want a whole number in 0..18446744073709551615"),
        (["--fault", "meteor"], "--fault 'meteor': unknown"),
        (["--set"], "option '--set' needs a value"),
        (["--jsn"], "unknown option '--jsn' (did you mean '--json'?)"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["--json", "--csv"], "exclude each other")]:
    rc, out, err = run(default, *args)
    check(f"bad argument {args}", rc == 2 and what in err and
          len(err.strip().splitlines()) == 1, f"rc={rc} {err!r}")
rc, out, err = run()
check("no scenario", rc == 2 and "missing SCENARIO" in err, err)

# --- every shipped scenario runs at a tiny size --------------------------
KEYS = ["real_s", "sys_s", "user_s", "vm_exits", "ipis", "hypercalls",
        "flushes", "shootdown_latency_us", "violations", "seed"]
tiny = ["--set", "workload.iterations=2", "--set", "workload.threads=4",
        "--set", "workload.pages=8", "--threads", "2", "--json"]
for name in sorted(os.listdir(os.path.join(ROOT, "scenarios"))):
    if not name.endswith(".ini"):
        continue
    rc, out, err = run(os.path.join(ROOT, "scenarios", name), *tiny)
    ok = rc == 0
    detail = f"rc={rc} {err.strip()!r}"
    if ok:
        doc = json.loads(out)
        runs = doc["runs"]
        for r in runs:
            missing = [k for k in KEYS if k not in r]
            if missing or r["violations"] != {"latent": 0, "used": 0,
                                              "total": 0}:
                ok = False
                detail = f"missing {missing} violations {r['violations']}"
            for k in ("p50", "p99", "max"):
                if k not in r.get("shootdown_latency_us", {}):
                    ok, detail = False, f"latency lacks {k}"
        if doc.get("schema") != 1 or len(doc["ratios"]) != len(runs) - 1:
            ok, detail = False, "ratios"
    check(f"scenario {name} runs", ok, detail)

# the table names both strategies and prints the comparison line
rc, out, err = run(default, "--set", "workload.iterations=2", "--threads",
                   "2")
check("default.ini table compares ipi and hyperv", rc == 0 and
      re.search(r"^strategy\s+ipi\s+hyperv$", out, re.M) and
      re.search(r"^ipi / hyperv: real [0-9.]+x, sys [0-9.]+x "
                r"\(consumed [0-9.]+x\)$", out, re.M),
      f"rc={rc} {err!r}")

check("no guest.kernel: no delivery row", "IPI delivery" not in out, out)
# guest.kernel derives the delivery: the table says which and why (a
# scenario that does not name its delivery: the shipped ones all do)
with tempfile.TemporaryDirectory() as d:
    nodelivery = os.path.join(d, "k.ini")
    with open(nodelivery, "w") as f:
        f.write("strategy = ipi\n[machine]\npcpus = 4\n[vm]\nvcpus = 8\n"
                "[hypervisor]\nprofile = kvm\n[workload]\nthreads = 8\n"
                "iterations = 2\npages = 4\n")
    rc, out, err = run(nodelivery, "--set", "guest.kernel=4.19")
check("guest.kernel's derived delivery in the table", rc == 0 and
      re.search(r"^IPI delivery \(guest.kernel\)\s+kvm-pv$", out, re.M) and
      "KVM host, Linux >= 4.19" in out, f"rc={rc} {out!r} {err!r}")
rc, out, err = run(default, "--set", "workload.iterations=2", "--set",
                   "guest.kernel=4.19", "--set", "hypervisor.profile=kvm",
                   "--set", "strategy=ipi")
check("a delivery the scenario names is kept: no derived row",
      rc == 0 and "IPI delivery" not in out, f"rc={rc} {err!r}")

# --- guest.os applies first: a guest key overrides it wherever it stands --
def sim_json(text, *extra):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.ini")
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = run(path, "--json", "--threads", "1", *extra)
    out = re.sub(r'"scenario":"[^"]*"', "", out)
    return rc, re.sub(r'"events":[0-9]+', "", out), err


GUEST_BASE = ("strategy = ipi\n[machine]\npcpus = 4\n[vm]\nvcpus = 80\n"
              "[workload]\nthreads = 72\niterations = 3\npages = 4\n")
rc1, before, e1 = sim_json(GUEST_BASE + "[guest]\ngroup_size = 0\nos = windows\n")
rc2, after, e2 = sim_json(GUEST_BASE + "[guest]\nos = windows\ngroup_size = 0\n")
rc3, plain, e3 = sim_json(GUEST_BASE + "[guest]\nos = windows\n")
rc4, over, e4 = sim_json(GUEST_BASE + "[guest]\nos = linux\n",
                         "--set", "guest.os=windows")
check("guest.os: a guest key overrides it before or after it",
      rc1 == rc2 == rc3 == 0 and before == after and before != plain,
      f"{rc1} {rc2} {rc3} {e1!r}{e2!r}{e3!r}")
check("guest.os: --set guest.os=windows runs the Windows model",
      rc4 == 0 and over == plain, f"{rc4} {e4!r}")
expect_error("unknown guest OS", "[guest]\nos = beos\n", 2,
             "bad value 'beos' for 'guest.os'")

# --- a fault reaches the oracle; without it, zero violations -------------
# A shared madvise mapping (the engine's own fault tests use the same shape):
# other vCPUs hold TLB entries for the pages being zapped.
madvise = os.path.join(ROOT, "scenarios", "madvise.ini")
shared = ["--set", "workload.shared=1", "--set", "workload.pages=4",
          "--set", "workload.threads=8", "--set", "vm.vcpus=8",
          "--set", "machine.pcpus=8", "--set", "hypervisor.ipiv=1",
          "--threads", "2", "--json"]
for strategy, fault in (("ipi", "no-wait"), ("hyperv", "drop-target")):
    rc, out, err = run(madvise, *shared, "--compare", strategy, "--fault",
                       fault)
    doc = json.loads(out)["runs"][0] if rc == 0 else {}
    check(f"--fault {fault} ({strategy}) makes the oracle fire",
          rc == 0 and doc.get("fault") == fault and
          doc["violations"]["latent"] > 0 and doc["fault_hits"] > 0,
          f"rc={rc} {err!r} {doc.get('violations')}")
    rc, out, err = run(madvise, *shared, "--compare", strategy)
    check(f"same run without --fault ({strategy}): no violation",
          rc == 0 and json.loads(out)["runs"][0]["violations"]["total"] == 0,
          f"rc={rc} {err!r}")

# --seed is deterministic and --threads does not change results
outs = [run(default, "--set", "workload.iterations=5", "--seed", "7",
            "--threads", t, "--json")[1] for t in ("1", "2")]
check("same seed, 1 vs 2 threads: identical JSON apart from 'execution'",
      outs[0] and re.sub(r'"execution":\{[^}]*\}', "", outs[0]) ==
      re.sub(r'"execution":\{[^}]*\}', "", outs[1]), "differs")

# --- hvtlb sweep: grid order, parallel = serial, shards merge -----------
def sweep(*args):
    p = subprocess.run([HVTLB, "sweep", default, "--set",
                        "workload.iterations=3", *args],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


grid = ["--vary", "vm.vcpus=2,4,8", "--vary", "workload.threads=2,4"]
rc1, csv1, err1 = sweep(*grid, "--jobs", "1")
rc2, csv2, _ = sweep(*grid, "--jobs", "3")
rows = csv1.strip().splitlines()
check("sweep: header + 3x2 points x 2 strategies, in grid order",
      rc1 == 0 and len(rows) == 13 and rows[0].startswith(
          "vm.vcpus,workload.threads,strategy,") and
      [r.split(",")[:3] for r in rows[1:5]] ==
      [["2", "2", "ipi"], ["2", "2", "hyperv"], ["2", "4", "ipi"],
       ["2", "4", "hyperv"]], f"rc={rc1} {err1!r} {rows[:5]}")
check("sweep: --jobs 3 gives the same CSV as --jobs 1", csv1 == csv2,
      "differs")
shards = [sweep(*grid, "--shard", f"{i}/4")[1] for i in range(4)]
lines = [json.loads(l) for s in shards for l in s.strip().splitlines()]
check("sweep: 4 shards cover every run once",
      sorted((l["point"], l["result"]["strategy"]) for l in lines) ==
      sorted((p, st) for p in range(6) for st in ("ipi", "hyperv")),
      f"{len(lines)} lines")
by_point = {(l["point"], l["result"]["strategy"]): l["result"]["real_s"]
            for l in lines}
check("sweep: shard results equal the CSV",
      all(abs(float(r.split(",")[4]) - by_point[(i // 2, r.split(",")[2])])
          < 1e-12 for i, r in enumerate(rows[1:])), "differs")
rc, out, err = sweep("--vary", "vm.vcpus=4,lots")
check("sweep: a bad --vary value exits 2 naming it with its key", rc == 2
      and "--vary 'vm.vcpus=lots'" in err, f"rc={rc} {err!r}")
rc, out, err = sweep("--shard", "4/4")
check("sweep: bad --shard", rc == 2 and "--shard '4/4'" in err, err)

# --- hvtlb reproduce: argument errors and the JSON shape ------------------
def reproduce(*args):
    p = subprocess.run([HVTLB, "reproduce", *args], capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


for args, what in [(["--iterations", "0"], "--iterations '0'"),
                   (["--iterations"], "needs a value"),
                   (["--seeds", "0"], "--seeds '0'"),
                   (["--seeds", "65"], "--seeds '65': want a whole number in 1..64"),
                   (["--seed", "18446744073709551615", "--seeds", "2"],
                    "passes 2^64"),
                   (["--full"], "unknown option '--full'")]:
    rc, out, err = reproduce(*args)
    check(f"reproduce {args} exits 2", rc == 2 and what in err, err)
rc, out, err = reproduce("--dir", "/nonexistent")
check("reproduce --dir without scenarios exits 2 naming the file",
      rc == 2 and "/nonexistent/scenarios/hyperv-16vcpu.ini" in err, err)
rc, out, err = reproduce("--iterations", "2", "--json")
rows = json.loads(out)["rows"] if rc == 0 else []
check("reproduce --json: 3 experiments x real/sys with the documented keys",
      rc == 0 and [(r["id"], r["metric"]) for r in rows] ==
      [(i, m) for i in ("hyperv-16vcpu", "kvm-128on12", "kvm-12on12")
       for m in ("real", "sys")] and
      all(isinstance(r["published_ratio"], (int, float)) and
          isinstance(r["simulated_ratio"], (int, float)) for r in rows) and
      abs(rows[0]["published_ratio"] - 213.118 / 139.920) < 1e-3,
      f"rc={rc} {err!r}")

# --seeds N: each ratio is the mean of the N seeds' ratios, which are the
# ratios of N single-seed runs; min <= mean <= max
one = []
for sd in ("3", "4"):
    rc, out, err = reproduce("--iterations", "2", "--seed", sd, "--json")
    one.append({(r["id"], r["metric"]): r["simulated_ratio"]
                for r in json.loads(out)["rows"]} if rc == 0 else {})
rc, out, err = reproduce("--iterations", "2", "--seed", "3", "--seeds", "2",
                         "--json")
multi = json.loads(out)["rows"] if rc == 0 else []
check("reproduce --seeds 2: mean and range of the two single-seed runs",
      rc == 0 and len(multi) == 6 and all(
          r["seeds"] == 2 and
          abs(r["simulated_ratio"] - (one[0][(r["id"], r["metric"])] +
                                      one[1][(r["id"], r["metric"])]) / 2)
          < 1e-4 and
          abs(r["simulated_ratio_min"] - min(one[0][(r["id"], r["metric"])],
                                             one[1][(r["id"], r["metric"])]))
          < 1e-4 and
          abs(r["simulated_ratio_max"] - max(one[0][(r["id"], r["metric"])],
                                             one[1][(r["id"], r["metric"])]))
          < 1e-4
          for r in multi), f"rc={rc} {err!r}")

# --- hvtlb sweep --svg: a well-formed plot, the CSV unchanged -------------
import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"


def svg_sweep(svg, *args):
    p = subprocess.run([HVTLB, "sweep", default, "--vary",
                        "machine.pcpus=4,8,16", "--set",
                        "workload.iterations=5", "--svg", svg, *args],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def polylines(root):
    """{legend title: [(x, y), ...]} for every plotted series."""
    out = {}
    for g in root.iter(SVG_NS + "g"):
        pl = g.find(SVG_NS + "polyline")
        if pl is not None:
            pts = [tuple(map(float, xy.split(",")))
                   for xy in pl.get("points").split()]
            out[g.find(SVG_NS + "title").text] = pts
    return out


with tempfile.TemporaryDirectory() as d:
    out_svg = os.path.join(d, "out.svg")
    rc, out, err = svg_sweep(out_svg, "--metric", "latency_us_p99")
    p = subprocess.run([HVTLB, "sweep", default, "--vary",
                        "machine.pcpus=4,8,16", "--set",
                        "workload.iterations=5"],
                       capture_output=True, text=True, timeout=300)
    check("sweep --svg: exit 0 and the CSV is unchanged",
          rc == 0 and out == p.stdout and err == "", f"rc={rc} {err!r}")
    try:
        root = ET.parse(out_svg).getroot()
    except (OSError, ET.ParseError) as e:
        root = None
        check("sweep --svg: the file parses as XML", False, str(e))
    if root is not None:
        rows = [r.split(",") for r in out.splitlines()[1:]]
        col = out.splitlines()[0].split(",").index("latency_us_p99")
        strategies = list(dict.fromkeys(r[1] for r in rows))
        lines = polylines(root)
        check("sweep --svg: one polyline per strategy, 3 points each",
              root.tag == SVG_NS + "svg" and sorted(lines) ==
              sorted(strategies) and
              all(len(v) == 3 for v in lines.values()) and
              len(list(root.iter(SVG_NS + "polyline"))) == len(strategies),
              f"{lines}")
        # Numeric x: 4, 8, 16 sit at proportional positions (8 is 1/3
        # of the way from 4 to 16), the same for every strategy.
        xs = {tuple(x for x, _ in v) for v in lines.values()}
        x0, x1, x2 = next(iter(xs)) if len(xs) == 1 else (0, 0, 0)
        check("sweep --svg: numeric x positions are proportional",
              len(xs) == 1 and x0 < x1 < x2 and
              abs((x1 - x0) / (x2 - x0) - 1 / 3) < 1e-3, f"{xs}")
        # The plotted heights are one decreasing affine map of the metric.
        pairs = sorted((float(r[col]), lines[r[1]][i % 3][1])
                       for i, r in enumerate(
                           sorted(rows, key=lambda r: r[1])))
        (v0, y0), (v1, y1) = pairs[0], pairs[-1]
        check("sweep --svg: y is the chosen metric",
              v1 > v0 and all(abs(y - (y0 + (v - v0) * (y1 - y0) /
                                       (v1 - v0))) < 0.05
                              for v, y in pairs) and y1 < y0, f"{pairs}")
        texts = [t.text or "" for t in root.iter(SVG_NS + "text")]
        # The title says what was swept (not the scenario's title), the
        # axes say what they measure and in which unit.
        check("sweep --svg: title, axis labels with units, ticks",
              "shootdown latency p99 (us) against machine.pcpus: ipi, "
              "hyperv; default.ini" in texts and
              "machine.pcpus (CPUs)" in texts and
              "shootdown latency p99 (us)" in texts and
              not any("IPI vs Hyper-V" in t for t in texts) and
              "16" in texts and "0" in texts, f"{texts}")

    # Categorical x, a second --vary key, XML-hostile text (the scenario's
    # file name is in the title; its profile is found through profiles/).
    cat_svg = os.path.join(d, "cat.svg")
    hostile = os.path.join(d, "a <b> & \"c\" 'd'.ini")
    shutil.copy(default, hostile)
    os.symlink(os.path.join(ROOT, "profiles"), os.path.join(d, "profiles"))
    p = subprocess.run([HVTLB, "sweep", hostile, "--vary",
                        "hypervisor.ex=true,false", "--vary",
                        "machine.pcpus=4,8", "--set",
                        "workload.iterations=2", "--svg", cat_svg],
                       capture_output=True, text=True, timeout=300)
    try:
        root = ET.parse(cat_svg).getroot()
        lines = polylines(root)
        texts = [t.text or "" for t in root.iter(SVG_NS + "text")]
    except (OSError, ET.ParseError) as e:
        lines, texts = {}, [str(e)]
    check("sweep --svg: categorical x, one line per strategy and value",
          p.returncode == 0 and sorted(lines) ==
          sorted(f"{s} machine.pcpus={n}" for s in ("ipi", "hyperv")
                 for n in (4, 8)) and
          all(len(v) == 2 for v in lines.values()) and
          "true" in texts and "false" in texts, f"{lines} {texts}")
    check("sweep --svg: text is escaped for XML",
          any(t.endswith("; a <b> & \"c\" 'd'.ini") for t in texts),
          f"{texts}")

    # Errors: one line on stderr, exit 2, nothing on stdout.
    for name, svg, extra in [
            ("unknown metric", out_svg, ["--metric", "ipis"]),
            ("--svg with --shard", out_svg, ["--shard", "0/2"]),
            ("unwritable file", os.path.join(d, "no", "such.svg"), []),
            ("--metric without --svg", None, ["--metric", "sys_s"])]:
        if svg is None:
            p = subprocess.run([HVTLB, "sweep", default, "--vary",
                                "machine.pcpus=4,8", *extra],
                               capture_output=True, text=True, timeout=300)
            rc, out, err = p.returncode, p.stdout, p.stderr
        else:
            rc, out, err = svg_sweep(svg, *extra)
        check(f"sweep --svg error: {name} exits 2 with one line",
              rc == 2 and out == "" and len(err.strip().splitlines()) == 1,
              f"rc={rc} {err!r}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
