#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb sim --trace FILE: the file is Chrome trace event JSON (traceEvents
with ph X/i/M, the documented fields, slices nested per track, times within
the run), one file per strategy with several, byte-identical on 1, 2 and 4
engine threads for a partitioned 2-VM run, results unchanged by tracing,
--trace-limit drops with one warning line, --trace-window keeps only its
span, and bad usage exits 2 with one line.

usage: test-trace-cli.py HVTLB SOURCE_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

HVTLB, ROOT = sys.argv[1], sys.argv[2]
SCEN = os.path.join(ROOT, "scenarios", "default.ini")
SMALL = ["--set", "workload.iterations=20"]
PART = ["--set", "machine.partition=true", "--set", "machine.vms=2",
        "--set", "vm.vcpus=8", "--compare", "hyperv"]
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


def load(path):
    with open(path) as f:
        return json.load(f)


def validate(name, doc, real_us):
    """The documented format, and what Perfetto needs to import it."""
    ev = doc.get("traceEvents")
    check(name + ": traceEvents list", isinstance(ev, list) and ev,
          type(ev).__name__)
    if not isinstance(ev, list) or not ev:
        return {}
    check(name + ": displayTimeUnit ns", doc.get("displayTimeUnit") == "ns")
    phs = {e.get("ph") for e in ev}
    check(name + ": ph X, i and M", {"X", "i", "M"} <= phs, str(phs))
    bad = [e for e in ev
           if not isinstance(e.get("pid"), int)
           or not isinstance(e.get("tid"), int)
           or not isinstance(e.get("name"), str)
           or not isinstance(e.get("args"), dict)
           or (e["ph"] != "M" and not isinstance(e.get("ts"), (int, float)))
           or (e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float))
                                       and e["dur"] >= 0))]
    check(name + ": every event has pid, tid, name, args, ts, dur",
          not bad, str(bad[:2]))
    # every track that has events is named
    named = {(e["pid"], e["tid"]) for e in ev
             if e["ph"] == "M" and e["name"] == "thread_name"}
    procs = {e["pid"] for e in ev
             if e["ph"] == "M" and e["name"] == "process_name"}
    unnamed = {(e["pid"], e["tid"]) for e in ev if e["ph"] != "M"} - named
    check(name + ": tracks named", not unnamed, str(sorted(unnamed)[:4]))
    check(name + ": processes named",
          {e["pid"] for e in ev} <= procs, str(procs))
    # times within [0, real]
    late = [e for e in ev if e["ph"] != "M"
            and (e["ts"] < 0 or e["ts"] + e.get("dur", 0) > real_us + 0.01)]
    check(name + ": times within [0, real]", not late,
          f"real {real_us} us, {late[:2]}")
    # X slices nest on each track (Perfetto drops misnested ones); in
    # integer ns (the file prints exact ns: three decimals of us)
    tracks = {}
    for e in ev:
        if e["ph"] == "X":
            tracks.setdefault((e["pid"], e["tid"]), []).append(
                (round(e["ts"] * 1000), -round(e["dur"] * 1000),
                 e["name"]))
    misnested = []
    for key, sl in tracks.items():
        sl.sort()
        stack = []
        for ts, negdur, nm in sl:
            end = ts - negdur
            while stack and stack[-1][0] <= ts and stack[-1][1] <= ts:
                stack.pop()
            if stack and end > stack[-1][1]:
                misnested.append((key, stack[-1], (ts, end, nm)))
                break
            stack.append((ts, end, nm))
    check(name + ": X slices nest per track", not misnested,
          str(misnested[:2]))
    cats = {}
    for e in ev:
        if e["ph"] != "M":
            cats[e["cat"]] = cats.get(e["cat"], 0) + 1
    return cats


with tempfile.TemporaryDirectory() as d:
    # --- one strategy: FILE as given ---------------------------------
    out = os.path.join(d, "one.json")
    rc, so, se = run(SCEN, *SMALL, "--compare", "ipi", "--json",
                     "--trace", out)
    check("single run exits 0", rc == 0, se)
    rc2, so2, _ = run(SCEN, *SMALL, "--compare", "ipi", "--json")
    check("results unchanged by --trace", rc2 == 0 and so == so2,
          "stdout differs")
    real_us = json.loads(so)["runs"][0]["real_s"] * 1e6 if rc == 0 else 0
    cats = validate("ipi", load(out), real_us) if os.path.exists(out) else {}
    want = {"vcpu_run", "mode", "exit", "shootdown", "flush", "ipi", "halt",
            "wake"}
    check("ipi: event kinds", want <= set(cats), str(sorted(cats)))

    # --- compare ipi,hyperv: one file per strategy ------------------
    base = os.path.join(d, "cmp.json")
    rc, so, se = run(SCEN, *SMALL, "--json", "--trace", base)
    paths = [os.path.join(d, "cmp.ipi.json"), os.path.join(d, "cmp.hyperv.json")]
    check("compare writes FILE.STRATEGY.json",
          rc == 0 and all(map(os.path.exists, paths))
          and not os.path.exists(base), f"rc={rc} {os.listdir(d)} {se}")
    if rc == 0 and all(map(os.path.exists, paths)):
        runs = json.loads(so)["runs"]
        validate("compare ipi", load(paths[0]), runs[0]["real_s"] * 1e6)
        hv = validate("compare hyperv", load(paths[1]),
                      runs[1]["real_s"] * 1e6)
        check("hyperv: kicks and hypercall exits", "kick" in hv, str(hv))
        check("otherData names the strategy",
              load(paths[1])["otherData"]["strategy"] == "hyperv")
        check("otherData names the version and commit of the tool",
              set(load(paths[1])["otherData"]["hvtlb"]) ==
              {"version", "commit"})

    # --- partitioned 2 VMs: byte-identical on 1, 2, 4 threads -------
    blobs = []
    for th in ("1", "2", "4"):
        p = os.path.join(d, f"part{th}.json")
        rc, so, se = run(SCEN, *SMALL, *PART, "--threads", th, "--json",
                         "--trace", p)
        check(f"partitioned run on {th} threads", rc == 0, se)
        blobs.append(open(p, "rb").read() if rc == 0 else b"")
        if th == "1" and rc == 0:
            doc = load(p)
            validate("partitioned", doc, json.loads(so)["runs"][0]["real_s"] * 1e6)
            pids = {e["pid"] for e in doc["traceEvents"]}
            check("partitioned: host and two VM processes",
                  {1, 2, 3} <= pids, str(pids))
            host = [e for e in doc["traceEvents"]
                    if e["pid"] == 1 and e["ph"] == "X"]
            vm1 = {e["tid"] - 1 for e in host if e["args"]["vm"] == 1}
            check("partitioned: VM 1 on pCPUs 8-15", vm1 and min(vm1) >= 8,
                  str(sorted(vm1)))
    check("trace byte-identical on 1, 2 and 4 threads",
          blobs[0] and blobs[0] == blobs[1] == blobs[2],
          f"sizes {[len(b) for b in blobs]}")

    # --- --trace-limit: a valid file and one warning line -----------
    lim = os.path.join(d, "lim.json")
    rc, so, se = run(SCEN, *SMALL, *PART, "--trace", lim,
                     "--trace-limit", "101")
    warn = [ln for ln in se.splitlines() if "dropped" in ln]
    check("limit: exit 0, one warning line", rc == 0 and len(warn) == 1
          and len(se.strip().splitlines()) == 1, se)
    if rc == 0:
        doc = load(lim)
        # VM events: every recorded event once (host rows duplicate runs)
        vm_ev = [e for e in doc["traceEvents"]
                 if e["ph"] != "M" and e["pid"] >= 2]
        per_vm = [sum(1 for e in vm_ev if e["pid"] == 2 + k)
                  for k in range(2)]
        check("limit: 101 events kept, split 51 + 50", per_vm == [51, 50],
              str(per_vm))
        dropped = doc["otherData"]["events_dropped"]
        check("limit: warning tells the dropped count",
              dropped > 0 and str(dropped) in warn[0], f"{dropped} {warn}")

    # --- --trace-window: only events overlapping it -----------------
    win = os.path.join(d, "win.json")
    rc, so, se = run(SCEN, *SMALL, "--compare", "ipi", "--trace", win,
                     "--trace-window", "0.5:0.75")
    if rc == 0:
        ev = [e for e in load(win)["traceEvents"] if e["ph"] != "M"]
        outside = [e for e in ev if e["ts"] >= 750.0
                   or e["ts"] + e.get("dur", 0) < 500.0]
        check("window: events overlap [0.5, 0.75) ms", ev and not outside,
              f"{len(ev)} events, {outside[:2]}")
    else:
        check("window run exits 0", False, se)

    # --- bad usage: exit 2, one line naming the problem -------------
    def usage(name, args, what):
        rc, so, se = run(SCEN, *SMALL, "--compare", "ipi", *args)
        lines = se.strip().splitlines()
        check(name, rc == 2 and len(lines) == 1 and what in lines[0],
              f"rc={rc} stderr={se!r}")

    usage("missing value", ["--trace"], "option '--trace' needs a value")
    usage("unwritable file",
          ["--trace", os.path.join(d, "no", "such", "dir.json")],
          "dir.json': cannot write")
    usage("limit 0", ["--trace", os.path.join(d, "x.json"),
                      "--trace-limit", "0"], "--trace-limit")
    usage("limit without trace", ["--trace-limit", "5"], "needs --trace")
    usage("window reversed", ["--trace", os.path.join(d, "x.json"),
                              "--trace-window", "2:1"], "--trace-window")
    usage("trace twice", ["--trace", os.path.join(d, "x.json"),
                          "--trace", os.path.join(d, "y.json")],
          "given twice")
    rc, _, se = run(SCEN, *SMALL, "--compare", "ipi,ipi", "--trace",
                    os.path.join(d, "dup.json"))
    check("duplicate strategy refused", rc == 2 and "twice" in se, se)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all passed")
